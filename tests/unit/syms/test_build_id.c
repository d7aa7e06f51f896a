// SPDX-License-Identifier: GPL-2.0
/*
 * build_id.c: the build-id read as readelf reads it; a binary found again
 * by its build-id in a .build-id tree or among plain files, and not when
 * the build-id differs; a file offset named as its function.
 */
#include "testlib.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "syms/build_id.h"

static char self_id[160];

static volatile int marker_calls;

/* Some bytes of code, so that offset +1 lies inside it. */
static void __attribute__((noinline)) build_id_test_marker(void)
{
	for (int i = 0; i < 3; i++)
		marker_calls += i;
}

static int setup(void **state)
{
	char cmd[4200], exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *p;

	/* readelf runs as its own process: ask it about this binary's path. */
	if (n <= 0)
		return -1;
	exe[n] = 0;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", exe);
	p = popen(cmd, "r");
	if (!p || !fgets(self_id, sizeof(self_id), p))
		return -1;
	pclose(p);
	self_id[strcspn(self_id, "\n")] = 0;
	return strlen(self_id) >= 8 ? 0 : -1;
}

static void test_read_matches_readelf(void **state)
{
	char hex[160];
	int fd = open("/proc/self/exe", O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(build_id__read_fd(fd, hex, sizeof(hex)), 0);
	assert_string_equal(hex, self_id);
	close(fd);
	fd = open("/proc/self/status", O_RDONLY);
	assert_int_equal(build_id__read_fd(fd, hex, sizeof(hex)), -ENOEXEC);
	close(fd);
}

static void copy_self(const char *to)
{
	char cmd[12288], exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = 0;
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", to, exe, to);
	assert_int_equal(system(cmd), 0);
}

static void test_found_by_build_id(void **state)
{
	char dir[] = "/tmp/ss-buildid-XXXXXX", path[4096], hex[160], cmd[4200];
	int fd;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(build_id__open_in(dir, self_id), -ENOENT);
	/* A plain file two levels down. */
	snprintf(path, sizeof(path), "%s/a/b/app.full", dir);
	copy_self(path);
	fd = build_id__open_in(dir, self_id);
	assert_true(fd >= 0);
	assert_int_equal(build_id__read_fd(fd, hex, sizeof(hex)), 0);
	assert_string_equal(hex, self_id);
	close(fd);
	/* The debuggers' layout; a file there with another build-id is not it. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/a'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, self_id, self_id + 2);
	copy_self(path);
	fd = build_id__open_in(dir, self_id);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/.build-id/00/0000000000.debug", dir);
	copy_self(path);
	assert_int_equal(build_id__open_in(dir, "000000000000"), -ENOENT);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The marker's file offset, from where /proc/self/maps has it mapped. */
static uint64_t marker_offset(void)
{
	uintptr_t addr = (uintptr_t)build_id_test_marker;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t off = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, o;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64, &lo, &hi, &o) == 3 &&
		    addr >= lo && addr < hi)
			off = addr - lo + o;
	}
	fclose(f);
	assert_true(off > 0);
	return off;
}

static void test_offset_named(void **state)
{
	char buf[256];
	int fd = open("/proc/self/exe", O_RDONLY);
	uint64_t vaddr;

	build_id_test_marker();
	assert_int_equal(build_id__name_offset(fd, marker_offset() + 1, 0, "app", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "build_id_test_marker+0x1 (app)");
	/* Through the link-time address, as a debug file is read. */
	assert_int_equal(build_id__vaddr_of(fd, marker_offset() + 1, &vaddr), 0);
	assert_int_equal(build_id__name_offset(fd, 0, vaddr, "app", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "build_id_test_marker+0x1 (app)");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_matches_readelf),
		cmocka_unit_test(test_found_by_build_id),
		cmocka_unit_test(test_offset_named),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

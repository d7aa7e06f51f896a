// SPDX-License-Identifier: GPL-2.0
/*
 * btf_locate.c: --btf FILE must be readable; otherwise the sysfs BTF or
 * libbpf's fallbacks; a failure lists every path tried and what to do.
 */
#include "testlib.h"
#include <bpf/btf.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace/btf_locate.h"
#include "common/errors.h"

/* A release no machine has, so that no fallback path exists. */
#define FAKE_RELEASE "0.0.0-spinscope-unit-test"

struct tmp {
	char path[64];
};

/* A real raw BTF blob with one type, built with libbpf's writer. */
static int write_minimal_btf(int fd)
{
	struct btf *btf = btf__new_empty();
	const void *raw;
	__u32 size;
	int err = -1;

	if (btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) > 0) {
		raw = btf__raw_data(btf, &size);
		err = raw && write(fd, raw, size) == (ssize_t)size ? 0 : -1;
	}
	btf__free(btf);
	return err;
}

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));
	int fd;

	if (!t)
		return -1;
	snprintf(t->path, sizeof(t->path), "/tmp/spinscope-btf-XXXXXX");
	fd = mkstemp(t->path);
	if (fd < 0 || write_minimal_btf(fd)) {
		free(t);
		return -1;
	}
	close(fd);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;

	unlink(t->path);
	free(t);
	return 0;
}

static void test_override_readable(void **state)
{
	struct tmp *t = *state;
	char custom[256] = "junk", why[512] = "";

	assert_int_equal(btf_locate(t->path, "/nonexistent/btf/vmlinux", FAKE_RELEASE, custom,
				    sizeof(custom), why, sizeof(why)), 0);
	assert_string_equal(custom, t->path);
	assert_string_equal(why, "");
}

/* A file that exists but holds no BTF is refused with its name. */
static void test_override_without_btf(void **state)
{
	char path[] = "/tmp/spinscope-junk-XXXXXX", custom[256], why[512] = "";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "BTF", 3), 3);
	close(fd);
	assert_int_equal(btf_locate(path, "/nonexistent/btf/vmlinux", FAKE_RELEASE, custom,
				    sizeof(custom), why, sizeof(why)), SS_EXIT_KERNEL);
	assert_non_null(strstr(why, path));
	assert_non_null(strstr(why, "no usable BTF"));
	unlink(path);
}

/* The file the user named is used or refused, never silently replaced by
 * the kernel's own BTF. */
static void test_override_missing(void **state)
{
	struct tmp *t = *state;
	char custom[256] = "junk", why[512] = "";
	const char *missing = "/nonexistent/dir/vmlinux.btf";

	assert_int_equal(btf_locate(missing, t->path, FAKE_RELEASE, custom, sizeof(custom), why,
				    sizeof(why)), SS_EXIT_KERNEL);
	assert_string_equal(custom, "");
	assert_non_null(strstr(why, missing));
	assert_non_null(strstr(why, "No such file or directory"));
	assert_non_null(strstr(why, "--btf"));
}

static void test_sysfs_present(void **state)
{
	struct tmp *t = *state;
	char custom[256] = "junk", why[512] = "";

	assert_int_equal(btf_locate(NULL, t->path, FAKE_RELEASE, custom, sizeof(custom), why,
				    sizeof(why)), 0);
	/* Empty: libbpf finds the kernel's own BTF by itself. */
	assert_string_equal(custom, "");
	assert_string_equal(why, "");
}

/* An empty or cut /sys/kernel/btf/vmlinux (issue 13: a bind-mounted empty
 * file gave exit 6 "No such process") is named, with --btf as the way out. */
static void test_sysfs_empty_or_corrupt(void **state)
{
	struct tmp *t = *state;
	char path[] = "/tmp/spinscope-badbtf-XXXXXX", custom[256], why[512] = "";
	char good[4096];
	int fd = mkstemp(path), gfd = open(t->path, O_RDONLY);
	ssize_t n = read(gfd, good, sizeof(good));

	close(gfd);
	assert_true(fd >= 0 && n > 24);
	/* empty */
	assert_int_equal(btf_locate(NULL, path, FAKE_RELEASE, custom, sizeof(custom), why,
				    sizeof(why)), SS_EXIT_KERNEL);
	assert_non_null(strstr(why, path));
	assert_non_null(strstr(why, "is empty"));
	assert_non_null(strstr(why, "--btf FILE"));
	/* a valid header whose sections run past the end of the file */
	assert_int_equal(write(fd, good, n - 1), n - 1);
	assert_int_equal(btf_locate(NULL, path, FAKE_RELEASE, custom, sizeof(custom), why,
				    sizeof(why)), SS_EXIT_KERNEL);
	assert_non_null(strstr(why, "corrupt"));
	assert_non_null(strstr(why, "--btf FILE"));
	assert_null(strchr(why, '\n'));
	/* junk */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, "not BTF at all, not even close", 30, 0), 30);
	assert_int_equal(btf_locate(NULL, path, FAKE_RELEASE, custom, sizeof(custom), why,
				    sizeof(why)), SS_EXIT_KERNEL);
	assert_non_null(strstr(why, "corrupt"));
	close(fd);
	unlink(path);
}

static void test_absent_lists_paths(void **state)
{
	static const char *const tried[] = {
		"/nonexistent/btf/vmlinux",
		"/boot/vmlinux-" FAKE_RELEASE,
		"/lib/modules/" FAKE_RELEASE "/vmlinux-" FAKE_RELEASE,
		"/lib/modules/" FAKE_RELEASE "/build/vmlinux",
		"/usr/lib/modules/" FAKE_RELEASE "/kernel/vmlinux",
		"/usr/lib/debug/boot/vmlinux-" FAKE_RELEASE,
		"/usr/lib/debug/boot/vmlinux-" FAKE_RELEASE ".debug",
		"/usr/lib/debug/lib/modules/" FAKE_RELEASE "/vmlinux",
	};
	char custom[256] = "junk", why[2048] = "";

	assert_int_equal(btf_locate(NULL, "/nonexistent/btf/vmlinux", FAKE_RELEASE, custom,
				    sizeof(custom), why, sizeof(why)), SS_EXIT_KERNEL);
	assert_string_equal(custom, "");
	for (size_t i = 0; i < sizeof(tried) / sizeof(tried[0]); i++)
		if (!strstr(why, tried[i]))
			fail_msg("'%s' does not list '%s'", why, tried[i]);
	/* ...and says what to do. */
	assert_non_null(strstr(why, "CONFIG_DEBUG_INFO_BTF"));
	assert_non_null(strstr(why, "--btf FILE"));
	/* One line. */
	assert_null(strchr(why, '\n'));
}

/* A huge release overflows the list of tried paths: it is cut, not
 * overrun (ASan checks the buffers), and the advice survives in a big
 * enough why. */
static void test_absent_long_release(void **state)
{
	char release[400], custom[64], why[4096] = "";

	memset(release, 'r', sizeof(release) - 1);
	release[sizeof(release) - 1] = 0;
	assert_int_equal(btf_locate(NULL, "/nonexistent/btf/vmlinux", release, custom,
				    sizeof(custom), why, sizeof(why)), SS_EXIT_KERNEL);
	assert_non_null(strstr(why, "/nonexistent/btf/vmlinux"));
	assert_non_null(strstr(why, "--btf FILE"));
	/* A small why is cut too. */
	{
		char small[16];

		assert_int_equal(btf_locate(NULL, "/nonexistent/btf/vmlinux", release, custom,
					    sizeof(custom), small, sizeof(small)), SS_EXIT_KERNEL);
		assert_int_equal(strlen(small), sizeof(small) - 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_override_without_btf),
		cmocka_unit_test_setup_teardown(test_override_readable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_override_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sysfs_present, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sysfs_empty_or_corrupt, setup, teardown),
		cmocka_unit_test(test_absent_lists_paths),
		cmocka_unit_test(test_absent_long_release),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

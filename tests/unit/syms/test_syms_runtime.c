// SPDX-License-Identifier: GPL-2.0
/*
 * syms/runtime_detect.c: which runtime a process runs on, from its maps
 * (fake /proc trees) and its executable (the symbolization fixtures, the
 * host's python3, Go and Rust builds of tests/workloads/lang/ when `make
 * lang-workloads` made them), and hostile executables that name nothing.
 */
#include "testlib.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "syms/runtime_detect.h"

static const char *exe_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *rt;

	if (fd < 0)
		return "missing";
	rt = runtime_detect_exe(fd);
	close(fd);
	return rt ? rt : "none";
}

static void test_executables(void **state)
{
	char rs[512], go[512];

	assert_string_equal(exe_of(tl_path("fixtures/syms_fp_pie")), "none");
	assert_string_equal(exe_of(tl_path("fixtures/syms_cxx")), "none");
	snprintf(rs, sizeof(rs), "%s", tl_path("workloads/lang/mutex_rs"));
	snprintf(go, sizeof(go), "%s", tl_path("workloads/lang/go_mutex"));
	if (!access(rs, R_OK))
		assert_string_equal(exe_of(rs), "rust");
	else
		print_message("note: %s not built (make lang-workloads)\n", rs);
	if (!access(go, R_OK))
		assert_string_equal(exe_of(go), "go");
	else
		print_message("note: %s not built (make lang-workloads)\n", go);
	/* Debian's python3 links libpython statically */
	if (!access("/usr/bin/python3.11", R_OK))
		assert_string_equal(exe_of("/usr/bin/python3.11"), "cpython");
}

/* Not ELF, truncated ELF, an empty file: nothing named, no crash. */
static void test_hostile_executables(void **state)
{
	char *junk = tl_write_tmp("#!/bin/sh\nruntime.goexit rust_begin_unwind\n");
	char path[] = "/tmp/spinscope-rtd-XXXXXX";
	char buf[4096];
	int in, out;
	ssize_t n;

	assert_string_equal(exe_of(junk), "none");
	unlink(junk);
	free(junk);
	/* the first 4 KiB of a real executable: headers without sections */
	in = open(tl_path("fixtures/syms_fp_pie"), O_RDONLY);
	out = mkstemp(path);
	assert_true(in >= 0 && out >= 0);
	n = read(in, buf, sizeof(buf));
	assert_true(n > 64);
	assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	assert_string_equal(exe_of(path), "none");
	unlink(path);
}

/* A fake /proc/PID with a maps file and an exe link. */
static char *fake_proc(const char *maps, const char *exe)
{
	char *root = strdup("/tmp/spinscope-rtd-root-XXXXXX"), dir[512], file[600];
	FILE *f;

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/42", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/maps", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs(maps, f);
	fclose(f);
	snprintf(file, sizeof(file), "%s/exe", dir);
	assert_int_equal(symlink(exe, file), 0);
	return root;
}

static void remove_fake(char *root)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/42/maps", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/42/exe", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/42", root);
	rmdir(path);
	rmdir(root);
	free(root);
}

static void test_by_maps(void **state)
{
	static const struct {
		const char *lib, *rt;
	} cases[] = {
		{ "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", "jvm" },
		{ "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", "cpython" },
		{ "/usr/lib/rustlib/x86_64-unknown-linux-gnu/lib/libstd-8f2a1c.so", "rust" },
		{ "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "c++" },
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", "c" },
	};
	char maps[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *root;

		snprintf(maps, sizeof(maps),
			 "55d0c0000000-55d0c0001000 r-xp 00000000 08:01 12 /opt/app\n"
			 "7f0000000000-7f0000100000 r-xp 00000000 08:01 13 %s\n", cases[i].lib);
		root = fake_proc(maps, tl_path("fixtures/syms_fp_pie"));
		assert_string_equal(runtime_detect(root, 42), cases[i].rt);
		remove_fake(root);
	}
	/* no such process */
	assert_string_equal(runtime_detect("/tmp/spinscope-no-such-root", 42), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_executables),
		cmocka_unit_test(test_hostile_executables),
		cmocka_unit_test(test_by_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

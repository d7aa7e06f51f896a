// SPDX-License-Identifier: GPL-2.0
/*
 * A target in its own mount namespace (unshare -m), run from a path that
 * exists only there (a bind mount over an empty folder): the paths in its
 * maps lead nowhere from here, yet its functions must be named, through
 * /proc/PID/map_files and, without it, through /proc/PID/exe for the
 * executable and /proc/PID/root for its shared object. Needs root for
 * unshare and mount.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "syms/syms.h"
#include "syms_fixture.h"

static void require_root(void)
{
	if (geteuid() != 0) {
		print_message("skip: unshare -m and mount need root\n");
		skip();
	}
}

static void named_across_mount_ns(bool map_files)
{
	char tmp[] = "/tmp/ss-mntns-XXXXXX", src[64], mnt[64], bin[80], hidden[96], path[96];
	char *argv[] = { "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
			 "mount --bind \"$1\" \"$2\" && exec \"$2/fixture\"", "sh", src, mnt, NULL };
	struct syms_opts opts = { .no_map_files = !map_files };
	struct sym_info si;
	struct sf_run r;
	struct syms *s;

	require_root();
	assert_non_null(mkdtemp(tmp));
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(bin, sizeof(bin), "%s/fixture", src);
	snprintf(hidden, sizeof(hidden), "%s/fixture", mnt);
	assert_int_equal(mkdir(src, 0755), 0);
	assert_int_equal(mkdir(mnt, 0755), 0);
	assert_int_equal(sf_copy(tl_path("fixtures/syms_shlib"), bin), 0);
	/* found by the executable's $ORIGIN rpath, so also only in there */
	snprintf(path, sizeof(path), "%s/libsyms_fixture.so", src);
	assert_int_equal(sf_copy(tl_path("fixtures/libsyms_fixture.so"), path), 0);
	assert_int_equal(sf_start_argv(&r, argv), 0);
	/* from here, the path the target runs from is an empty folder */
	assert_int_not_equal(access(hidden, F_OK), 0);

	s = syms__new_opts(r.pid, &opts);
	assert_non_null(s);
	assert_int_equal(syms__resolve(s, r.leaf + 1, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "syms_fixture_leaf");
	assert_string_equal(si.module, hidden);
	assert_int_equal(syms__resolve(s, r.lib + 1, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "syms_fixture_lib_func");
	snprintf(path, sizeof(path), "%s/libsyms_fixture.so", mnt);
	assert_string_equal(si.module, path);
	syms__free(s);
	sf_stop(&r);

	snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
	assert_int_equal(system(path), 0);
}

static void test_named_via_map_files(void **state)
{
	named_across_mount_ns(true);
}

static void test_named_via_root(void **state)
{
	named_across_mount_ns(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_via_map_files),
		cmocka_unit_test(test_named_via_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

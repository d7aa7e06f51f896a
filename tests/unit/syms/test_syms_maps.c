// SPDX-License-Identifier: GPL-2.0
/* proc_maps.c: every field of a /proc/PID/maps line, and lines it refuses. */
#include "testlib.h"
#include <errno.h>
#include <string.h>
#include "syms/proc_maps.h"

static void test_file_mapping(void **state)
{
	struct proc_map m;

	assert_int_equal(proc_map__parse("7f12a4c28000-7f12a4dbd000 r-xp 00028000 fd:01 1311521"
					 "                    /usr/lib/x86_64-linux-gnu/libc.so.6\n", &m), 0);
	assert_true(m.start == 0x7f12a4c28000ull);
	assert_true(m.end == 0x7f12a4dbd000ull);
	assert_true(m.offset == 0x28000);
	assert_int_equal(m.dev_major, 0xfd);
	assert_int_equal(m.dev_minor, 1);
	assert_true(m.inode == 1311521);
	assert_true(m.readable && !m.writable && m.executable && !m.shared && !m.deleted);
	assert_int_equal(m.path_len, strlen("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_memory_equal(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", m.path_len);
	assert_true(proc_map__is_file(&m));
}

static void test_anonymous_and_special(void **state)
{
	struct proc_map m;

	assert_int_equal(proc_map__parse("7ffd1c3a0000-7ffd1c3c1000 rw-p 00000000 00:00 0\n", &m), 0);
	assert_int_equal(m.path_len, 0);
	assert_false(proc_map__is_file(&m));
	assert_true(m.writable && !m.executable);

	assert_int_equal(proc_map__parse("7ffd1c3f5000-7ffd1c3f7000 r-xp 00000000 00:00 0"
					 "                          [vdso]", &m), 0);
	assert_int_equal(m.path_len, 6);
	assert_memory_equal(m.path, "[vdso]", 6);
	assert_false(proc_map__is_file(&m));

	assert_int_equal(proc_map__parse("1000-2000 rwxs 00000000 00:05 77 /dev/zero (deleted)\n", &m), 0);
	assert_true(m.shared && m.deleted);
	assert_int_equal(m.path_len, strlen("/dev/zero"));
}

/* A file name with spaces, and one that only looks deleted. */
static void test_paths(void **state)
{
	struct proc_map m;

	assert_int_equal(proc_map__parse("400000-401000 r-xp 00001000 08:02 12 /opt/my app/bin (deleted)\n", &m), 0);
	assert_true(m.deleted);
	assert_int_equal(m.path_len, strlen("/opt/my app/bin"));
	assert_memory_equal(m.path, "/opt/my app/bin", m.path_len);

	assert_int_equal(proc_map__parse("400000-401000 r-xp 00000000 08:02 12 /x (deleted)y\n", &m), 0);
	assert_false(m.deleted);
	assert_int_equal(m.path_len, strlen("/x (deleted)y"));
	/* the suffix alone is a name, not a deleted empty path */
	assert_int_equal(proc_map__parse("400000-401000 r-xp 00000000 08:02 12  (deleted)", &m), 0);
	assert_false(m.deleted);
}

/* Large device numbers and the top of the address space. */
static void test_extremes(void **state)
{
	struct proc_map m;

	assert_int_equal(proc_map__parse("ffffffffff600000-ffffffffff601000 --xp 00000000 103:1f 0 [vsyscall]", &m), 0);
	assert_true(m.end == 0xffffffffff601000ull);
	assert_int_equal(m.dev_major, 0x103);
	assert_int_equal(m.dev_minor, 0x1f);
	assert_false(m.readable);
}

static void test_rejects_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		"garbage",
		"1000 r-xp 00000000 08:02 12 /x",		/* no end */
		"2000-1000 r-xp 00000000 08:02 12 /x",		/* end before start */
		"1000-2000 rxp 00000000 08:02 12 /x",		/* short perms */
		"1000-2000 r-xq 00000000 08:02 12 /x",		/* bad share flag */
		"1000-2000 r-xp zz 08:02 12 /x",		/* bad offset */
		"1000-2000 r-xp 00000000 0802 12 /x",		/* no ':' in dev */
		"1000-2000 r-xp 00000000 08:02 /x",		/* no inode */
		"1000-2000 r-xp 00000000 08:02 12x /x",		/* junk after inode */
		"10000000000000000-2 r-xp 0 0:0 0",		/* start overflows */
		"1000-2000 r-xp 00000000 1ffffffff:02 12 /x",	/* major > 32 bits */
		"1000-2000 r-xp 0 0:0 99999999999999999999 /x",	/* inode overflows */
	};
	struct proc_map m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = proc_map__parse(bad[i], &m);

		if (r != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_mapping),
		cmocka_unit_test(test_anonymous_and_special),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_rejects_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_layout.c over both layouts of the syscall tracepoint records:
 * the format files of a plain kernel (this host's 6.18) and of PREEMPT_RT
 * 6.1 (trace_entry of 12 bytes), and BTF of each layout. A BTF of the
 * wrong layout, or one whose syscall_trace_exit has the raw_syscalls shape
 * that issue 11's RT kernel refused at attach, is refused with one line.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "common/errors.h"
#include "trace/syscall_layout.h"

#define PLAIN "tests/fixtures/tracefs-x86-6.18"
#define RT "tests/fixtures/tracefs-x86-6.1-rt"
#define ENTER "/events/syscalls/sys_enter_futex/format"
#define EXIT "/events/syscalls/sys_exit_futex/format"

static void test_format_fields(void **state)
{
	assert_int_equal(tracefs_field_offset(PLAIN ENTER, "__syscall_nr"), 8);
	assert_int_equal(tracefs_field_offset(PLAIN ENTER, "uaddr"), 16);
	assert_int_equal(tracefs_field_offset(PLAIN ENTER, "op"), 24);
	/* A name is a whole word: uaddr is not uaddr2, val not val3. */
	assert_int_equal(tracefs_field_offset(PLAIN ENTER, "uaddr2"), 48);
	assert_int_equal(tracefs_field_offset(PLAIN ENTER, "val"), 32);
	assert_int_equal(tracefs_field_offset(PLAIN ENTER, "addr"), -ENOENT);
	assert_int_equal(tracefs_field_offset(PLAIN EXIT, "ret"), 16);
	assert_int_equal(tracefs_field_offset(RT ENTER, "__syscall_nr"), 12);
	assert_int_equal(tracefs_field_offset(RT ENTER, "uaddr"), 16);
	assert_int_equal(tracefs_field_offset(RT EXIT, "ret"), 16);
	assert_int_equal(tracefs_field_offset(RT "/nonexistent/format", "ret"), -ENOENT);
}

static struct btf *fixture(enum btf_fixture_layout layout)
{
	char *path = btf_fixture_write(layout);
	struct btf *btf;

	assert_non_null(path);
	btf = btf__parse_raw(path);
	unlink(path);
	free(path);
	assert_non_null(btf);
	return btf;
}

static void test_btf_offsets(void **state)
{
	struct syscall_layout l;
	struct btf *plain = fixture(BTF_FIXTURE_PLAIN), *rt = fixture(BTF_FIXTURE_RT);
	struct btf *none = fixture(BTF_FIXTURE_NO_SYSCALL_TYPES);

	assert_int_equal(syscall_layout_from_btf(plain, &l), 0);
	assert_int_equal(l.nr_off, 8);
	assert_int_equal(l.args_off, 16);
	assert_int_equal(l.ret_off, 16);
	assert_int_equal(syscall_layout_from_btf(rt, &l), 0);
	assert_int_equal(l.nr_off, 12);
	assert_int_equal(l.args_off, 16);
	assert_int_equal(l.ret_off, 16);
	assert_int_equal(syscall_layout_from_btf(none, &l), -ENOENT);
	btf__free(plain);
	btf__free(rt);
	btf__free(none);
}

static int check(const char *root, enum btf_fixture_layout layout, char *why, size_t len)
{
	const char *roots[] = { "/nonexistent/tracefs", root, NULL };
	struct btf *btf = fixture(layout);
	int code;

	why[0] = 0;
	code = syscall_layout_check(roots, btf, "FIXTURE", why, len);
	btf__free(btf);
	return code;
}

static void test_matching_layouts_pass(void **state)
{
	char why[512];

	assert_int_equal(check(PLAIN, BTF_FIXTURE_PLAIN, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(check(RT, BTF_FIXTURE_RT, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	/* No format file to compare with: nothing is refused. */
	assert_int_equal(check("/nonexistent/too", BTF_FIXTURE_RT, why, sizeof(why)), 0);
}

static void assert_refused(int code, const char *why, const char *what)
{
	assert_int_equal(code, SS_EXIT_KERNEL);
	assert_non_null(strstr(why, "FIXTURE"));
	assert_non_null(strstr(why, what));
	assert_non_null(strstr(why, "--btf FILE"));
	assert_null(strchr(why, '\n'));
}

static void test_wrong_layouts_refused(void **state)
{
	char why[512];

	assert_refused(check(RT, BTF_FIXTURE_PLAIN, why, sizeof(why)), why,
		       "at 8, 16 and 16; tracefs says 12, 16 and 16");
	assert_refused(check(PLAIN, BTF_FIXTURE_RT, why, sizeof(why)), why,
		       "at 12, 16 and 16; tracefs says 8, 16 and 16");
	/* The shape issue 11's RT kernel refused: ret read at 24 of 24. */
	assert_refused(check(RT, BTF_FIXTURE_RT_RAW_SHAPE, why, sizeof(why)), why,
		       "at 12, 16 and 24; tracefs says 12, 16 and 16");
	assert_refused(check(PLAIN, BTF_FIXTURE_NO_SYSCALL_TYPES, why, sizeof(why)), why,
		       "has no struct syscall_trace_enter");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_fields),
		cmocka_unit_test(test_btf_offsets),
		cmocka_unit_test(test_matching_layouts_pass),
		cmocka_unit_test(test_wrong_layouts_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

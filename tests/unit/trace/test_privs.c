// SPDX-License-Identifier: GPL-2.0
/*
 * privs.c: which capability sets may trace, and that a refusal names
 * exactly the capabilities that are missing.
 */
#include "testlib.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "common/errors.h"
#include "trace/privs.h"

/* The numbers from the kernel's uapi, spelled out: older headers lack the
 * 5.8 ones, and the test should not share privs.c's fallbacks. */
#define BIT(c) (1ull << (c))
#define C_SYS_ADMIN BIT(21)
#define C_PERFMON BIT(38)
#define C_BPF BIT(39)

static int check(uint64_t caps, char *why, size_t len)
{
	why[0] = 0;
	return privs_check_caps(caps, why, len);
}

static void test_no_caps(void **state)
{
	char why[512];

	assert_int_equal(check(0, why, sizeof(why)), SS_EXIT_PERM);
	assert_non_null(strstr(why, "missing CAP_BPF and CAP_PERFMON:"));
	assert_non_null(strstr(why, "root"));
	/* setcap alone is no remedy: tracefs needs root too. */
	assert_null(strstr(why, "setcap"));
}

/* Every other capability, but neither of the two. */
static void test_other_caps_do_not_help(void **state)
{
	char why[512];

	assert_int_equal(check(~(C_SYS_ADMIN | C_PERFMON | C_BPF), why, sizeof(why)), SS_EXIT_PERM);
	assert_non_null(strstr(why, "missing CAP_BPF and CAP_PERFMON:"));
}

static void test_only_bpf(void **state)
{
	char why[512];

	assert_int_equal(check(C_BPF, why, sizeof(why)), SS_EXIT_PERM);
	assert_non_null(strstr(why, "missing CAP_PERFMON:"));
	assert_null(strstr(why, "missing CAP_BPF"));
	assert_null(strstr(why, " and "));
}

static void test_only_perfmon(void **state)
{
	char why[512];

	assert_int_equal(check(C_PERFMON, why, sizeof(why)), SS_EXIT_PERM);
	assert_non_null(strstr(why, "missing CAP_BPF:"));
	assert_null(strstr(why, "CAP_PERFMON:"));
	assert_null(strstr(why, " and "));
}

static void test_allowed(void **state)
{
	char why[512];

	assert_int_equal(check(C_BPF | C_PERFMON, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(check(C_SYS_ADMIN, why, sizeof(why)), 0);
	assert_int_equal(check(C_SYS_ADMIN | C_BPF, why, sizeof(why)), 0);
	assert_int_equal(check(UINT64_MAX, why, sizeof(why)), 0);
}

/* privs_effective agrees with the kernel's own view in /proc/self/status. */
static void test_effective_matches_proc(void **state)
{
	char line[256];
	uint64_t caps = 0, want = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, &want) == 1)
			found = true;
	fclose(f);
	assert_true(found);
	assert_int_equal(privs_effective(&caps), 0);
	assert_int_equal(caps, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_caps),
		cmocka_unit_test(test_other_caps_do_not_help),
		cmocka_unit_test(test_only_bpf),
		cmocka_unit_test(test_only_perfmon),
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_effective_matches_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

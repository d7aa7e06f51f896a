// SPDX-License-Identifier: GPL-2.0
/*
 * The AArch64 build of the calibration kernels (build/arm64/
 * spinscope-calibrate, mk/calib.mk) under qemu-aarch64: with -cpu max the
 * CPU has FEAT_SB, so SB is detected and measured; with -cpu cortex-a72 it
 * has not, so SB is reported unavailable and never executed (executing it
 * would kill the process with SIGILL). Timings under emulation mean
 * nothing and are never asserted; feature lines and exact counts are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testlib.h"

#define QEMU "/usr/bin/qemu-aarch64"

static int run_arm64(const char *cpu, const char *only, char **out)
{
	char *err = NULL;
	char *argv[] = { QEMU, "-cpu", (char *)cpu, (char *)tl_path("arm64/spinscope-calibrate"),
			 "--tiny", "--only", (char *)only, NULL };
	int rc;

	if (access(QEMU, X_OK)) {
		print_message("skip: %s missing: install Debian's qemu-user (make deps)\n", QEMU);
		skip();
	}
	rc = tl_run(argv, out, &err);
	if (rc != 0)
		print_message("qemu -cpu %s exited %d; stderr:\n%s\n", cpu, rc, err ? err : "");
	free(err);
	return rc;
}

static unsigned long hwcap_of(const char *out)
{
	const char *p = strstr(out, "hwcap: 0x");

	assert_non_null(p);
	return strtoul(p + strlen("hwcap: "), NULL, 16);
}

static void test_sb_present_is_measured(void **state)
{
	char *out = NULL;

	assert_int_equal(run_arm64("max", "spin_hint", &out), 0);
	assert_true(hwcap_of(out) & (1ul << 29));	/* HWCAP_SB */
	assert_non_null(strstr(out, "\nhint sb: measured "));
	assert_non_null(strstr(out, "\nhint isb: measured "));
	assert_non_null(strstr(out, "\nhint yield: measured "));
	assert_non_null(strstr(out, "\nhint nop: measured "));
	assert_non_null(strstr(out, "\nhint wfe: measured "));
	assert_null(strstr(out, "unavailable"));
	/* No x86 hint is ever offered on AArch64. */
	assert_null(strstr(out, "pause"));
	/* The shared-counter shape ran with SB too, and counted exactly. */
	assert_non_null(strstr(out, "threads, hint sb: "));
	assert_null(strstr(out, "WRONG"));
	free(out);
}

static void test_sb_absent_is_never_executed(void **state)
{
	char *out = NULL;

	/* Exit 0 also proves no SIGILL: SB was not executed. */
	assert_int_equal(run_arm64("cortex-a72", "spin_hint", &out), 0);
	assert_false(hwcap_of(out) & (1ul << 29));
	assert_non_null(strstr(out, "\nhint sb: unavailable (no HWCAP_SB in AT_HWCAP)\n"));
	assert_null(strstr(out, "hint sb: measured"));
	assert_null(strstr(out, "threads, hint sb: "));	/* nor in the counter runs */
	assert_non_null(strstr(out, "\nhint isb: measured "));
	assert_non_null(strstr(out, "\nhint wfe: measured "));
	assert_null(strstr(out, "WRONG"));
	free(out);
}

static void test_kernels_count_exactly(void **state)
{
	char *out = NULL;
	int lines = 0;

	assert_int_equal(run_arm64("max", "false_sharing,memory_order", &out), 0);
	for (const char *p = out; (p = strstr(p, "count exact")); p++)
		lines++;
	/* 2 kinds x 4 spacings, and 8 memory-order ops. */
	assert_int_equal(lines, 8 + 8);
	assert_null(strstr(out, "WRONG"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sb_present_is_measured),
		cmocka_unit_test(test_sb_absent_is_never_executed),
		cmocka_unit_test(test_kernels_count_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

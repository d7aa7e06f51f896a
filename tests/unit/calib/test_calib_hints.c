// SPDX-License-Identifier: GPL-2.0
/*
 * Spin-hint detection fed with fake cpuid registers, AT_HWCAP words and
 * /proc/cpuinfo text: each hint is offered exactly when its feature bit is.
 */
#include <string.h>
#include "testlib.h"
#include "calib/kern/calib_hints.h"

#define B(h) CALIB_HINT_BIT(CALIB_HINT_##h)
#define X86_BASE (B(NONE) | B(PAUSE) | B(NOP_X86))
#define ARM_BASE (B(NONE) | B(ISB) | B(YIELD) | B(NOP_ARM64) | B(WFE))

static void test_cpuid_intel(void **state)
{
	struct calib_cpuid id = { "GenuineIntel", 0x1b, 0, 0x80000008u, 0, 0 };

	assert_int_equal(calib_hints__from_cpuid(&id), X86_BASE);
	id.leaf7_ecx = CALIB_CPUID7_ECX_WAITPKG;
	assert_int_equal(calib_hints__from_cpuid(&id), X86_BASE | B(TPAUSE) | B(UMWAIT));
	/* Leaf 7 beyond the maximum leaf is undefined: ignored. */
	id.max_leaf = 6;
	assert_int_equal(calib_hints__from_cpuid(&id), X86_BASE);
	/* The MONITORX bit means nothing on Intel. */
	id.ext1_ecx = CALIB_CPUID81_ECX_MONITORX;
	assert_int_equal(calib_hints__from_cpuid(&id), X86_BASE);
}

static void test_cpuid_amd(void **state)
{
	struct calib_cpuid id = { "AuthenticAMD", 0x10, 0, 0x80000021u,
				  CALIB_CPUID81_ECX_MONITORX, 0 };

	assert_int_equal(calib_hints__from_cpuid(&id), X86_BASE | B(MWAITX));
	id.max_ext_leaf = 0x80000000u;
	assert_int_equal(calib_hints__from_cpuid(&id), X86_BASE);
	id.max_ext_leaf = 0x80000021u;
	id.ext1_ecx = ~CALIB_CPUID81_ECX_MONITORX;
	assert_int_equal(calib_hints__from_cpuid(&id), X86_BASE);
}

static void test_hwcap(void **state)
{
	assert_int_equal(calib_hints__from_hwcap(0), ARM_BASE);
	assert_int_equal(calib_hints__from_hwcap(CALIB_ARM64_HWCAP_SB), ARM_BASE | B(SB));
	assert_int_equal(calib_hints__from_hwcap(~CALIB_ARM64_HWCAP_SB), ARM_BASE);
}

static void test_cpuinfo_text(void **state)
{
	const char *x86 =
		"processor\t: 0\nvendor_id\t: AuthenticAMD\n"
		"flags\t\t: fpu vme mwaitx sse2 waitpkgx\n"
		"bugs\t\t: waitpkg\n";
	const char *x86_wp = "flags\t\t: fpu waitpkg\nvmx flags\t: mwaitx\n";
	const char *arm_sb = "processor\t: 0\nFeatures\t: fp asimd evtstrm sb ssbs\n";
	const char *arm_no = "processor\t: 0\nFeatures\t: fp asimd sbx sb2\nCPU part\t: sb\n";

	/* Only whole words of the first flags line count. */
	assert_int_equal(calib_hints__from_cpuinfo(x86, CALIB_ARCH_X86_64), X86_BASE | B(MWAITX));
	assert_int_equal(calib_hints__from_cpuinfo(x86_wp, CALIB_ARCH_X86_64),
			 X86_BASE | B(TPAUSE) | B(UMWAIT));
	assert_int_equal(calib_hints__from_cpuinfo(arm_sb, CALIB_ARCH_ARM64), ARM_BASE | B(SB));
	assert_int_equal(calib_hints__from_cpuinfo(arm_no, CALIB_ARCH_ARM64), ARM_BASE);
	assert_int_equal(calib_hints__from_cpuinfo("", CALIB_ARCH_ARM64), ARM_BASE);
}

static void test_names(void **state)
{
	for (int h = 0; h < CALIB_HINT__COUNT; h++) {
		int back = calib_hints__by_name(calib_hints__name(h));

		/* "nop" names both architectures' nop: it maps to this one's. */
		assert_true(back == h || !strcmp(calib_hints__name(h), "nop"));
		assert_non_null(calib_hints__requires(h));
	}
#if defined(__x86_64__)
	assert_int_equal(calib_hints__by_name("nop"), CALIB_HINT_NOP_X86);
#endif
	assert_int_equal(calib_hints__by_name("sb"), CALIB_HINT_SB);
	assert_int_equal(calib_hints__by_name("frobnicate"), -1);
}

static void test_this_cpu(void **state)
{
	uint32_t avail = calib_hints__available();

#if defined(__x86_64__)
	struct calib_cpuid id;

	calib_hints__read_cpuid(&id);
	assert_int_equal(avail, calib_hints__from_cpuid(&id));
	assert_int_equal(strlen(id.vendor), 12);
	/* No instruction of the other architecture is ever offered. */
	assert_int_equal(avail & ARM_BASE & ~B(NONE), 0);
	assert_int_equal(avail & B(SB), 0);
#elif defined(__aarch64__)
	assert_int_equal(avail, calib_hints__from_hwcap(calib_hints__read_hwcap()));
	assert_int_equal(avail & X86_BASE & ~B(NONE), 0);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuid_intel),
		cmocka_unit_test(test_cpuid_amd),
		cmocka_unit_test(test_hwcap),
		cmocka_unit_test(test_cpuinfo_text),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_this_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* advisor/format.c: every number in evidence carries its unit. */
#include <string.h>
#include "testlib.h"
#include "advisor/format.h"

static void test_times_pick_their_unit(void **state)
{
	assert_string_equal(adv_fmt_ns(6.9).s, "6.9 ns");
	assert_string_equal(adv_fmt_ns(850).s, "850 ns");
	/* Rounds up into the next unit rather than printing "1e+03 ns". */
	assert_string_equal(adv_fmt_ns(999.7).s, "1 us");
	assert_string_equal(adv_fmt_ns(4200).s, "4.2 us");
	assert_string_equal(adv_fmt_ns(12.5e6).s, "12.5 ms");
	assert_string_equal(adv_fmt_ns(3.2e9).s, "3.2 s");
	assert_string_equal(adv_fmt_ns(7200e9).s, "7200 s");
	assert_string_equal(adv_fmt_ns(-5).s, "0 ns");
}

static void test_rates_counts_and_ratios(void **state)
{
	assert_string_equal(adv_fmt_rate(12345, "yields").s, "12.3k yields/s");
	assert_string_equal(adv_fmt_rate(950, "").s, "950/s");
	assert_string_equal(adv_fmt_rate(2.5e6, "waits").s, "2.5M waits/s");
	assert_string_equal(adv_fmt_count(1500000).s, "1.5M");
	assert_string_equal(adv_fmt_count(42).s, "42");
	assert_string_equal(adv_fmt_ratio(6.07).s, "6.1x");
	assert_string_equal(adv_fmt_ratio(30.2).s, "30x");
	assert_string_equal(adv_fmt_pct(0.314).s, "31%");
	assert_string_equal(adv_fmt_pct(0.045).s, "4.5%");
	assert_string_equal(adv_fmt_pct(0.0004).s, "<0.1%");
	assert_string_equal(adv_fmt_pct(0).s, "0%");
}

static void test_sizes_bandwidth_and_spin_counts(void **state)
{
	assert_string_equal(adv_fmt_bytes(64).s, "64 bytes");
	assert_string_equal(adv_fmt_bytes(4096).s, "4 KiB");
	assert_string_equal(adv_fmt_bytes(3 << 20).s, "3 MiB");
	assert_string_equal(adv_fmt_gbs(12.34).s, "12.3 GB/s");
	assert_string_equal(adv_fmt_spins(0x1F).s, "31 (0x1F)");
	assert_string_equal(adv_fmt_spins(0xFF).s, "255 (0xFF)");
	assert_string_equal(adv_fmt_spins(0).s, "0");
}

static void test_strf_cuts_instead_of_overflowing(void **state)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	adv_strf(buf, 6, "%s", "a long sentence");
	assert_string_equal(buf, "a lon");
	assert_int_equal(buf[6], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times_pick_their_unit),
		cmocka_unit_test(test_rates_counts_and_ratios),
		cmocka_unit_test(test_sizes_bandwidth_and_spin_counts),
		cmocka_unit_test(test_strf_cuts_instead_of_overflowing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

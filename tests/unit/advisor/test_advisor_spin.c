// SPDX-License-Identifier: GPL-2.0
/* The spin-yield and spin-hint rules: positive and negative fixtures. */
#include "advisor_fixture.h"

static void test_spin_yield_fires_on_yielders(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx_yielders(fx, 2, 150000, 0.9, 0.05, 4);
	fx_host(fx);
	f = fx_run_get(fx, "spin-yield");
	fx_print(f);
	assert_non_null(f);
	/* Two spinners on 4 CPUs burn 1.8 CPUs: under half, a warning. */
	assert_int_equal(f->severity, ADV_WARNING);
	assert_string_equal(fx_evidence(f, "yield rate"), "150k yields/s per thread");
	assert_non_null(strstr(fx_evidence(f, "yielding threads"), "2 of 2"));
	assert_non_null(strstr(fx_evidence(f, "yield call site"), "spin_then_yield+0x1c (demo)"));
	/* 4 yields per switch: most came straight back, so the lone cost. */
	assert_non_null(strstr(fx_evidence(f, "sched_yield cost"), "400 ns"));
	/* Light contention (2 spinners, 4 CPUs): the sweep's light best. */
	assert_non_null(strstr(fx_evidence(f, "best lock strategy"), "N=31 (0x1F) at light"));
	assert_true(fx_says(f, "N spins, then a futex park, N=31 (0x1F)"));
	assert_true(f->confidence >= 0.85);
	fx_free(fx);
}

static void test_spin_yield_critical_when_spinners_hold_half_the_cpus(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	/* Four spinners on two CPUs, 1.8 CPUs' worth of spinning. */
	fx_yielders(fx, 4, 150000, 0.45, 0.5, 1.5);
	fx_host(fx);
	f = fx_run_get(fx, "spin-yield");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_CRITICAL);
	/* Fewer than 2 yields per switch: most switched, the peer cost. */
	assert_non_null(strstr(fx_evidence(f, "sched_yield cost"), "1.8 us"));
	/* Oversubscribed: the heavy-contention best. */
	assert_non_null(strstr(fx_evidence(f, "best lock strategy"), "N=7 at heavy"));
	fx_free(fx);
}

static void test_spin_yield_silent_below_rate_threshold(void **state)
{
	struct fx *fx = fx_new(5, 4);

	/* 500 yields/s, a tenth of the switches: under the 1000/s threshold
	 * and not a thread that gives up its CPU mostly by yielding. */
	fx_yielders(fx, 2, 500, 0.5, 0.0, 0.1);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "spin-yield"));
	fx_free(fx);
}

/* On an oversubscribed host every yield switches away: a low rate, but
 * every switch of the thread a yield. */
static void test_spin_yield_fires_when_every_switch_is_a_yield(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	fx_yielders(fx, 3, 60, 0.07, 0.9, 1);
	fx_host(fx);
	f = fx_run_get(fx, "spin-yield");
	assert_non_null(strstr(fx_evidence(f, "yielding threads"), "3 of 3"));
	fx_free(fx);
}

static void test_spin_yield_silent_when_healthy(void **state)
{
	fx_assert_silent_when_healthy("spin-yield");
}

/* Without a thread array the totals, averaged over the target's threads,
 * stand in: the spinners are still found. */
static void test_spin_yield_from_totals_only(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx_yielders(fx, 2, 150000, 0.9, 0.05, 4);
	fx_host(fx);
	fx_run(fx);		/* fills the totals */
	fx->p.nthreads = 0;
	fx->keep_totals = true;
	f = fx_run_get(fx, "spin-yield");
	assert_non_null(f);
	assert_string_equal(fx_evidence(f, "yield rate"), "150k yields/s per thread");
	fx_free(fx);
}

static void test_spin_hint_x86_sizes_spins_in_time(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx_yielders(fx, 2, 150000, 0.9, 0.05, 4);
	fx_host(fx);
	f = fx_run_get(fx, "spin-hint");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	/* PAUSE, not the cheaper NOP: a NOP does not back off. */
	assert_true(fx_says(f, "pause at 38 ns"));
	assert_string_equal(fx_evidence(f, "glibc's default spin"), "100 x pause = 3.8 us");
	assert_non_null(strstr(fx_evidence(f, "spin budget"), "5 us = 132 x pause"));
	assert_non_null(strstr(fx_evidence(f, "spinning code"), "spin_then_yield"));
	fx_free(fx);
}

static void arm_host(struct fx *fx, bool with_sb)
{
	fx_host(fx);
	memset(&fx->h.spin_hint, 0, sizeof(fx->h.spin_hint));
	fx->h.spin_hint.present = true;
	snprintf(fx->h.spin_hint.arch, sizeof(fx->h.spin_hint.arch), "aarch64");
	fx_hint(fx, "isb", 11.9, true);
	fx_hint(fx, "sb", 6.9, with_sb);
	fx_hint(fx, "yield", 0.4, true);
	fx_hint(fx, "nop", 0.3, true);
}

static void test_spin_hint_prefers_sb_over_isb_on_aarch64(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx_yielders(fx, 2, 150000, 0.9, 0.05, 4);
	arm_host(fx, true);
	fx->p.target.is_jvm = true;
	f = fx_run_get(fx, "spin-hint");
	fx_print(f);
	assert_non_null(f);
	assert_true(fx_says(f, "sb at 6.9 ns"));
	assert_string_equal(fx_evidence(f, "SB vs ISB"), "6.9 ns vs 11.9 ns: ISB costs 1.7x SB");
	assert_true(fx_says(f, "-XX:OnSpinWaitInst=sb"));
	assert_true(fx_says(f, "HWCAP_SB"));
	fx_free(fx);
}

static void test_spin_hint_isb_where_sb_is_absent(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx_yielders(fx, 2, 150000, 0.9, 0.05, 4);
	arm_host(fx, false);
	fx->p.target.is_jvm = true;
	f = fx_run_get(fx, "spin-hint");
	assert_non_null(f);
	assert_true(fx_says(f, "isb at 11.9 ns"));
	assert_true(fx_says(f, "SB is absent"));
	assert_true(fx_says(f, "-XX:OnSpinWaitInst=isb"));
	assert_false(fx_says(f, "OnSpinWaitInst=sb"));
	fx_free(fx);
}

static void test_spin_hint_silent_when_nothing_spins(void **state)
{
	fx_assert_silent_when_healthy("spin-hint");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin_yield_fires_on_yielders),
		cmocka_unit_test(test_spin_yield_critical_when_spinners_hold_half_the_cpus),
		cmocka_unit_test(test_spin_yield_silent_below_rate_threshold),
		cmocka_unit_test(test_spin_yield_fires_when_every_switch_is_a_yield),
		cmocka_unit_test(test_spin_yield_silent_when_healthy),
		cmocka_unit_test(test_spin_yield_from_totals_only),
		cmocka_unit_test(test_spin_hint_x86_sizes_spins_in_time),
		cmocka_unit_test(test_spin_hint_prefers_sb_over_isb_on_aarch64),
		cmocka_unit_test(test_spin_hint_isb_where_sb_is_absent),
		cmocka_unit_test(test_spin_hint_silent_when_nothing_spins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

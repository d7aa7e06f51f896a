// SPDX-License-Identifier: GPL-2.0
/*
 * The spin-vs-park break-even (advisor/correlate.c): which side of it the
 * target's waits sit on, on both sides of the threshold and exactly at it,
 * and how long the target spins before it gives up the CPU.
 */
#include "advisor_fixture.h"

#define MUTEX "pthread_mutex_lock <- worker_hot (demo)"

/* A contended mutex whose waits all fall in the log2 slot starting at
 * 2^slot ns, so the histogram median is exactly 1.5 x 2^slot. */
static struct fx *lock_in_slot(int slot, double handoff_ns)
{
	struct fx *fx = fx_new(5, 4);
	struct adv_futex *fu = fx_lock(fx, MUTEX, 4, 20000, 1.5 * ldexp(1, slot), 0.3);

	memset(fu->hist, 0, sizeof(fu->hist));
	fu->hist[slot] = fu->waits;
	fx_host(fx);
	fx->h.spin_threshold.present = false;	/* no sweep: park means N=0 */
	fx->h.host_costs.futex_handoff_cross_ns = handoff_ns;
	return fx;
}

/* Median 3072 ns (slot 11) against handoffs just above and just below. */
static void test_side_flips_exactly_at_the_handoff(void **state)
{
	struct fx *above = lock_in_slot(11, 3100), *below = lock_in_slot(11, 3000);
	const struct adv_breakeven *a = &fx_run(above)->breakeven;
	const struct adv_breakeven *b = &fx_run(below)->breakeven;

	assert_true(a->wait_median_ns == 3072.0);
	assert_int_equal(a->side, ADV_SIDE_SPIN);
	assert_int_equal(b->side, ADV_SIDE_PARK);
	fx_free(above);
	fx_free(below);
}

/* Waits of 1.5 us, a 4 us handoff, PAUSE at 38 ns: spin at most the
 * largest 2^k-1 under 4000/38 = 105, i.e. 0x3F. */
static void test_short_waits_spin_then_park(void **state)
{
	struct fx *fx = lock_in_slot(10, 4000);
	const struct adv_breakeven *be = &fx_run(fx)->breakeven;

	print_message("%s\n", be->summary);
	assert_int_equal(be->side, ADV_SIDE_SPIN);
	assert_int_equal(be->spin_n, 0x3F);
	assert_string_equal(be->hint, "pause");
	assert_non_null(strstr(be->summary, "spin at most 63 (0x3F) iterations (pause: 38 ns each) before parking"));
	assert_non_null(strstr(be->summary, "a futex handoff costs 4 us here and your waits last 1.54 us (median)"));
	fx_free(fx);
}

static void test_long_waits_park_at_once(void **state)
{
	struct fx *fx = lock_in_slot(16, 4000);	/* median 98 us */
	const struct adv_breakeven *be = &fx_run(fx)->breakeven;

	print_message("%s\n", be->summary);
	assert_int_equal(be->side, ADV_SIDE_PARK);
	assert_int_equal(be->spin_n, 0);
	assert_non_null(strstr(be->summary, "park at once: your waits last 98.3 us (median), 25x a futex handoff here (4 us)"));
	fx_free(fx);
}

/* The sweep found "N spins then park" best here: park after that many. */
static void test_park_side_takes_the_sweeps_short_spin(void **state)
{
	struct fx *fx = lock_in_slot(16, 4000);
	const struct adv_breakeven *be;

	fx->h.spin_threshold.present = true;
	be = &fx_run(fx)->breakeven;
	assert_int_equal(be->side, ADV_SIDE_PARK);
	assert_int_equal(be->spin_n, 0x1F);	/* light contention's best */
	assert_non_null(strstr(be->summary, "park after at most 31 (0x1F) spins"));
	fx_free(fx);
}

/* A state of light contention: round trip, strategy and spins. */
static struct adv_distance_state park_state(double rt, const char *strategy, uint32_t n)
{
	struct adv_distance_state st;

	memset(&st, 0, sizeof(st));
	st.round_trip_ns = rt;
	st.share = 0.5;
	snprintf(st.best.strategy, sizeof(st.best.strategy), "%s", strategy);
	st.best.n = n;
	st.best.throughput = 5e6;
	st.region = (struct adv_region){
		.n_min = n, .n_max = n, .size = 1, .spread = 0, .separated = true
	};
	return st;
}

/* Two CPU-distance states that share nothing: the level's overall pick
 * (0x1F here) mixes them and is no state's verdict. Both park: the
 * fewer of their spins; one yields: park at once. */
static void test_park_side_with_states_that_differ(void **state)
{
	static const char *const far_strategy[] = { "spin_then_park", "spin_then_yield" };
	static const int32_t want[] = { 7, 0 };

	for (int i = 0; i < 2; i++) {
		struct fx *fx = lock_in_slot(16, 4000);
		const struct adv_breakeven *be;

		fx->h.spin_threshold.present = true;
		fx->h.spin_threshold.light_states.s[0] = park_state(60, "spin_then_park", 63);
		fx->h.spin_threshold.light_states.s[1] = park_state(340, far_strategy[i], 7);
		fx->h.spin_threshold.light_states.n = 2;
		be = &fx_run(fx)->breakeven;
		assert_int_equal(be->side, ADV_SIDE_PARK);
		assert_int_equal(be->spin_n, want[i]);
		fx_free(fx);
	}
}

/* One CPU: the holder cannot run while a waiter spins. */
static void test_one_cpu_always_parks(void **state)
{
	struct fx *fx = lock_in_slot(10, 4000);
	const struct adv_breakeven *be;

	fx->p.ncpus = 1;
	be = &fx_run(fx)->breakeven;
	assert_int_equal(be->side, ADV_SIDE_PARK);
	assert_int_equal(be->spin_n, 0);
	assert_non_null(strstr(be->summary, "with one CPU"));
	fx_free(fx);
}

/* The target's own spin: yields per switch x the yield cost here. Four
 * yields per switch: most came straight back, 400 ns each: 1.6 us. */
static void test_target_spin_is_yields_per_switch_times_yield_cost(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_breakeven *be;

	fx_yielders(fx, 2, 100000, 0.9, 0.05, 4);
	fx_host(fx);
	be = &fx_run(fx)->breakeven;
	print_message("%s\n", be->summary);
	assert_true(be->spins);
	assert_true(fabs(be->yields_per_switch - 4.0) < 1e-9);
	assert_true(be->yield_ns == 400);
	assert_true(fabs(be->spin_ns - 1600) < 1e-6);
	/* 0.9 s on CPU a second over 25k switches a second: 36 us on CPU per
	 * switch bounds it from above. */
	assert_true(fabs(be->burst_ns - 36000) < 1);
	/* No lock waits: only the spin against the handoff (5 us). */
	assert_int_equal(be->side, ADV_SIDE_UNKNOWN);
	assert_false(be->overspins);
	assert_non_null(strstr(be->summary, "below the break-even point"));
	fx_free(fx);
}

/* Forty yields per switch: 16 us of yielding before a switch, past a 5 us
 * handoff. */
static void test_target_spinning_past_the_handoff_overspins(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_breakeven *be;

	fx_yielders(fx, 2, 100000, 0.9, 0.05, 40);
	fx_host(fx);
	be = &fx_run(fx)->breakeven;
	print_message("%s\n", be->summary);
	assert_true(be->overspins);
	assert_non_null(strstr(be->summary, "16 us before giving up the CPU, 3.2x a futex handoff here (5 us): past the break-even point"));
	/* The budget is one handoff: 5000/38 = 131 pauses, so 0x7F. */
	assert_int_equal(be->spin_n, 0x7F);
	assert_non_null(strstr(be->summary, "at most 127 (0x7F) iterations of pause"));
	fx_free(fx);
}

static void test_no_calibration_no_side(void **state)
{
	struct fx *fx = lock_in_slot(10, 4000);
	const struct adv_breakeven *be;

	fx->h.present = false;
	be = &fx_run(fx)->breakeven;
	assert_int_equal(be->side, ADV_SIDE_UNKNOWN);
	assert_int_equal(be->spin_n, -1);
	assert_true(be->handoff_ns == 0);
	assert_non_null(strstr(be->summary, "no futex handoff or yield cost measured on this host"));
	fx_free(fx);
}

static void test_nothing_to_correlate_for_a_healthy_process(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_breakeven *be;

	fx_sleeper(fx, true);
	fx_host(fx);
	be = &fx_run(fx)->breakeven;
	assert_int_equal(be->side, ADV_SIDE_UNKNOWN);
	assert_false(be->spins);
	assert_non_null(strstr(be->summary, "neither spins"));
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_side_flips_exactly_at_the_handoff),
		cmocka_unit_test(test_short_waits_spin_then_park),
		cmocka_unit_test(test_long_waits_park_at_once),
		cmocka_unit_test(test_park_side_takes_the_sweeps_short_spin),
		cmocka_unit_test(test_park_side_with_states_that_differ),
		cmocka_unit_test(test_one_cpu_always_parks),
		cmocka_unit_test(test_target_spin_is_yields_per_switch_times_yield_cost),
		cmocka_unit_test(test_target_spinning_past_the_handoff_overspins),
		cmocka_unit_test(test_no_calibration_no_side),
		cmocka_unit_test(test_nothing_to_correlate_for_a_healthy_process),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The lock strategy advice on a host whose CPUs' distance changes (a VM's
 * vCPUs on cores that share a cache, then on cores that do not): two
 * states whose good regions share configurations are recommended from
 * what they share, a verdict that holds in either; two that share none
 * give both verdicts, and the finding is less sure; one state, or a file
 * without states, advises exactly as before.
 */
#include "advisor_fixture.h"
#include "advisor/hostcal.h"

static void yielders(struct fx *fx) { fx_yielders(fx, 2, 150000, 0.9, 0.05, 4); }

/* A state of light contention: its distance, share and region. */
static struct adv_distance_state dstate(double rt_ns, double share, const char *strategy,
				       uint32_t n_min, uint32_t n_max, double acq_per_s)
{
	struct adv_distance_state s;

	memset(&s, 0, sizeof(s));
	s.round_trip_ns = rt_ns;
	s.share = share;

	snprintf(s.best.strategy, sizeof(s.best.strategy), "%s", strategy);
	s.best.n = n_min;
	s.best.throughput = acq_per_s;
	s.region = (struct adv_region){
		.n_min = n_min, .n_max = n_max, .size = 6, .spread = 0.04, .separated = true
	};
	return s;
}

static struct fx *with_states(struct adv_distance_state near, struct adv_distance_state far,
			      size_t n)
{
	struct fx *fx = fx_new(5, 4);

	yielders(fx);
	fx_host(fx);
	fx->h.spin_threshold.light_region = (struct adv_region){
		.n_min = 0, .n_max = 255, .size = 9, .spread = 0.03, .separated = true
	};
	fx->h.spin_threshold.light_states.s[0] = near;
	fx->h.spin_threshold.light_states.s[1] = far;
	fx->h.spin_threshold.light_states.n = n;
	return fx;
}

/* The spin-yield finding, run once per build. */
static struct adv_finding run(struct fx *fx)
{
	const struct adv_finding *f = fx_run_get(fx, "spin-yield");
	struct adv_finding copy;

	assert_non_null(f);
	fx_print(f);
	copy = *f;
	fx_free(fx);
	return copy;
}

static const char *evidence(const struct adv_finding *f, const char *label)
{
	for (size_t i = 0; i < f->nevidence; i++)
		if (!strcmp(f->evidence[i].label, label))
			return f->evidence[i].value;
	fail_msg("no evidence '%s'", label);
	return NULL;
}

static bool has_label(const struct adv_finding *f, const char *label)
{
	for (size_t i = 0; i < f->nevidence; i++)
		if (!strcmp(f->evidence[i].label, label))
			return true;
	return false;
}

/* The three lines of a level that met two states, word for word. */
static void assert_lock_lines(const struct adv_finding *f, const char *verdict, const char *near,
			      const char *far)
{
	assert_string_equal(evidence(f, "best lock strategy here"), verdict);
	assert_string_equal(evidence(f, "best lock, near state"), near);
	assert_string_equal(evidence(f, "best lock, far state"), far);
}

#define NEAR_PARK dstate(62, 0.64, "spin_then_park", 7, 255, 8.95e6)

/* The advice of the same host without states. */
static struct adv_finding without_states(void)
{
	return run(with_states(NEAR_PARK, NEAR_PARK, 0));
}

static void test_overlap_is_recommended(void **state)
{
	struct adv_finding base = without_states();
	struct adv_finding f = run(with_states(NEAR_PARK,
					       dstate(352, 0.36, "spin_then_park", 0, 15, 3.1e6), 2));

	assert_lock_lines(&f, "spin_then_park, N=7 at light contention: within noise of the best in "
			  "both CPU-distance states measured here; any N from 7 to 15 in both",
			  "spin_then_park, N=7 with CPUs 62 ns apart (64% of the runs): 8.95M acq/s; "
			  "any N from 7 to 255 as good there",
			  "spin_then_park, N=0 with CPUs 352 ns apart (36% of the runs): 3.1M acq/s; "
			  "any N from 0 to 15 as good there");
	assert_non_null(strstr(f.recommendation,
			       "Replace the spin-then-sched_yield loop at spin_then_yield+0x1c (demo) with "
			       "N spins, then a futex park, N=7 (any N from 7 to 15): the best in both "
			       "CPU-distance states measured here at light contention."));
	/* A verdict that holds in both states is as sure as one state's. */
	assert_float_equal(f.confidence, base.confidence, 1e-12);
}

/* Both states yield: keep yielding, in the shape both favour. */
static void test_overlap_of_yielding(void **state)
{
	struct adv_finding f = run(with_states(dstate(62, 0.5, "spin_then_yield", 0, 7, 6e6),
					       dstate(352, 0.5, "spin_then_yield", 1, 63, 5e6), 2));

	assert_non_null(strstr(f.recommendation,
			       "Keep yielding at spin_then_yield+0x1c (demo), but as N spins, then a "
			       "sched_yield loop with N=1 (any N from 1 to 7): the best in both "
			       "CPU-distance states measured here at light contention."));
}

static void test_disjoint_states_give_both(void **state)
{
	struct adv_finding base = without_states();
	struct adv_finding f = run(with_states(NEAR_PARK,
					       dstate(352, 0.36, "spin_then_yield", 0, 7, 5.06e6), 2));

	assert_lock_lines(&f, "depends on whether the threads' CPUs share a cache: at light "
			  "contention no configuration was within noise of the best in both "
			  "CPU-distance states",
			  "spin_then_park, N=7 with CPUs 62 ns apart (64% of the runs): 8.95M acq/s; "
			  "any N from 7 to 255 as good there",
			  "spin_then_yield, N=0 with CPUs 352 ns apart (36% of the runs): 5.06M acq/s; "
			  "any N from 0 to 7 as good there");
	assert_non_null(strstr(f.recommendation,
			       "Pick the wait at spin_then_yield+0x1c (demo) for the CPU placement you "
			       "run with: CPUs 62 ns apart, N spins, then a futex park, N=7; CPUs 352 ns "
			       "apart, N spins, then a sched_yield loop, N=0. No one setting is best in "
			       "both (light contention)."));
	assert_string_equal(evidence(&f, "states met"),
			    "the calibration's runs met CPUs 62 ns apart more often (64% of them)");
	/* Neither state's verdict is chosen for the reader. */
	assert_null(strstr(f.recommendation, "Replace the spin-then-sched_yield loop"));
	assert_float_equal(f.confidence, base.confidence - 0.1, 1e-12);
}

/* Met as often: neither is called the more common. */
static void test_disjoint_states_met_as_often(void **state)
{
	struct adv_finding f = run(with_states(dstate(62, 0.5, "spin_then_park", 7, 255, 8.95e6),
					       dstate(352, 0.5, "spin_then_yield", 0, 7, 5.06e6), 2));

	assert_string_equal(evidence(&f, "states met"), "the calibration's runs met both as often");
}

/* The far state from an earlier calibration run (calib_merge.h): its
 * time instead of a share, and no claim of which state is more common. */
static void test_states_of_two_runs(void **state)
{
	struct adv_distance_state far = dstate(352, 1, "spin_then_yield", 0, 7, 5.06e6);
	struct adv_finding f;

	snprintf(far.carried_from, sizeof(far.carried_from), "2026-12-02 10:00:00 UTC");
	f = run(with_states(dstate(62, 1, "spin_then_park", 7, 255, 8.95e6), far, 2));
	assert_string_equal(evidence(&f, "best lock, near state"),
			    "spin_then_park, N=7 with CPUs 62 ns apart (the latest calibration): 8.95M acq/s; "
			    "any N from 7 to 255 as good there");
	assert_string_equal(evidence(&f, "best lock, far state"),
			    "spin_then_yield, N=0 with CPUs 352 ns apart (calibrated 2026-12-02 10:00:00 "
			    "UTC): 5.06M acq/s; any N from 0 to 7 as good there");
	assert_string_equal(evidence(&f, "states met"),
			    "by different calibration runs (CPUs 352 ns apart in the one of 2026-12-02 "
			    "10:00:00 UTC)");
}

static void assert_same_finding(const struct adv_finding *a, const struct adv_finding *b)
{
	assert_string_equal(a->title, b->title);
	assert_int_equal(a->nevidence, b->nevidence);
	for (size_t i = 0; i < a->nevidence; i++) {
		assert_string_equal(a->evidence[i].label, b->evidence[i].label);
		assert_string_equal(a->evidence[i].value, b->evidence[i].value);
	}
	assert_string_equal(a->recommendation, b->recommendation);
	assert_float_equal(a->confidence, b->confidence, 0);
}

/* One state, or two of which one had too few runs for a region: the
 * level's own verdict, word for word as without states. */
static void test_one_state_advises_as_before(void **state)
{
	struct adv_finding base = without_states(), one, half;
	struct adv_distance_state few = dstate(352, 0.05, "", 0, 0, 0);

	few.region.size = 0;
	one = run(with_states(NEAR_PARK, NEAR_PARK, 1));
	half = run(with_states(NEAR_PARK, few, 2));
	assert_string_equal(evidence(&base, "best lock strategy here"),
			    "spin_then_park, N=31 (0x1F) at light contention: 9M acq/s, 2.2x a "
			    "pthread_mutex; any N from 0 to 255 as good here");
	assert_non_null(strstr(base.recommendation,
			       "with N spins, then a futex park, N=31 (0x1F): the fastest strategy on "
			       "this host at light contention."));
	assert_false(has_label(&base, "best lock, near state"));
	assert_same_finding(&base, &one);
	assert_same_finding(&base, &half);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_is_recommended),
		cmocka_unit_test(test_overlap_of_yielding),
		cmocka_unit_test(test_disjoint_states_give_both),
		cmocka_unit_test(test_states_of_two_runs),
		cmocka_unit_test(test_disjoint_states_met_as_often),
		cmocka_unit_test(test_one_state_advises_as_before),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

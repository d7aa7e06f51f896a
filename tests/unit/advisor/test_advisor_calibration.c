// SPDX-License-Identifier: GPL-2.0
/*
 * Missing or mismatched calibration: every finding that rests on host
 * figures still appears, says why the host's figures are not used, says
 * how to measure them, uses none of them, and is less confident.
 */
#include "advisor_fixture.h"
#include "advisor/hostcal.h"

enum cal { FULL, NONE, MISMATCH };

static void yielders(struct fx *fx) { fx_yielders(fx, 2, 150000, 0.9, 0.05, 4); }
static void lock(struct fx *fx) { fx_lock(fx, "pthread_mutex_lock <- worker_hot (demo)", 4, 20000, 40000, 0.6); }
static void crowd(struct fx *fx) { fx_yielders(fx, 4, 100000, 0.45, 0.5, 1.2); }
static void counters_pmu(struct fx *fx)
{
	fx_thread(fx, "counter", 0.9, 0.05);
	fx_thread(fx, "counter", 0.9, 0.05);
	fx_sample(fx, "cache-misses", 10000, "bump_counter (demo)", 3000, true);
}
static void counters_no_pmu(struct fx *fx)
{
	fx_thread(fx, "counter", 0.9, 0.05);
	fx_thread(fx, "counter", 0.9, 0.05);
	fx_two_counters(fx, 8, 2000);
	fx_no_pmu(fx);
}
static void fences(struct fx *fx) { fx_computer(fx); fx_fence(fx, "heal_reference (gc)", 0.3); }
static void two_nodes(struct fx *fx)
{
	fx_computer(fx);
	fx->p.numa.nodes = 2;
	fx->p.numa.pages[0] = 90000;
	fx->p.numa.pages[1] = 10000;
	fx->p.numa.cpus_used[0] = fx->p.numa.cpus_used[1] = 1;
}

static const struct {
	const char *id;
	void (*build)(struct fx *fx);
	uint32_t ncpus;
} cases[] = {
	{ "spin-yield", yielders, 4 },
	{ "futex-contention", lock, 4 },
	{ "oversubscription", crowd, 2 },
	{ "false-sharing", counters_pmu, 4 },
	{ "false-sharing", counters_no_pmu, 4 },
	{ "spin-hint", yielders, 4 },
	{ "memory-order", fences, 4 },
	{ "numa-placement", two_nodes, 4 },
};

static struct fx *build(size_t i, enum cal cal)
{
	struct fx *fx = fx_new(5, cases[i].ncpus);

	cases[i].build(fx);
	fx_host(fx);
	fx->h.numa.nodes = 2;
	fx->h.numa.remote_ns = 150;
	if (cal == NONE) {
		memset(&fx->h, 0, sizeof(fx->h));
	} else if (cal == MISMATCH) {
		fx->h.matches = false;
		snprintf(fx->h.mismatch_reason, sizeof(fx->h.mismatch_reason),
			 "CPU model differs: calibrated on an Intel Xeon 8375C");
	}
	fx_run(fx);
	return fx;
}

static void check_unusable(const struct adv_finding *full, const struct adv_finding *f,
			   const char *says)
{
	const char *cal = fx_evidence(f, "calibration");

	fx_print(f);
	assert_non_null(f);
	assert_non_null(cal);
	assert_non_null(strstr(cal, says));
	assert_non_null(strstr(cal, "confidence lowered"));
	assert_non_null(strstr(f->recommendation, "spinscope calibrate --only "));
	assert_true(f->confidence < full->confidence);
	/* No figure of a calibration that does not belong to this host. */
	for (size_t e = 0; e < f->nevidence; e++)
		if (f->evidence[e].source == ADV_SRC_HOST)
			assert_string_equal(f->evidence[e].label, "calibration");
}

static void test_missing_calibration_lowers_confidence_and_says_so(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx *full = build(i, FULL), *none = build(i, NONE);
		const struct adv_finding *a = fx_get(full, cases[i].id);

		print_message("case %zu: %s\n", i, cases[i].id);
		assert_non_null(a);
		assert_null(fx_evidence(a, "calibration"));
		check_unusable(a, fx_get(none, cases[i].id), "none stored for this host");
		fx_free(full);
		fx_free(none);
	}
}

static void test_mismatched_calibration_lowers_confidence_and_says_so(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx *full = build(i, FULL), *other = build(i, MISMATCH);

		print_message("case %zu: %s\n", i, cases[i].id);
		check_unusable(fx_get(full, cases[i].id), fx_get(other, cases[i].id),
			       "for another host (CPU model differs: calibrated on an Intel Xeon 8375C)");
		fx_free(full);
		fx_free(other);
	}
}

/* A calibration of this host that lacks the one family a finding needs. */
static void test_missing_family_is_named(void **state)
{
	struct fx *full = build(1, FULL), *fx = fx_new(5, 4);
	const struct adv_finding *f;

	lock(fx);
	fx_host(fx);
	fx->h.host_costs.present = false;
	f = fx_run_get(fx, "futex-contention");
	assert_non_null(f);
	assert_string_equal(fx_evidence(f, "calibration"),
			    "host_costs not measured on this host: confidence lowered");
	assert_non_null(strstr(f->recommendation, "spinscope calibrate --only host_costs"));
	assert_true(f->confidence < fx_get(full, "futex-contention")->confidence);
	/* Without the handoff the advice does not pick a side. */
	assert_non_null(strstr(f->recommendation, "whether or not spinning first would pay, which needs this host's futex handoff cost"));
	fx_free(full);
	fx_free(fx);
}

/* Rejected (absurd) stored figures are said as such, not as "not
 * measured"; an unreadable file is not "none stored". */
static void test_rejected_and_unreadable_are_said(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	lock(fx);
	fx_host(fx);
	fx->h.host_costs.present = false;
	fx->h.rejected = ADV_FAM_HOST_COSTS;
	snprintf(fx->h.rejected_reason, sizeof(fx->h.rejected_reason),
		 "host_costs: futex handoff across CPUs is nan, outside 10 ns to 1 s");
	f = fx_run_get(fx, "futex-contention");
	assert_string_equal(fx_evidence(f, "calibration"),
			    "stored figures rejected (host_costs: futex handoff across CPUs is nan, "
			    "outside 10 ns to 1 s): not used, confidence lowered");
	assert_null(strstr(f->recommendation, "nan"));
	fx_free(fx);

	fx = fx_new(5, 4);
	lock(fx);
	memset(&fx->h, 0, sizeof(fx->h));
	fx->h.present = fx->h.unreadable = true;
	snprintf(fx->h.mismatch_reason, sizeof(fx->h.mismatch_reason), "not valid JSON");
	f = fx_run_get(fx, "futex-contention");
	assert_string_equal(fx_evidence(f, "calibration"),
			    "the stored one cannot be used (not valid JSON): no host figures used, "
			    "confidence lowered");
	fx_free(fx);
}

/* The good region stands beside the best strategy: its spin range, or
 * that the sweep could not separate the strategies (and what to run then,
 * by the sweep's mode). */
static void test_region_in_best_strategy_evidence(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	yielders(fx);
	fx_host(fx);
	fx->h.spin_threshold.light_region = (struct adv_region){
		.n_min = 0, .n_max = 255, .size = 9, .spread = 0.03, .separated = true
	};
	f = fx_run_get(fx, "spin-yield");
	assert_non_null(strstr(fx_evidence(f, "best lock strategy here"),
			       "N=31 (0x1F) at light contention"));
	assert_non_null(strstr(fx_evidence(f, "best lock strategy here"),
			       "; any N from 0 to 255 as good here"));
	fx_free(fx);

	fx = fx_new(5, 4);
	yielders(fx);
	fx_host(fx);
	fx->h.spin_threshold.light_region = (struct adv_region){
		.n_min = 31, .n_max = 31, .size = 20, .spread = 0.3, .separated = false
	};
	f = fx_run_get(fx, "spin-yield");
	assert_non_null(strstr(fx_evidence(f, "best lock strategy here"),
			       "the sweep could not separate the strategies (calibrate --full)"));
	fx_free(fx);

	/* A --full sweep that could not either: not sent back to --full. */
	fx = fx_new(5, 4);
	yielders(fx);
	fx_host(fx);
	fx->h.spin_threshold.light_region = (struct adv_region){
		.n_min = 31, .n_max = 31, .size = 20, .spread = 0.3, .separated = false,
		.full = true
	};
	f = fx_run_get(fx, "spin-yield");
	assert_non_null(strstr(fx_evidence(f, "best lock strategy here"),
			       "could not separate the strategies (calibrate on idle --cpus)"));
	fx_free(fx);
}

/* Calibration only lowers confidence; it never turns a healthy process
 * into a finding. */
static void test_no_calibration_healthy_stays_quiet(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_report *r;

	fx_sleeper(fx, false);
	r = fx_run(fx);
	assert_true(fx_worst(r) <= ADV_INFO);
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_calibration_lowers_confidence_and_says_so),
		cmocka_unit_test(test_mismatched_calibration_lowers_confidence_and_says_so),
		cmocka_unit_test(test_missing_family_is_named),
		cmocka_unit_test(test_no_calibration_healthy_stays_quiet),
		cmocka_unit_test(test_rejected_and_unreadable_are_said),
		cmocka_unit_test(test_region_in_best_strategy_evidence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

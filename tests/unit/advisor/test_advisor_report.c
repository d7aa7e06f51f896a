// SPDX-License-Identifier: GPL-2.0
/*
 * The advisor end to end on whole profiles: the demo workload's planted
 * problems are all found, healthy processes get no warning, findings are
 * ranked most severe first, evidence carries units, bad input is refused.
 */
#include <errno.h>
#include <regex.h>
#include "advisor_fixture.h"
#include "advisor/finding.h"

/* `spinscope demo` on this 2-CPU VM without a PMU: four threads on one
 * pthread mutex, two in a spin-then-sched_yield loop, two incrementing
 * adjacent counters. */
static struct fx *demo(void)
{
	struct fx *fx = fx_new(5, 2);

	fx_lock(fx, "pthread_mutex_lock <- worker_hot (demo)", 4, 20000, 40000, 0.6);
	fx_yielders(fx, 2, 150000, 0.3, 0.5, 1.2);
	fx_thread(fx, "counter", 0.3, 0.5);
	fx_thread(fx, "counter", 0.3, 0.5);
	fx_two_counters(fx, 8, 2000);
	fx_no_pmu(fx);
	fx_host(fx);
	return fx;
}

static void test_demo_finds_every_planted_problem(void **state)
{
	struct fx *fx = demo();
	const struct adv_report *r = fx_run(fx);
	const struct adv_finding *fs;

	for (size_t i = 0; i < r->n; i++)
		fx_print(&r->findings[i]);
	assert_true(fx_get(fx, "futex-contention")->severity >= ADV_WARNING);
	assert_true(fx_get(fx, "spin-yield")->severity >= ADV_WARNING);
	assert_true(fx_get(fx, "oversubscription")->severity >= ADV_WARNING);
	/* No PMU: the data addresses show the counters' line. */
	fs = fx_get(fx, "false-sharing");
	assert_non_null(fs);
	assert_true(fs->severity >= ADV_WARNING);
	assert_true(fx_says(fs, "counters+8 (demo)"));
	fx_free(fx);
}

/* The same demo traced with --event cpu-clock --no-data-addresses: the
 * counter-increment function is named as possibly writing shared data. */
static void test_demo_with_cpu_clock_names_the_counter_function(void **state)
{
	struct fx *fx = demo();
	const struct adv_finding *fs;

	memset(&fx->p.data, 0, sizeof(fx->p.data));
	fx_sample(fx, "cpu-clock", 5000, "spin_then_yield (demo)", 1800, false);
	fx_sample(fx, "cpu-clock", 5000, "bump_counter (demo)", 1500, true);
	fs = fx_run_get(fx, "false-sharing");
	assert_non_null(fs);
	assert_int_equal(fs->severity, ADV_INFO);
	assert_true(fx_says(fs, "30% of on-CPU time in bump_counter (demo)"));
	fx_free(fx);
}

static void test_findings_ranked_by_severity_then_confidence(void **state)
{
	struct fx *fx = demo();
	const struct adv_report *r;

	/* Add findings of every level: fence hot spot (info/warning). */
	fx_fence(fx, "publish (demo)", 0.06);
	r = fx_run(fx);
	assert_true(r->n >= 5);
	for (size_t i = 1; i < r->n; i++) {
		const struct adv_finding *a = &r->findings[i - 1], *b = &r->findings[i];

		assert_true(a->severity >= b->severity);
		if (a->severity == b->severity)
			assert_true(a->confidence >= b->confidence);
	}
	assert_int_equal(r->findings[0].severity, ADV_CRITICAL);
	assert_int_equal(r->findings[r->n - 1].severity, ADV_INFO);
	fx_free(fx);
}

static void test_healthy_processes_get_no_warning(void **state)
{
	for (int shape = 0; shape < FX_HEALTHY_SHAPES; shape++) {
		struct fx *fx = fx_healthy(shape);
		const struct adv_report *r = fx_run(fx);

		for (size_t i = 0; i < r->n; i++)
			fx_print(&r->findings[i]);
		assert_true(fx_worst(r) <= ADV_INFO);
		/* Nothing is left: one NUMA node is the host line's, not a finding. */
		assert_int_equal(r->n, 0);
		fx_free(fx);
	}
}

/* A long name cannot push the action past ADV_REC_MAX: whole sentences
 * beyond it move to a "then" evidence line; one sentence too long is cut. */
static void test_recommendation_bound_keeps_whole_sentences(void **state)
{
	struct adv_finding f;
	char name[270];

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	adv_finding__init(&f, ADV_WARNING, "t");
	adv_finding__recommend(&f, "Shorten the section in %s.", name);
	adv_finding__recommend(&f, "Then measure it again.");
	adv_finding__bound(&f);
	assert_true(strlen(f.recommendation) <= ADV_REC_MAX);
	assert_non_null(strstr(f.recommendation, "Shorten the section in xxx"));
	assert_string_equal(fx_evidence(&f, "then"), "Then measure it again.");
	adv_finding__init(&f, ADV_WARNING, "t");
	adv_finding__recommend(&f, "Shorten %s%s.", name, name);
	adv_finding__bound(&f);
	assert_int_equal(strlen(f.recommendation), ADV_REC_MAX);
	assert_null(fx_evidence(&f, "then"));
}

static void test_ids_are_the_stable_set(void **state)
{
	static const char *const ids[] = {
		"spin-yield", "futex-contention", "false-sharing", "spin-hint",
		"memory-order", "oversubscription",
	};
	struct fx *fx = demo();
	const struct adv_report *r;

	fx_fence(fx, "publish (demo)", 0.06);
	r = fx_run(fx);
	/* One NUMA node: no numa-placement finding (the host line's). */
	assert_int_equal(r->n, 6);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		assert_non_null(advisor__find(r, ids[i]));
	assert_string_equal(advisor__severity_name(ADV_CRITICAL), "critical");
	assert_string_equal(advisor__severity_name(ADV_WARNING), "warning");
	assert_string_equal(advisor__severity_name(ADV_INFO), "info");
	assert_string_equal(advisor__source_name(ADV_SRC_HOST), "host");
	assert_string_equal(advisor__source_name(ADV_SRC_TARGET), "target");
	fx_free(fx);
}

static bool matches(const char *re, const char *s)
{
	regex_t rx;
	bool ok;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&rx, s, 0, NULL, 0) == 0;
	regfree(&rx);
	return ok;
}

/* Every number that is a time, a rate, a share or a ratio says which. */
static void test_evidence_carries_units(void **state)
{
	static const struct {
		const char *id, *label, *re;
	} want[] = {
		{ "futex-contention", "wait time", "^median [0-9.]+ (ns|us|ms|s), p90 [0-9.]+ (ns|us|ms|s), max [0-9.]+ (ns|us|ms|s)$" },
		{ "futex-contention", "futex handoff", "^[0-9.]+ (ns|us|ms) \\(wake to running\\): the median blocked wait is [0-9.]+x that$" },
		{ "futex-contention", "wait rate", "^[0-9.]+[kM]? waits/s$" },
		{ "futex-contention", "waiters' time", "^[0-9.]+%$" },
		{ "spin-yield", "yield rate", "^[0-9.]+[kM]? yields/s per thread$" },
		{ "spin-yield", "sched_yield cost", "^[0-9.]+ (ns|us) per call" },
		{ "spin-yield", "on-CPU burst", "^[0-9.]+ (ns|us|ms) between switches$" },
		{ "spin-yield", "CPU used", "^[0-9.]+ CPUs of [0-9]+$" },
		{ "oversubscription", "run-queue delay", "^mean [0-9.]+ (ns|us|ms|s), p90 [0-9.]+ (ns|us|ms|s), max [0-9.]+ (ns|us|ms|s)$" },
		{ "oversubscription", "involuntary switches", "^[0-9.]+[kM]?/s" },
		{ "false-sharing", "unpadded/padded", "^[0-9.]+x at 2 threads$" },
		{ "false-sharing", "destructive interference", "^[0-9]+ bytes \\(cache line [0-9]+ bytes per sysfs\\)$" },
		{ "spin-hint", "hints here", "^pause [0-9.]+ ns" },
		{ "memory-order", "possible saving", "^up to [0-9.]+% of on-CPU time$" },
	};
	struct fx *fx = demo();

	fx_fence(fx, "publish (demo)", 0.06);
	fx_run(fx);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *v = fx_evidence(fx_get(fx, want[i].id), want[i].label);

		print_message("%s / %s: %s\n", want[i].id, want[i].label, v ? v : "(none)");
		assert_non_null(v);
		assert_true(matches(want[i].re, v));
	}
	fx_free(fx);
}

static void test_bad_input_is_refused(void **state)
{
	struct fx *fx = demo();

	fx_run(fx);
	assert_int_equal(advisor__run(NULL, &fx->h, &fx->r), -EINVAL);
	assert_int_equal(advisor__run(&fx->p, NULL, &fx->r), -EINVAL);
	assert_int_equal(advisor__run(&fx->p, &fx->h, NULL), -EINVAL);
	fx->p.duration_ns = 0;
	assert_int_equal(advisor__run(&fx->p, &fx->h, &fx->r), -EINVAL);
	fx_free(fx);
}

/* Empty inputs (a target that exited at once, nothing traced) give no
 * warning and do not divide by zero. */
static void test_empty_profile(void **state)
{
	struct fx *fx = fx_new(0.001, 0);
	const struct adv_report *r;

	fx->p.numa.nodes = 0;
	r = fx_run(fx);
	assert_true(fx_worst(r) <= ADV_INFO);
	for (size_t i = 0; i < r->n; i++)
		assert_true(r->findings[i].confidence >= 0 && r->findings[i].confidence <= 1);
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo_finds_every_planted_problem),
		cmocka_unit_test(test_demo_with_cpu_clock_names_the_counter_function),
		cmocka_unit_test(test_findings_ranked_by_severity_then_confidence),
		cmocka_unit_test(test_healthy_processes_get_no_warning),
		cmocka_unit_test(test_ids_are_the_stable_set),
		cmocka_unit_test(test_recommendation_bound_keeps_whole_sentences),
		cmocka_unit_test(test_evidence_carries_units),
		cmocka_unit_test(test_bad_input_is_refused),
		cmocka_unit_test(test_empty_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* The oversubscription rule: more runnable threads than CPUs, and whether
 * anything spins or contends while they are. */
#include "advisor_fixture.h"

static void test_fires_on_spinners_beyond_the_cpus(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	/* Three yielders and two computing threads on 2 CPUs. */
	fx_yielders(fx, 3, 100000, 0.4, 0.55, 1.2);
	fx_thread(fx, "counter", 0.4, 0.55);
	fx_thread(fx, "counter", 0.4, 0.55);
	fx_host(fx);
	f = fx_run_get(fx, "oversubscription");
	fx_print(f);
	assert_non_null(f);
	/* 4.75 runnable on average for 2 CPUs: at least twice, critical. */
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_non_null(strstr(fx_evidence(f, "runnable threads"), "4.8 on average"));
	assert_non_null(strstr(fx_evidence(f, "threads runnable most"), "5 ("));
	assert_non_null(strstr(fx_evidence(f, "run-queue delay"), "mean 550 us"));
	assert_non_null(strstr(fx_evidence(f, "futex handoff"), "110x that"));
	assert_true(fx_says(f, "Run at most 2 threads"));
	fx_free(fx);
}

static void test_warning_when_less_than_twice_oversubscribed(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	fx_yielders(fx, 3, 100000, 0.6, 0.2, 1.2);
	fx_host(fx);
	f = fx_run_get(fx, "oversubscription");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	fx_free(fx);
}

/* Three computing threads on two CPUs: oversubscribed, but nothing spins:
 * time slicing only, informational. */
static void test_info_when_nothing_spins(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	for (int i = 0; i < 3; i++)
		fx_thread(fx, "crunch", 0.66, 0.33)->c.switches_involuntary = 1000;
	fx_host(fx);
	f = fx_run_get(fx, "oversubscription");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	assert_true(fx_says(f, "nothing spins"));
	/* No yields: every involuntary switch was a preemption. */
	assert_non_null(strstr(fx_evidence(f, "involuntary switches"), "at least 600/s preemptions"));
	fx_free(fx);
}

static void test_silent_when_healthy(void **state)
{
	fx_assert_silent_when_healthy("oversubscription");
}

/* Two spinners on four CPUs is not oversubscription. */
static void test_silent_when_threads_fit_the_cpus(void **state)
{
	struct fx *fx = fx_new(5, 4);

	fx_yielders(fx, 2, 150000, 0.9, 0.05, 4);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "oversubscription"));
	fx_free(fx);
}

static void test_jvm_gets_active_processor_count(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	fx_yielders(fx, 3, 100000, 0.6, 0.3, 1.2);
	fx->p.target.is_jvm = true;
	fx_host(fx);
	f = fx_run_get(fx, "oversubscription");
	assert_true(fx_says(f, "-XX:ActiveProcessorCount=2"));
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fires_on_spinners_beyond_the_cpus),
		cmocka_unit_test(test_warning_when_less_than_twice_oversubscribed),
		cmocka_unit_test(test_info_when_nothing_spins),
		cmocka_unit_test(test_silent_when_healthy),
		cmocka_unit_test(test_silent_when_threads_fit_the_cpus),
		cmocka_unit_test(test_jvm_gets_active_processor_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* The futex-contention rule: which futexes are contended locks, how bad,
 * and the advice on each side of the handoff cost. */
#include "advisor_fixture.h"

#define MUTEX "pthread_mutex_lock <- worker_hot (demo)"

static const struct adv_finding *one_lock(struct fx *fx, const char *name, double median_ns,
					  double share)
{
	fx_lock(fx, name, 4, 20000, median_ns, share);
	fx_host(fx);
	fx_run(fx);
	return fx_get(fx, "futex-contention");
}

static void test_fires_on_contended_mutex(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = one_lock(fx, MUTEX, 40000, 0.6);

	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_string_equal(fx_evidence(f, "lock"), MUTEX);
	assert_string_equal(fx_evidence(f, "waiters' time"), "60%");
	assert_string_equal(fx_evidence(f, "wait rate"), "20k waits/s");
	assert_non_null(strstr(fx_evidence(f, "waits"), "by 4 threads"));
	/* 40 us waits fall in [16, 32) us: the histogram median is 24.6 us. */
	assert_non_null(strstr(fx_evidence(f, "wait time"), "median 24.6 us"));
	assert_non_null(strstr(fx_evidence(f, "futex handoff"), "5 us"));
	fx_free(fx);
}

static void test_severity_follows_share_of_time_blocked(void **state)
{
	static const struct {
		double share;
		enum adv_severity sev;
	} cases[] = {
		{ 0.07, ADV_INFO }, { 0.15, ADV_WARNING }, { 0.35, ADV_CRITICAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx *fx = fx_new(5, 4);
		const struct adv_finding *f = one_lock(fx, MUTEX, 40000, cases[i].share);

		assert_non_null(f);
		assert_int_equal(f->severity, cases[i].sev);
		fx_free(fx);
	}
}

static void test_silent_when_healthy(void **state)
{
	fx_assert_silent_when_healthy("futex-contention");
}

static void test_silent_below_share_or_wait_count(void **state)
{
	struct fx *fx = fx_new(5, 4);

	/* 3% of the waiters' time: below the 5% floor. */
	assert_null(one_lock(fx, MUTEX, 40000, 0.03));
	fx_free(fx);
	fx = fx_new(5, 4);
	/* 15 waits in 5 s: too few to call contention. */
	fx_lock(fx, MUTEX, 2, 3, 40000, 0.5);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "futex-contention"));
	fx_free(fx);
}

/* A lock handed over within a futex call: 3% of the waiters' time blocked
 * (below the floor), but 2.4M wait calls in 5 s that returned at once,
 * 320 ns each as traced. Each is counted as what an untraced futex call
 * costs here (250 ns: 3% more), or as measured without a calibration
 * (3.84% more); a measured time under the host's call cost is kept. */
static void test_calls_returned_at_once_count_as_waiting(void **state)
{
	static const struct {
		bool calibrated;
		double measured_ns;
		const char *share, *at_once, *how;
	} cases[] = {
		{ true, 320, "6.0%", "3.0%", "untraced futex call" },
		{ false, 320, "6.8%", "3.8%", "as measured" },
		{ true, 200, "5.4%", "2.4%", "untraced futex call" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx *fx = fx_new(5, 4);
		struct adv_futex *fu = fx_lock(fx, MUTEX, 4, 20, 40000, 0.03);
		const struct adv_finding *f;

		fu->returned_at_once = 2400000;
		fu->waits += fu->returned_at_once;
		fu->at_once_ns = (uint64_t)(cases[i].measured_ns * (double)fu->returned_at_once);
		fx_host(fx);
		fx->h.host_costs.present = cases[i].calibrated;
		fx_run(fx);
		f = fx_get(fx, "futex-contention");
		fx_print(f);
		assert_non_null(f);
		assert_int_equal(f->severity, ADV_INFO);
		assert_non_null(strstr(f->title, cases[i].share));
		assert_string_equal(fx_evidence(f, "waiters' time blocked"), "3.0%");
		assert_non_null(strstr(fx_evidence(f, "waiters' time in at-once"), cases[i].at_once));
		assert_non_null(strstr(fx_evidence(f, "waiters' time in at-once"), cases[i].how));
		assert_string_equal(fx_evidence(f, "verdict"), "shard or spin briefly");
		fx_free(fx);
	}
}

/* Idle workers waiting on a condition variable are not contended, even
 * when woken often; a condition variable re-taking its mutex is. */
static void test_event_waits_are_not_locks(void **state)
{
	struct fx *fx = fx_new(5, 4);

	assert_null(one_lock(fx, "___pthread_cond_wait <- pool_worker (srv)", 40000, 0.9));
	fx_free(fx);
	fx = fx_new(5, 4);
	assert_null(one_lock(fx, "__futex_abstimed_wait_common <- sem_timedwait <- consumer (srv)",
			     40000, 0.9));
	fx_free(fx);
	fx = fx_new(5, 4);
	assert_non_null(one_lock(fx, "__pthread_mutex_cond_lock <- ___pthread_cond_wait <- pool_worker (srv)",
				 40000, 0.4));
	fx_free(fx);
}

static void test_unnamed_lock_is_shown_by_address_with_less_confidence(void **state)
{
	struct fx *named = fx_new(5, 4), *unnamed = fx_new(5, 4);
	const struct adv_finding *a = one_lock(named, MUTEX, 40000, 0.6);
	const struct adv_finding *b = one_lock(unnamed, NULL, 40000, 0.6);

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(strstr(fx_evidence(b, "lock"), "futex 0x55550000a"));
	assert_non_null(strstr(fx_evidence(b, "lock"), "unnamed"));
	assert_true(b->confidence < a->confidence);
	fx_free(named);
	fx_free(unnamed);
}

/* Waits of ~1.5 us against a 5 us handoff: spin first, sized with PAUSE
 * (38 ns): the largest 2^k-1 under 5000/38 = 131 is 127. */
static void test_short_waits_get_the_glibc_spin_tunable(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = one_lock(fx, MUTEX, 1500, 0.2);

	fx_print(f);
	assert_non_null(f);
	assert_true(fx_says(f, "GLIBC_TUNABLES=glibc.pthread.mutex_spin_count=127"));
	assert_true(fx_says(f, "PTHREAD_MUTEX_ADAPTIVE_NP"));
	assert_false(fx_says(f, "Shorten the critical section"));
	fx_free(fx);
}

static void test_long_waits_get_shorter_critical_sections(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = one_lock(fx, MUTEX, 200000, 0.5);

	assert_non_null(f);
	assert_true(fx_says(f, "Shorten the critical section"));
	assert_false(fx_says(f, "GLIBC_TUNABLES"));
	fx_free(fx);
}

static void test_hottest_lock_leads_others_are_listed(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx_lock(fx, "pthread_mutex_lock <- cold_path (demo)", 2, 500, 40000, 0.12);
	fx_lock(fx, MUTEX, 4, 20000, 40000, 0.6);
	fx_host(fx);
	f = fx_run_get(fx, "futex-contention");
	assert_non_null(f);
	assert_string_equal(fx_evidence(f, "lock"), MUTEX);
	assert_string_equal(fx_evidence(f, "also contended"),
			    "pthread_mutex_lock <- cold_path (demo): 12% of its waiters' time");
	fx_free(fx);
}

/* Tracing's own cost near the waits' length: said, and less confident. */
static void test_tracing_cost_close_to_waits_lowers_confidence(void **state)
{
	struct fx *cheap = fx_new(5, 4), *dear = fx_new(5, 4);
	const struct adv_finding *a, *b;

	/* 150 ns per event against 24.6 us waits; then 2 us per event. */
	a = one_lock(cheap, MUTEX, 40000, 0.2);
	fx_lock(dear, MUTEX, 4, 20000, 40000, 0.2);
	fx_host(dear);
	dear->h.host_costs.trace_event_ns = 2000;
	b = fx_run_get(dear, "futex-contention");
	assert_non_null(a);
	assert_non_null(b);
	assert_null(fx_evidence(a, "tracing cost"));
	assert_non_null(strstr(fx_evidence(b, "tracing cost"), "2 us per event"));
	assert_true(b->confidence < a->confidence);
	fx_free(cheap);
	fx_free(dear);
}

static void test_jvm_target_is_pointed_at_jfr(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx->p.target.is_jvm = true;
	f = one_lock(fx, MUTEX, 40000, 0.6);
	assert_true(fx_says(f, "jdk.JavaMonitorEnter"));
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fires_on_contended_mutex),
		cmocka_unit_test(test_severity_follows_share_of_time_blocked),
		cmocka_unit_test(test_silent_when_healthy),
		cmocka_unit_test(test_silent_below_share_or_wait_count),
		cmocka_unit_test(test_calls_returned_at_once_count_as_waiting),
		cmocka_unit_test(test_event_waits_are_not_locks),
		cmocka_unit_test(test_unnamed_lock_is_shown_by_address_with_less_confidence),
		cmocka_unit_test(test_short_waits_get_the_glibc_spin_tunable),
		cmocka_unit_test(test_long_waits_get_shorter_critical_sections),
		cmocka_unit_test(test_hottest_lock_leads_others_are_listed),
		cmocka_unit_test(test_tracing_cost_close_to_waits_lowers_confidence),
		cmocka_unit_test(test_jvm_target_is_pointed_at_jfr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

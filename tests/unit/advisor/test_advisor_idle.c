// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 9's advisor cases: idle waits are not contention, a lock needs two
 * waiters, blocked waits and at-once returns are told apart, other
 * processes' load is said and not blamed, spin loops without syscalls are
 * found, runtime code is never the subject, and no share passes 100%.
 */
#include "advisor_fixture.h"

#define MUTEX "worker in app (via pthread_mutex_lock in libc)"

/* A word four threads wait on for 60% of their time, used as `lock`
 * (holders release it) or as a condition variable (another thread wakes). */
static struct adv_futex *word(struct fx *fx, bool lock, const char *name)
{
	struct adv_futex *fu = fx_lock(fx, name, 4, 2000, 400000, 0.6);

	fu->wake_pattern = true;
	fu->holder_wakes = lock ? fu->blocked : 0;
	fu->bitset_waits = lock ? 0 : fu->waits;
	if (!name) {
		fu->name[0] = 0;
		fu->user_named = false;
	}
	return fu;
}

static void test_condvar_word_is_idle_without_frames(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	word(fx, false, NULL);
	fx_host(fx);
	f = fx_run_get(fx, "futex-contention");
	fx_print(f);
	assert_null(f);
	assert_true(fx_worst(&fx->r) < ADV_WARNING);
	fx_free(fx);
}

/* A condition variable's frames decide nothing (issue 28): woken by
 * another thread it is idle; handed on by its waiters it is a lock. */
static void test_condvar_frame_is_idle(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = word(fx, false, "pool_worker in app (via pthread_cond_wait in libc)");

	snprintf(fu->runtime_frames, sizeof(fu->runtime_frames),
		 "__futex_abstimed_wait_common <- ___pthread_cond_wait");
	fx_host(fx);
	assert_null(fx_run_get(fx, "futex-contention"));
	fu->holder_wakes = fu->blocked;
	assert_non_null(fx_run_get(fx, "futex-contention"));
	fx_free(fx);
}

static void test_one_waiter_is_no_contention(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_futex *fu = fx_lock(fx, MUTEX, 1, 2000, 400000, 0.6);

	fu->wake_pattern = true;
	fu->holder_wakes = fu->blocked;
	fx_host(fx);
	assert_null(fx_run_get(fx, "futex-contention"));
	fx_free(fx);
}

static void test_lock_word_blocked_and_at_once_apart(void **state)
{
	struct fx *fx = fx_new(5, 4);
	struct adv_futex *fu = word(fx, true, MUTEX);
	const struct adv_finding *f;

	fu->returned_at_once = 9 * fu->blocked;
	fu->waits = fu->blocked + fu->returned_at_once;
	fx_host(fx);
	f = fx_run_get(fx, "futex-contention");
	fx_print(f);
	assert_non_null(f);
	assert_non_null(strstr(fx_evidence(f, "waits"), "10k blocked, 90k returned at once"));
	assert_non_null(fx_evidence(f, "hot lock word"));
	assert_string_equal(fx_evidence(f, "verdict"), "shard or spin briefly");
	/* The break-even is not placed on waits that measure the scheduler. */
	assert_true(fx->r.breakeven.wait_median_ns == 0);
	assert_non_null(strstr(fx_evidence(f, "why a lock"), "4 threads wait on it"));
	fx_free(fx);
}

/* Known only by how it is woken: the wake pattern says lock. */
static void test_wake_pattern_says_lock(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	word(fx, true, NULL);
	fx_host(fx);
	f = fx_run_get(fx, "futex-contention");
	assert_non_null(f);
	assert_non_null(strstr(fx_evidence(f, "why a lock"), "held as a lock"));
	fx_free(fx);
}

static void test_unnamed_caller_is_not_the_subject(void **state)
{
	struct fx *fx = fx_new(5, 4);
	struct adv_futex *fu = word(fx, true, "__lll_lock_wait in libc");
	const struct adv_finding *f;

	fu->user_named = false;
	fx_host(fx);
	f = fx_run_get(fx, "futex-contention");
	fx_print(f);
	assert_non_null(f);
	assert_non_null(strstr(fx_evidence(f, "lock"), "caller not named"));
	assert_null(strstr(f->recommendation, "in __lll_lock_wait"));
	fx_free(fx);
}

/* Three threads on CPU 35% of the time each, queued 30% behind two CPU
 * burners of another process. */
static void busy_host(struct fx *fx)
{
	for (int i = 0; i < 3; i++)
		fx_thread(fx, "worker", 0.35, 0.3);
	fx->p.host_load = (struct adv_host_load){
		.measured = true, .cpus = 2, .busy_cpus = 2.0, .busy_other_cpus = 1.9,
	};
}

static void test_busy_host_is_said_not_blamed(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	busy_host(fx);
	fx_host(fx);
	fx_run(fx);
	f = fx_get(fx, "host-busy");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	assert_non_null(strstr(f->title, "1.9 of its 2 CPUs"));
	fx_print(fx_get(fx, "oversubscription"));
	assert_null(fx_get(fx, "oversubscription"));
	for (size_t i = 0; i < fx->r.n; i++)
		assert_null(strstr(fx->r.findings[i].recommendation, "Run at most"));
	fx_free(fx);

	/* The same threads on a quiet host are oversubscribed by their own. */
	fx = fx_new(5, 2);
	busy_host(fx);
	fx->p.host_load.busy_other_cpus = 0.05;
	fx_host(fx);
	assert_non_null(fx_run_get(fx, "oversubscription"));
	assert_null(fx_get(fx, "host-busy"));
	fx_free(fx);
}

static void test_pause_loop_is_a_spin_finding(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_spin_loop loop = { .hint = "pause", .samples = 950 };
	const struct adv_finding *f;

	snprintf(loop.symbol, sizeof(loop.symbol), "spin_lock (pause_spin)");
	for (int i = 0; i < 4; i++)
		fx_thread(fx, "spinner", 0.5, 0.5);
	fx_sample(fx, "cpu-clock", 1000, "spin_lock (pause_spin)", 950, true);
	fx->p.spin_loops = &loop;
	fx->p.nspin_loops = 1;
	fx_host(fx);
	f = fx_run_get(fx, "spin-loop");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_non_null(strstr(f->title, "spin_lock (pause_spin)"));
	assert_string_equal(fx_evidence(f, "spin-wait hint"), "pause in the sampled loop");
	assert_non_null(strstr(fx_evidence(f, "hint cost"), "38 ns per pause"));
	assert_non_null(strstr(fx_evidence(f, "threads and CPUs"), "outnumber"));
	/* The oversubscription finding defers to it for how to wait. */
	assert_string_equal(fx_evidence(fx_get(fx, "oversubscription"), "see"),
			    "spin-loop: how those threads should wait");
	fx_free(fx);

	/* Half as many samples in the loop: not most of them. */
	fx = fx_new(5, 2);
	loop.samples = 400;
	fx_thread(fx, "spinner", 0.9, 0.05);
	fx_sample(fx, "cpu-clock", 1000, "spin_lock (pause_spin)", 400, true);
	fx->p.spin_loops = &loop;
	fx->p.nspin_loops = 1;
	fx_host(fx);
	assert_null(fx_run_get(fx, "spin-loop"));
	fx_free(fx);
}

static void test_runtime_fences_are_not_advice(void **state)
{
	struct fx *fx = fx_new(5, 2);

	fx_computer(fx);
	fx_fence(fx, "__pthread_mutex_unlock_usercnt (libc.so.6)", 0.4);
	fx->fences[0].runtime = true;
	fx_host(fx);
	assert_null(fx_run_get(fx, "memory-order"));
	fx_free(fx);
}

static void test_sleepy_yielder_does_not_spin(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct adv_thread *t = fx_thread(fx, "poller", 0.01, 0.001);

	t->c.sched_yield = 423 * 5;
	t->c.switches_involuntary = t->c.sched_yield;
	fx_host(fx);
	assert_null(fx_run_get(fx, "spin-yield"));
	fx_free(fx);
}

static void test_no_share_passes_all(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;
	const char *v;

	/* 1M yields/s at 400 ns each would be 40% more than the time they ran. */
	fx_yielders(fx, 8, 1.4e6, 0.25, 0.75, 40);
	fx_host(fx);
	f = fx_run_get(fx, "spin-yield");
	fx_print(f);
	assert_non_null(f);
	v = fx_evidence(f, "time in sched_yield");
	assert_non_null(v);
	assert_non_null(strstr(v, "about all"));
	for (size_t i = 0; i < fx->r.n; i++)
		for (size_t e = 0; e < fx->r.findings[i].nevidence; e++) {
			const char *val = fx->r.findings[i].evidence[e].value;
			const char *pct = strchr(val, '%');

			/* No "1xx%" anywhere. */
			while (pct) {
				const char *d = pct;

				while (d > val && ((d[-1] >= '0' && d[-1] <= '9') || d[-1] == '.'))
					d--;
				assert_true(atof(d) <= 100);
				pct = strchr(pct + 1, '%');
			}
		}
	fx_free(fx);
}

/* A JVM's time in its own code is named by its Java-level cause, with
 * JVM flags or Java changes, never libjvm's functions to change. */
static void test_jvm_causes_are_java_level(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	fx->p.target.is_jvm = true;
	for (int i = 0; i < 4; i++)
		fx_thread(fx, "worker", 0.4, 0.1);
	fx_sample(fx, "cpu-clock", 1000, "[unknown]", 800, false);
	fx_sample(fx, "cpu-clock", 1000, "ObjectMonitor::TrySpin(JavaThread*) (libjvm.so)", 40, false);
	fx_sample(fx, "cpu-clock", 1000, "SpinPause (libjvm.so)", 30, false);
	fx->syms[1].runtime = fx->syms[2].runtime = true;
	fx_host(fx);
	f = fx_run_get(fx, "jvm-runtime");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	/* SpinPause counts for the monitors once they were sampled too: 7%. */
	assert_non_null(strstr(f->title, "7.0% of on-CPU samples in contended synchronized"));
	assert_true(fx_says(f, "jdk.JavaMonitorEnter"));
	assert_null(strstr(f->recommendation, "TrySpin"));
	fx_free(fx);

	/* SpinPause alone (a GC worker's) names no cause; not a JVM: silent. */
	fx = fx_new(5, 2);
	fx->p.target.is_jvm = true;
	fx_computer(fx);
	fx_sample(fx, "cpu-clock", 1000, "SpinPause (libjvm.so)", 300, false);
	fx_host(fx);
	assert_null(fx_run_get(fx, "jvm-runtime"));
	/* Found by the waiters' frames alone (the unwinder through libjvm). */
	fx->futexes[0] = (struct adv_futex){ .uaddr = 0x7f0000003000, .waits = 40, .blocked = 40,
					     .wait_ns = (uint64_t)(0.2 * fx->dur_ns), .waiters = 1 };
	snprintf(fx->futexes[0].runtime_frames, sizeof(fx->futexes[0].runtime_frames),
		 "__futex_abstimed_wait_common <- ___pthread_cond_wait <- ObjectMonitor::EnterI(JavaThread*)");
	fx->p.nfutexes = 1;
	f = fx_run_get(fx, "jvm-runtime");
	fx_print(f);
	assert_non_null(f);
	assert_non_null(strstr(f->title, "threads blocked 1 s (0.2 on average) in contended synchronized"));
	assert_int_equal(f->severity, ADV_INFO);
	/* One waiter per word: no contention said. */
	assert_null(fx_get(fx, "futex-contention"));
	/* A storm: 3 threads' worth blocked in monitors, few samples (blocked
	 * threads take none): a warning, the monitor named by its Java method. */
	fx->futexes[0].wait_ns = (uint64_t)(3 * fx->dur_ns);
	fx->futexes[0].waiters = 4;
	fx->futexes[0].user_named = true;
	snprintf(fx->futexes[0].name, sizeof(fx->futexes[0].name),
		 "void SyncStorm.lambda$main$0(long) in [jit] (via ObjectMonitor::enter in libjvm)");
	fx->p.target.runtime = ADV_RT_JVM;
	f = fx_run_get(fx, "jvm-runtime");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_non_null(strstr(f->title, "(3.0 on average)"));
	assert_non_null(strstr(fx_evidence(f, "hottest"), "a synchronized monitor in SyncStorm.lambda$main$0"));
	fx->futexes[0].user_named = false;
	f = fx_run_get(fx, "jvm-runtime");
	assert_non_null(strstr(fx_evidence(f, "hottest"), "-XX:+PreserveFramePointer"));
	fx->p.nfutexes = 0;
	fx->p.target.is_jvm = false;
	fx->syms[0] = (struct adv_sample_sym){ .symbol = "ShenandoahMark::mark_loop (libjvm.so)", .count = 300 };
	assert_null(fx_run_get(fx, "jvm-runtime"));
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_condvar_word_is_idle_without_frames),
		cmocka_unit_test(test_condvar_frame_is_idle),
		cmocka_unit_test(test_one_waiter_is_no_contention),
		cmocka_unit_test(test_lock_word_blocked_and_at_once_apart),
		cmocka_unit_test(test_wake_pattern_says_lock),
		cmocka_unit_test(test_unnamed_caller_is_not_the_subject),
		cmocka_unit_test(test_busy_host_is_said_not_blamed),
		cmocka_unit_test(test_pause_loop_is_a_spin_finding),
		cmocka_unit_test(test_runtime_fences_are_not_advice),
		cmocka_unit_test(test_sleepy_yielder_does_not_spin),
		cmocka_unit_test(test_no_share_passes_all),
		cmocka_unit_test(test_jvm_causes_are_java_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Locks whose waiters park each on a word of their own (advisor/parking.h,
 * rule_parked_lock.c): four threads on four words, each woken by the
 * others, are one lock handed on, worded in the runtime's terms; the same
 * words woken by a producer that never waits are no lock. A JVM whose
 * stacks stop at JIT code gets its most sampled Java method as the likely
 * place, said to be a guess. Go's sync.Mutex above its scheduler's frames
 * is the program's lock, and a herd on a reader-writer lock gets the
 * rwlock's fix.
 */
#include "advisor_fixture.h"
#include "advisor/parking.h"
#include "advisor/runtime.h"

#define NPARKED 4

struct parked {
	struct adv_holder h[NPARKED][NPARKED];
};

/* NPARKED threads, each parked on a word of its own at one place (share
 * of their time, rate waits/s each), each word woken by waker(i, k):
 * the k-th of its holders. */
static void fx_parked(struct fx *fx, struct parked *ps, const char *name, const char *frames,
		      double rate, double share, uint32_t producer)
{
	for (int i = 0; i < NPARKED; i++) {
		struct adv_futex *fu = fx_lock(fx, name, 1, rate, 200e3, share);
		int n = 0;

		fu->sole_waiter = fx->threads[fx->p.nthreads - 1].tid;
		snprintf(fu->runtime_frames, sizeof(fu->runtime_frames), "%s", frames);
		if (!name) {
			snprintf(fu->name, sizeof(fu->name), "__futex_abstimed_wait_common in libc");
			fu->user_named = false;
		}
		for (int k = 0; k < NPARKED; k++) {
			if (k == i)
				continue;
			ps->h[i][n].tid = producer ? producer : 4243 + (uint32_t)k;
			ps->h[i][n++].releases = fu->blocked / (NPARKED - 1);
		}
		fu->holders = ps->h[i];
		fu->nholders = (size_t)n;
		fu->wake_pattern = true;
		fu->outcome[SS_FUTEX_WOKEN] = fu->blocked;
	}
	fx->p.futexes = fx->futexes;	/* as fx_run will, for adv_parking_lock */
}

static const char JUC_FRAMES[] =
	"__futex_abstimed_wait_common <- pthread_cond_wait <- Parker::park <- Unsafe_Park";

static void test_parked_threads_are_one_lock(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct parked ps = { 0 };
	const struct adv_finding *f;
	struct adv_parking g;

	fx->p.target.runtime = ADV_RT_JVM;
	fx->p.target.is_jvm = true;
	fx_parked(fx, &ps, "SyncStorm.lambda$main$1 in [jit] (via void jdk.internal.misc.Unsafe.park(boolean, long) in [jit])",
		  JUC_FRAMES, 400, 0.35, 0);
	assert_true(adv_parking_lock(&fx->p, &g));
	assert_int_equal(g.threads, NPARKED);
	assert_int_equal(g.words, NPARKED);
	assert_true(g.by_waiters == g.wakes);
	fx_host(fx);
	f = fx_run_get(fx, "parked-lock");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_true(fx_says(f, "a java.util.concurrent lock (LockSupport.park) in SyncStorm.lambda$main$1"));
	assert_true(fx_says(f, "ReentrantLock"));
	/* no word has two waiters: the word rule says nothing */
	assert_null(fx_get(fx, "futex-contention"));
	/* parked 5% of their time, and the threads run together: info at most */
	fx_free(fx);
	fx = fx_new(5, 2);
	fx->p.target.runtime = ADV_RT_JVM;
	fx_parked(fx, &ps, "SyncStorm.lambda$main$1 in [jit]", JUC_FRAMES, 400, 0.06, 0);
	fx_host(fx);
	f = fx_run_get(fx, "parked-lock");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	fx_free(fx);
}

/* Samples of each waiter at the place it parks from, acquire of waiter
 * (struct adv_futex): fx_parked's words are the last NPARKED. */
static void fx_taking(struct fx *fx, uint64_t acquire, uint64_t of)
{
	for (size_t i = fx->p.nfutexes - NPARKED; i < fx->p.nfutexes; i++) {
		fx->futexes[i].acquire_samples = acquire;
		fx->futexes[i].waiter_samples = of;
	}
}

static const char MONITOR[] = "SyncStorm.lambda$main$0 in [jit] (via SharedRuntime::complete_monitor_locking_C in libjvm)";
static const char MONITOR_FRAMES[] =
	"__futex_abstimed_wait_common <- pthread_cond_wait <- PlatformEvent::park <- ObjectMonitor::EnterI";

/* A monitor's NPARKED waiters parked for share of a 5 s trace, acquire of
 * their samples each where they park from (of them in all), on a CPU
 * 20% of it (fx_lock): its parked-lock finding, or NULL. *fxp to free. */
static const struct adv_finding *monitor(struct fx **fxp, double parked, uint64_t acquire, uint64_t of)
{
	struct fx *fx = fx_new(5, 2);
	static struct parked ps;

	fx->p.target.runtime = ADV_RT_JVM;
	fx_parked(fx, &ps, MONITOR, MONITOR_FRAMES, 400, parked, 0);
	fx_taking(fx, acquire, of);
	fx_host(fx);
	*fxp = fx;
	return fx_run_get(fx, "parked-lock");
}

/* An adaptive lock's waiters spin in the call they park from (HotSpot's
 * monitors): parked 6% of their time, and on a CPU half of their 20% in
 * that call, they wait 16% of their time: a warning, where parking alone
 * says info. Too few samples there say nothing. Parked 3%, spinning 10%:
 * a lock all the same. */
static void test_spinning_before_parking_counts(void **state)
{
	struct fx *fx;
	const struct adv_finding *f = monitor(&fx, 0.06, 100, 200);
	const char *v;

	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	v = fx_evidence(f, "waiters' time taking it");
	assert_non_null(v);
	assert_non_null(strstr(v, "16%: 6.0% parked, 10% on a CPU in the same call (400 samples"));
	assert_null(fx_evidence(f, "waiters' time parked"));
	assert_non_null(strstr(f->title, "4 threads wait in turn, 16% of their time"));
	assert_non_null(strstr(f->cost, "16%"));
	fx_free(fx);

	/* 4 samples each, 16 in all: below ADV_LOCK_ACQUIRE_MIN_SAMPLES */
	f = monitor(&fx, 0.06, 4, 8);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	assert_non_null(fx_evidence(f, "waiters' time parked"));
	fx_free(fx);

	assert_null(monitor(&fx, 0.03, 0, 0));
	fx_free(fx);
	f = monitor(&fx, 0.03, 100, 200);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	fx_free(fx);
}

/* Consumers parked each on its own word, woken by a producer that never
 * parks there: they wait for it, they hand nothing on. */
static void test_producer_woken_parks_are_no_lock(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct parked ps = { 0 };
	struct adv_parking g;

	fx->p.target.runtime = ADV_RT_JVM;
	fx_parked(fx, &ps, "Consumer.take in [jit]", JUC_FRAMES, 400, 0.35, 9999);
	assert_false(adv_parking_lock(&fx->p, &g));
	fx_host(fx);
	assert_null(fx_run_get(fx, "parked-lock"));
	fx_free(fx);
}

/* Stacks that stop in libjvm: the program's most sampled Java method is
 * named as the likely place, the JDK's and the stubs never. */
static void test_jvm_without_frame_pointers_guesses_the_method(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct parked ps = { 0 };
	const struct adv_finding *f;
	const char *method;

	fx->p.target.runtime = ADV_RT_JVM;
	fx->p.target.is_jvm = true;
	fx_parked(fx, &ps, NULL, JUC_FRAMES, 400, 0.35, 0);
	fx_sample(fx, "cpu-clock", 1000, "Interpreter ([jit])", 300, false);
	fx_sample(fx, "cpu-clock", 1000, "int java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire(int) ([jit])", 200, false);
	fx_sample(fx, "cpu-clock", 1000, "void SyncStorm.lambda$main$1(long) ([jit])", 150, false);
	fx_host(fx);
	f = fx_run_get(fx, "parked-lock");
	fx_print(f);
	assert_non_null(f);
	assert_true(fx_says(f, "a java.util.concurrent lock (LockSupport.park), likely in SyncStorm.lambda$main$1"));
	method = fx_evidence(f, "Java method");
	assert_non_null(method);
	assert_non_null(strstr(method, "SyncStorm.lambda$main$1: 15% of the samples"));
	assert_non_null(strstr(method, "-XX:+PreserveFramePointer"));
	fx_free(fx);
}

static void test_go_mutex_above_the_scheduler(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_GO,
			      "runtime.futex.abi0 <- runtime.notesleep <- runtime.stopm <- ... <- sync.(*Mutex).lockSlow",
			      "main.bumpShared in app (via sync.(*Mutex).lockSlow in app)", &w);
	assert_false(w.runtime_internal);
	assert_string_equal(w.lock, "sync.Mutex in main.bumpShared");
	assert_non_null(strstr(w.note, "parks the goroutines"));
	assert_non_null(strstr(w.fix, "runtime.SetMutexProfileFraction"));
	/* the scheduler's idle threads alone stay the runtime's */
	adv_runtime_word_lock(ADV_RT_GO, "runtime.futex.abi0 <- runtime.notesleep <- runtime.stopm", NULL, &w);
	assert_true(w.runtime_internal);
}

/* Go threads parked in the scheduler beneath a channel receive, waking
 * each other: the runtime's own, never the program's lock. */
static void test_go_scheduler_parks_are_no_lock(void **state)
{
	struct fx *fx = fx_new(5, 2);
	struct parked ps = { 0 };

	fx->p.target.runtime = ADV_RT_GO;
	fx_parked(fx, &ps, "main.worker in app (via runtime.chanrecv1 in app)",
		  "runtime.futex.abi0 <- runtime.notesleep <- runtime.stopm <- runtime.findRunnable", 400, 0.35, 0);
	fx_host(fx);
	assert_null(fx_run_get(fx, "parked-lock"));
	/* the same threads under a sync.Mutex: the program's lock */
	for (size_t i = 0; i < fx->p.nfutexes; i++)
		snprintf(fx->futexes[i].runtime_frames, sizeof(fx->futexes[i].runtime_frames),
			 "runtime.futex.abi0 <- runtime.notesleep <- ... <- sync.(*Mutex).lockSlow");
	assert_non_null(fx_run_get(fx, "parked-lock"));
	fx_free(fx);
}

static void test_rwlock_herd_fix(void **state)
{
	struct adv_lock_words w;

	adv_runtime_word_lock(ADV_RT_RUST, "syscall <- <std::sys::sync::rwlock::futex::RwLock>::read_contended",
			      "mutex_rs::read_shared+0xba (mutex_rs)", &w);
	assert_non_null(w.herd_fix);
	assert_non_null(strstr(w.herd_fix, "reader-writer lock"));
	adv_runtime_word_lock(ADV_RT_RUST, "syscall <- <std::sys::sync::condvar::futex::Condvar>::wait", NULL, &w);
	assert_null(w.herd_fix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parked_threads_are_one_lock),
		cmocka_unit_test(test_spinning_before_parking_counts),
		cmocka_unit_test(test_producer_woken_parks_are_no_lock),
		cmocka_unit_test(test_jvm_without_frame_pointers_guesses_the_method),
		cmocka_unit_test(test_go_mutex_above_the_scheduler),
		cmocka_unit_test(test_go_scheduler_parks_are_no_lock),
		cmocka_unit_test(test_rwlock_herd_fix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

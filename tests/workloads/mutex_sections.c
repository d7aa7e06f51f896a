// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one pthread mutex, two critical sections of known, different
 * lengths run by different threads. Thread "long" runs section_long()
 * R times: it holds the mutex until a short thread has come to lock it
 * and marked its word contended, then LONG_US microseconds more, so that a
 * wait begins at least LONG_US before every long release, however late
 * the waiter comes (long_alone: the holds no waiter came to within
 * 100 ms); threads "short" (S of
 * them) run section_short() (held SHORT_US) until it is done. Each thread
 * works outside the lock for OUT_US between sections, so that the short
 * sections' releases only sometimes find anyone. The holds are busy loops on the
 * vDSO clock: at least as long as asked, longer when a thread is
 * preempted while holding.
 *
 *   mutex_sections S R SHORT_US LONG_US OUT_US [pi] [follow]
 *
 * pi: the mutex is a priority-inheritance one (PTHREAD_PRIO_INHERIT: glibc
 * locks and unlocks it with FUTEX_LOCK_PI and FUTEX_UNLOCK_PI).
 * follow: the long thread comes to the lock as soon as a short hold has
 * begun, not OUT_US later, so that a wait begins during every short hold
 * it follows. With one short thread each short release then wakes a
 * waiter that came during it (with more, an earlier waiter queued from a
 * long hold is woken first), and each short hold is measured.
 *
 * "ready" prints the mutex's address and the run-time addresses of the
 * sections and their callers (a frame-pointer unwind through glibc may
 * skip a section and name its caller); "done" the rounds each kind ran.
 */
#include "workload.h"

#define MAX_SHORT 16

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long short_ns, long_ns, out_ns;
static volatile int stop;
static unsigned long short_rounds[MAX_SHORT];

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void busy_ns(unsigned long ns)
{
	for (uint64_t end = mono_ns() + ns; mono_ns() < end;)
		;
}

/* Short threads' arrivals at the lock, the count at the last release
 * (stored after each unlock) and the short holds taken: what the long
 * holder waits on, so that a wait begins early in each of its holds. */
static unsigned long arrivals, arrivals_at_release, short_holds;

static unsigned long load(unsigned long *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static bool pi;	/* a priority-inheritance mutex (FUTEX_LOCK_PI/UNLOCK_PI) */
static bool follow;	/* the long thread locks as soon as a short hold begins */

/* glibc marks a mutex's word 2 (locked, contended) before a waiter
 * sleeps on it; the kernel sets a PI word's FUTEX_WAITERS bit. */
static int waiter_marked(void)
{
	unsigned int word = (unsigned int)__atomic_load_n(&mutex.__data.__lock, __ATOMIC_ACQUIRE);

	return pi ? (word & 0x80000000u) != 0 : word == 2;
}

#define WAITER_MAX_NS 100000000ul
static unsigned long long_alone;	/* long holds no waiter came to */

/* Spins until *v differs from old (and, if marked, the word is marked
 * contended), at most WAITER_MAX_NS; false when that ran out. */
static bool wait_change(unsigned long *v, unsigned long old, bool marked)
{
	for (uint64_t end = mono_ns() + WAITER_MAX_NS; load(v) == old || (marked && !waiter_marked());) {
		if (mono_ns() >= end)
			return false;
	}
	return true;
}

/* Not inlined: the frames that name each critical section. */
static void __attribute__((noinline)) section_short(void)
{
	__atomic_fetch_add(&arrivals, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&mutex);
	__atomic_fetch_add(&short_holds, 1, __ATOMIC_RELEASE);
	busy_ns(short_ns);
	pthread_mutex_unlock(&mutex);
	__atomic_store_n(&arrivals_at_release, load(&arrivals), __ATOMIC_RELEASE);
}

/*
 * Held until a short thread has come to the lock since its last release
 * and marked the word contended, then long_ns more: the first wait since
 * that release (the one the tracer's held-while-contended bound starts
 * from) begins long_ns or more before this release, however late a loaded
 * host lets the waiter come. Returns the short holds taken before it.
 */
static unsigned long __attribute__((noinline)) section_long(void)
{
	unsigned long holds;

	pthread_mutex_lock(&mutex);
	holds = load(&short_holds);
	if (!wait_change(&arrivals, load(&arrivals_at_release), true))
		long_alone++;
	busy_ns(long_ns);
	pthread_mutex_unlock(&mutex);
	__atomic_store_n(&arrivals_at_release, load(&arrivals), __ATOMIC_RELEASE);
	return holds;
}

static void *__attribute__((noinline)) short_holder(void *arg)
{
	unsigned long *rounds = arg;

	prctl(PR_SET_NAME, "short");
	while (!stop) {
		section_short();
		(*rounds)++;
		busy_ns(out_ns);
	}
	return NULL;
}

static void *__attribute__((noinline)) long_holder(void *arg)
{
	unsigned long rounds = (unsigned long)(uintptr_t)arg;

	prctl(PR_SET_NAME, "long");
	for (unsigned long r = 0; r < rounds; r++) {
		/* The next long hold comes after a short one: not taken back
		 * from the waiter this release woke before it runs (both short
		 * threads would then wait from before the hold, and none could
		 * come during it). */
		wait_change(&short_holds, section_long(), false);
		if (!follow)
			busy_ns(out_ns);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_SHORT];
	unsigned long s, rounds, total = 0;

	wl_init();
	if (argc < 6 || argc > 8)
		wl_fail("usage: mutex_sections S R SHORT_US LONG_US OUT_US [pi] [follow]");
	for (int i = 6; i < argc; i++) {
		if (!strcmp(argv[i], "pi"))
			pi = true;
		else if (!strcmp(argv[i], "follow"))
			follow = true;
		else
			wl_fail("usage: mutex_sections S R SHORT_US LONG_US OUT_US [pi] [follow]");
	}
	if (pi) {
		pthread_mutexattr_t a;

		if (pthread_mutexattr_init(&a) || pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) ||
		    pthread_mutex_init(&mutex, &a))
			wl_fail("a priority-inheritance mutex: not supported here");
	}
	s = wl_arg(argv[1], "S");
	rounds = wl_arg(argv[2], "R");
	short_ns = 1000 * wl_arg(argv[3], "SHORT_US");
	long_ns = 1000 * wl_arg(argv[4], "LONG_US");
	out_ns = 1000 * wl_arg(argv[5], "OUT_US");
	if (s > MAX_SHORT)
		wl_fail("S: at most %d short threads", MAX_SHORT);

	wl_ready("mutex=%p section_short=%p section_long=%p short_holder=%p long_holder=%p",
		 (void *)&mutex, (void *)section_short, (void *)section_long,
		 (void *)short_holder, (void *)long_holder);
	for (unsigned long i = 0; i < s; i++) {
		int err = pthread_create(&th[i], NULL, short_holder, &short_rounds[i]);

		if (err)
			wl_fail("pthread_create: %s", strerror(err));
	}
	/* The long sections run on a thread of their own too, so that the
	 * main thread (which only waits) holds nothing. */
	{
		pthread_t lt;
		int err = pthread_create(&lt, NULL, long_holder, (void *)(uintptr_t)rounds);

		if (err)
			wl_fail("pthread_create: %s", strerror(err));
		pthread_join(lt, NULL);
	}
	stop = 1;
	for (unsigned long i = 0; i < s; i++) {
		pthread_join(th[i], NULL);
		total += short_rounds[i];
	}
	printf("done long_rounds=%lu short_rounds=%lu long_alone=%lu\n", rounds, total, long_alone);
	fflush(stdout);
	wl_linger();
}

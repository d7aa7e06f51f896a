// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one pthread mutex, two critical sections of known, different
 * lengths run by different threads. Thread "long" runs section_long()
 * (the mutex held LONG_US microseconds) R times; threads "short" (S of
 * them) run section_short() (held SHORT_US) until it is done. Each thread
 * works outside the lock for OUT_US between sections, so that the long
 * section's releases nearly always find a short thread waiting and the
 * short ones' only sometimes find anyone. The holds are busy loops on the
 * vDSO clock: at least as long as asked, longer when a thread is
 * preempted while holding.
 *
 *   mutex_sections S R SHORT_US LONG_US OUT_US
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

/* Not inlined: the frames that name each critical section. */
static void __attribute__((noinline)) section_short(void)
{
	pthread_mutex_lock(&mutex);
	busy_ns(short_ns);
	pthread_mutex_unlock(&mutex);
}

static void __attribute__((noinline)) section_long(void)
{
	pthread_mutex_lock(&mutex);
	busy_ns(long_ns);
	pthread_mutex_unlock(&mutex);
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
		section_long();
		busy_ns(out_ns);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_SHORT];
	unsigned long s, rounds, total = 0;

	wl_init();
	if (argc != 6)
		wl_fail("usage: mutex_sections S R SHORT_US LONG_US OUT_US");
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
	printf("done long_rounds=%lu short_rounds=%lu\n", rounds, total);
	fflush(stdout);
	wl_linger();
}

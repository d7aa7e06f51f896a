// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a barrier with one slow thread. T threads each do a round of
 * work and meet at a pthread_barrier; thread 0's round is SKEW times the
 * others'. Known answer: barrier imbalance, thread 0 arriving last and the
 * others waiting for it most of each round.
 *
 *   barrier_skew T SKEW SECONDS
 *
 * "ready" prints the slow thread's function; "done rounds=N" at the end.
 */
#include "workload.h"

static pthread_barrier_t barrier;
static unsigned long nthreads, skew;
static volatile int stop;
static unsigned long rounds;
static unsigned int next_index;

static void __attribute__((noinline)) work_units(unsigned long units)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < units * 200000; i++)
		x += i;
}

static void *skewed_worker(void *arg __attribute__((unused)))
{
	unsigned int me = __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED);

	for (;;) {
		work_units(me == 0 ? skew : 1);
		if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
			rounds++;
		if (stop)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long seconds;

	wl_init();
	if (argc != 4)
		wl_fail("usage: barrier_skew T SKEW SECONDS");
	nthreads = wl_arg(argv[1], "T");
	skew = wl_arg(argv[2], "SKEW");
	seconds = wl_arg(argv[3], "SECONDS");
	if (pthread_barrier_init(&barrier, NULL, (unsigned)nthreads))
		wl_fail("pthread_barrier_init failed");
	wl_ready("barrier=%p worker_fn=%p", (void *)&barrier, (void *)skewed_worker);
	for (unsigned long i = 0; i < nthreads; i++)
		wl_thread_start(skewed_worker);
	wl_sleep_ms(seconds * 1000);
	printf("done rounds=%lu\n", rounds);
	fflush(stdout);
	wl_linger();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark workload: four threads take one pthread mutex in a loop,
 * holding it for about 2 us and working 2 us outside it. More threads
 * than a small VM's CPUs, so the lock is contended: unlocks find waiters
 * and wake them (the release sites spinscope records), and waits block.
 *
 *   mutexloop [-w SECONDS]
 *
 * Prints "ready pid=N", waits for SIGUSR1 (see window.h), then one line:
 *   mutexloop threads=4 rate=R acquisitions=N seconds=S cpu_s=C
 * rate is lock acquisitions per second.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "window.h"

#define THREADS 4
#define HOLD_NS 2000
#define OUTSIDE_NS 2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t acquisitions;
static atomic_bool stop;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void busy_ns(uint64_t ns)
{
	for (uint64_t end = mono_ns() + ns; mono_ns() < end;)
		;
}

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		pthread_mutex_lock(&lock);
		busy_ns(HOLD_NS);
		pthread_mutex_unlock(&lock);
		atomic_fetch_add_explicit(&acquisitions, 1, memory_order_relaxed);
		busy_ns(OUTSIDE_NS);
	}
	return NULL;
}

static void read_counters(uint64_t *v)
{
	v[0] = atomic_load_explicit(&acquisitions, memory_order_relaxed);
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	struct bench_window w;
	unsigned flags;
	uint64_t d[1];
	double secs;

	bench_window__parse(&w, argc, argv, NULL, &flags);
	bench_window__block_go();
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			bench_die("pthread_create");
	secs = bench_window__measure(&w, read_counters, 1, d);
	atomic_store(&stop, true);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	if (!d[0])
		bench_die("no acquisition in the window");
	printf("mutexloop threads=%d rate=%.0f acquisitions=%llu seconds=%.3f cpu_s=%.3f\n", THREADS,
	       d[0] / secs, (unsigned long long)d[0], secs, w.cpu_s);
	return 0;
}

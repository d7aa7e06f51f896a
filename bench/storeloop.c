// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark workload: two threads each add to a counter of their own (on
 * its own 128-byte line) in a tight loop: CPU-bound code that stores, as
 * the programs whose data addresses the cpu-clock sampler takes are.
 *
 *   storeloop [-w SECONDS]
 *
 * Prints "ready pid=N", waits for SIGUSR1 (see window.h), then one line:
 *   storeloop rate=R adds=N seconds=S cpu_s=C
 * rate is additions per second, both threads together.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include "window.h"

#define THREADS 2

static struct {
	_Atomic uint64_t n;
	char pad[120];
} adds[THREADS] __attribute__((aligned(128)));
static atomic_bool stop;

static void __attribute__((noinline)) add_until_stop(_Atomic uint64_t *n)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
				      memory_order_relaxed);
}

static void *adder(void *arg)
{
	add_until_stop(arg);
	return NULL;
}

static void read_adds(uint64_t *v)
{
	v[0] = 0;
	for (int i = 0; i < THREADS; i++)
		v[0] += atomic_load_explicit(&adds[i].n, memory_order_relaxed);
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	struct bench_window w;
	unsigned flags;
	double secs;
	uint64_t n;

	bench_window__parse(&w, argc, argv, NULL, &flags);
	bench_window__block_go();
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, adder, &adds[i].n))
			bench_die("pthread_create");
	secs = bench_window__measure(&w, read_adds, 1, &n);
	atomic_store(&stop, true);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	printf("storeloop rate=%.0f adds=%llu seconds=%.3f cpu_s=%.3f\n", (double)n / secs,
	       (unsigned long long)n, secs, w.cpu_s);
	return 0;
}

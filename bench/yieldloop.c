// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark workload: sched_yield in a tight loop.
 *
 *   yieldloop [-w SECONDS] [--pair]
 *
 * Default ("solo"): one thread yields in a loop; no other thread of ours is
 * runnable, so most calls return at once (unless another process on the
 * host is queued on that CPU) and the time measured is the system call
 * itself plus whatever a tracer adds to it.
 * --pair: two yielding threads pinned to CPU 0, so every call switches to
 * the other thread: this adds a sched_switch event per call.
 *
 * Prints "ready pid=N", waits for SIGUSR1 (see window.h), then one line:
 *   yieldloop mode=M rate=R calls=N seconds=S cpu_s=C
 * rate is sched_yield calls per second, all yielding threads together;
 * cpu_s the CPU time the process used in the window.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "window.h"

#define MAX_YIELDERS 2

/* One counter per thread, each on its own cache line: the count must not
 * become a cache-line ping-pong of its own. */
static struct {
	_Atomic uint64_t n;
	char pad[56];
} calls[MAX_YIELDERS] __attribute__((aligned(64)));
static atomic_bool stop;
static int n_yielders = 1;

/* Not inlined: the call site is one stack for the tracers to aggregate. */
static void __attribute__((noinline)) yield_until_stop(_Atomic uint64_t *n)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		syscall(SYS_sched_yield);
		atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	}
}

static void *yielder(void *arg)
{
	yield_until_stop(arg);
	return NULL;
}

static void read_calls(uint64_t *v)
{
	v[0] = 0;
	for (int i = 0; i < n_yielders; i++)
		v[0] += atomic_load_explicit(&calls[i].n, memory_order_relaxed);
}

int main(int argc, char **argv)
{
	static const char *const extra[] = { "--pair", NULL };
	pthread_t th[MAX_YIELDERS];
	struct bench_window w;
	pthread_attr_t attr;
	unsigned flags;
	double secs;
	uint64_t n;

	bench_window__parse(&w, argc, argv, extra, &flags);
	bench_window__block_go();
	if (pthread_attr_init(&attr))
		bench_die("pthread_attr_init");
	if (flags & 1) {
		cpu_set_t cpu0;

		CPU_ZERO(&cpu0);
		CPU_SET(0, &cpu0);
		if (pthread_attr_setaffinity_np(&attr, sizeof(cpu0), &cpu0))
			bench_die("pthread_attr_setaffinity_np");
		n_yielders = 2;
	}
	for (int i = 0; i < n_yielders; i++)
		if (pthread_create(&th[i], &attr, yielder, &calls[i].n))
			bench_die("pthread_create");
	usleep(200 * 1000);

	secs = bench_window__measure(&w, read_calls, 1, &n);
	atomic_store(&stop, true);
	for (int i = 0; i < n_yielders; i++)
		pthread_join(th[i], NULL);
	if (!n)
		bench_die("no sched_yield call in the window");
	printf("yieldloop mode=%s rate=%.0f calls=%llu seconds=%.3f cpu_s=%.3f\n",
	       n_yielders == 2 ? "pair" : "solo", n / secs, (unsigned long long)n, secs, w.cpu_s);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark workload: two threads ping-pong through two futex words.
 *
 *   pingpong [-w SECONDS] [--same-cpu]
 *
 * The pinger sets `ping`, FUTEX_WAKEs it and FUTEX_WAITs on `pong`; the
 * ponger does the mirror image. Every round trip makes two FUTEX_WAKE calls
 * and (unless the other side was quicker than the call) two FUTEX_WAITs
 * that block: the kernel's wake-up path is what is timed, which is where a
 * futex or scheduler tracer adds its cost.
 *
 * The pinger runs on CPU 0 and the ponger on CPU 1, so each hand-off is a
 * cross-CPU wake-up of an idle CPU (tens of thousands of round trips a
 * second on a small VM). Left unpinned, the scheduler sometimes puts both
 * on one CPU, where a hand-off is a direct switch ten times faster: runs
 * would be bimodal. --same-cpu pins both to CPU 0 on purpose, the case
 * where a tracer's per-event cost weighs most.
 *
 * Prints "ready pid=N", waits for SIGUSR1 (see window.h), then one line:
 *   pingpong cpus=same|two rate=R round_trips=N seconds=S cpu_s=C waits_per_rt=W
 *            eagain_per_rt=E
 * rate is round trips per second; cpu_s the CPU time the process used in
 * the window (under strace it spends much of the window stopped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "window.h"

static _Atomic uint32_t ping, pong;
static _Atomic uint64_t round_trips;
static _Atomic uint64_t waits, eagains;	/* FUTEX_WAIT calls, of them EAGAIN */
static atomic_bool stop;

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Waits until *word is non-zero, then takes it back to zero. */
static void futex_take(_Atomic uint32_t *word)
{
	while (!atomic_load(word) && !atomic_load_explicit(&stop, memory_order_relaxed)) {
		long r = syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);

		atomic_fetch_add_explicit(&waits, 1, memory_order_relaxed);
		if (r && errno == EAGAIN)
			atomic_fetch_add_explicit(&eagains, 1, memory_order_relaxed);
	}
	atomic_store(word, 0);
}

static void give(_Atomic uint32_t *word)
{
	atomic_store(word, 1);
	futex_wake(word);
}

static void *pinger(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		give(&ping);
		futex_take(&pong);
		atomic_fetch_add_explicit(&round_trips, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *ponger(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		futex_take(&ping);
		give(&pong);
	}
	return NULL;
}

static void read_counters(uint64_t *v)
{
	v[0] = atomic_load_explicit(&round_trips, memory_order_relaxed);
	v[1] = atomic_load_explicit(&waits, memory_order_relaxed);
	v[2] = atomic_load_explicit(&eagains, memory_order_relaxed);
}

static void start_pinned(pthread_t *th, void *(*fn)(void *), int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_attr_init(&attr) || pthread_attr_setaffinity_np(&attr, sizeof(set), &set) ||
	    pthread_create(th, &attr, fn, NULL))
		bench_die("pthread_create on a pinned CPU");
	pthread_attr_destroy(&attr);
}

int main(int argc, char **argv)
{
	static const char *const extra[] = { "--same-cpu", NULL };
	struct bench_window w;
	pthread_t a, b;
	uint64_t d[3];
	unsigned flags;
	double secs;

	bench_window__parse(&w, argc, argv, extra, &flags);
	bench_window__block_go();
	start_pinned(&b, ponger, flags & 1 ? 0 : 1);
	start_pinned(&a, pinger, 0);
	usleep(200 * 1000);	/* warm up: caches, frequency, placement */
	secs = bench_window__measure(&w, read_counters, 3, d);

	/* Release whichever side is blocked, so both see stop. */
	atomic_store(&stop, true);
	give(&ping);
	give(&pong);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (!d[0])
		bench_die("no round trip in the window");
	printf("pingpong cpus=%s rate=%.0f round_trips=%llu seconds=%.3f cpu_s=%.3f waits_per_rt=%.2f eagain_per_rt=%.2f\n",
	       flags & 1 ? "same" : "two", d[0] / secs, (unsigned long long)d[0], secs, w.cpu_s,
	       (double)d[1] / d[0], (double)d[2] / d[0]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Does the distance between two CPUs change under us, and does a contended
 * lock's throughput change with it? Two threads, pinned to CPUs A and B,
 * take turns at two measurements, over and over:
 *   - a cache line's round trip between them (one thread writes, the other
 *     answers; ROUND_TRIPS trips, the mean), and
 *   - a contended lock for LOCK_MS: both threads take it (spin SPINS times
 *     with PAUSE, then park on a futex, as spinscope calibrate's
 *     spin_then_park), 20 loop steps under it and 60 outside.
 * One line per iteration: "round_trip_ns acquisitions_per_s". In a VM
 * whose hypervisor moves the vCPUs between cores that share a cache and
 * cores that do not, the two columns move together (docs/BENCHMARKS.md,
 * issue 10): what makes spinscope calibrate's cross-CPU figures and lock
 * verdicts differ between runs.
 *
 *   cpu_distance [-a CPU] [-b CPU] [-n ITERATIONS] [-s SPINS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUND_TRIPS 20000
#define LOCK_MS 30
#define CS_STEPS 20
#define OUTSIDE_STEPS 60

enum phase { IDLE, ROUND_TRIP, LOCK, EXIT };

static _Alignas(64) atomic_int line;	/* the round trip's cache line */
static _Alignas(64) atomic_int lock;	/* 0 free, 1 held, 2 held with waiters */
static _Alignas(64) atomic_int phase;
static int spins = 63;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("isb" ::: "memory");
#endif
}

static void steps(int n)
{
	for (volatile int i = 0; i < n; i++)
		;
}

static void lock_take(void)
{
	int c;

	for (int i = 0; i < spins; i++) {
		c = 0;
		if (atomic_compare_exchange_strong(&lock, &c, 1))
			return;
		cpu_relax();
	}
	c = 0;
	if (atomic_compare_exchange_strong(&lock, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&lock, 2);
	while (c) {
		syscall(SYS_futex, &lock, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = atomic_exchange(&lock, 2);
	}
}

static void lock_release(void)
{
	if (atomic_fetch_sub(&lock, 1) != 1) {
		atomic_store(&lock, 0);
		syscall(SYS_futex, &lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

/* The acquisitions of one LOCK phase, until the phase ends. */
static long lock_loop(void)
{
	long n = 0;

	while (atomic_load_explicit(&phase, memory_order_relaxed) == LOCK) {
		lock_take();
		steps(CS_STEPS);
		lock_release();
		n++;
		steps(OUTSIDE_STEPS);
	}
	return n;
}

/* The responder's count of the last LOCK phase; -1 until it has left it. */
static atomic_long responder_acquisitions = -1;

/* CPU B: answers the round trips, joins the lock phases. */
static void *responder(void *arg)
{
	int cpu = *(int *)arg;

	if (pin(cpu)) {
		fprintf(stderr, "cpu_distance: cannot run on CPU %d\n", cpu);
		exit(1);
	}
	for (;;) {
		int p = atomic_load(&phase), v;

		if (p == EXIT)
			return NULL;
		if (p == ROUND_TRIP) {
			v = atomic_load_explicit(&line, memory_order_acquire);
			if (v & 1)
				atomic_store_explicit(&line, v + 1, memory_order_release);
		} else if (p == LOCK) {
			atomic_store(&responder_acquisitions, lock_loop());
		}
	}
}

static double round_trip_ns(void)
{
	double t0 = now_s();

	for (int i = 0; i < ROUND_TRIPS; i++) {
		int v = atomic_load(&line);

		atomic_store_explicit(&line, v + 1, memory_order_release);
		while (atomic_load_explicit(&line, memory_order_acquire) == v + 1)
			;
	}
	return (now_s() - t0) / ROUND_TRIPS * 1e9;
}

static void settle(void)
{
	usleep(1000);
}

/* A whole number from lo to hi, or exit 2 naming the option. */
static int number(const char *arg, char opt, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		fprintf(stderr, "cpu_distance: -%c needs a number from %ld to %ld, got '%s'\n", opt,
			lo, hi, arg);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	int a = 0, b = 1, iterations = 40, opt;
	pthread_t t;

	while ((opt = getopt(argc, argv, "a:b:n:s:")) != -1) {
		switch (opt) {
		case 'a': a = number(optarg, 'a', 0, CPU_SETSIZE - 1); break;
		case 'b': b = number(optarg, 'b', 0, CPU_SETSIZE - 1); break;
		case 'n': iterations = number(optarg, 'n', 1, 1000000); break;
		case 's': spins = number(optarg, 's', 0, 1 << 20); break;
		default:
			fprintf(stderr, "usage: cpu_distance [-a CPU] [-b CPU] [-n ITERATIONS] [-s SPINS]\n");
			return 2;
		}
	}
	if (a == b) {
		fprintf(stderr, "cpu_distance: -a and -b must be two different CPUs\n");
		return 2;
	}
	if (pin(a)) {
		fprintf(stderr, "cpu_distance: cannot run on CPU %d: %s\n", a, strerror(errno));
		return 1;
	}
	if (pthread_create(&t, NULL, responder, &b)) {
		fprintf(stderr, "cpu_distance: cannot start a thread\n");
		return 1;
	}
	printf("# round_trip_ns acquisitions_per_s (CPUs %d and %d, spin %d then park)\n", a, b, spins);
	for (int i = 0; i < iterations; i++) {
		double rt, t0, dt;
		long n;

		atomic_store(&phase, ROUND_TRIP);
		settle();
		rt = round_trip_ns();
		atomic_store(&phase, IDLE);
		settle();
		atomic_store(&responder_acquisitions, -1);
		atomic_store(&phase, LOCK);
		t0 = now_s();
		n = 0;
		while (now_s() - t0 < LOCK_MS * 1e-3) {
			lock_take();
			steps(CS_STEPS);
			lock_release();
			n++;
			steps(OUTSIDE_STEPS);
		}
		dt = now_s() - t0;
		atomic_store(&phase, IDLE);
		while (atomic_load(&responder_acquisitions) < 0)
			;
		n += atomic_load(&responder_acquisitions);
		settle();
		printf("%.0f %.0f\n", rt, (double)n / dt);
		fflush(stdout);
	}
	atomic_store(&phase, EXIT);
	pthread_join(t, NULL);
	return 0;
}

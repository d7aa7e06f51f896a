// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: THREADS threads take one pthread mutex in acc_long_section(),
 * hold it for a 50 us section, and end with pthread_mutex_unlock(), which
 * gcc -O2 makes a tail call (a jmp): the unlock returns to long_worker(),
 * the caller, as if it had released the lock itself. For SECONDS (0:
 * until killed).
 *   tail_unlock THREADS SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long shared_value;
static double end_s;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void acc_long_section(void)
{
	double until;

	pthread_mutex_lock(&m);
	until = now_s() + 50e-6;
	while (now_s() < until)
		shared_value = shared_value * 31 + 1;
	pthread_mutex_unlock(&m);	/* the tail call */
}

__attribute__((noinline)) static void *long_worker(void *arg)
{
	(void)arg;
	while (now_s() < end_s)
		acc_long_section();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	long n, secs;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) < 1 || n > 64 ||
	    (secs = strtol(argv[2], NULL, 10)) < 0) {
		fprintf(stderr, "usage: tail_unlock THREADS SECONDS\n");
		return 2;
	}
	end_s = now_s() + (secs ? (double)secs : 1e9);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, long_worker, NULL))
			return 1;
	puts("ready");
	fflush(stdout);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

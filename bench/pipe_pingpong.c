// SPDX-License-Identifier: GPL-2.0
/*
 * An unrelated, context-switch-heavy process: two threads bounce one byte
 * through two pipes for SECONDS of the process's own CPU time, then one
 * line "round_trips_per_s=N switches_per_s=M": round trips per second of
 * CPU it used (as getppid_loop.c, so that a loaded host lengthens a run
 * instead of lowering its rate), and the context switches per second of
 * wall time it made (two blocking reads per round trip, one switch each).
 * Used by bench/top_host_cost.sh: a host-wide scheduler tracer costs every
 * switch of every process, and this makes little else.
 *
 *   pipe_pingpong SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static volatile int stop;

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) == 1)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc == 2 ? strtod(argv[1], NULL) : 0, cpu0, wall0, cpu, wall;
	unsigned long long n = 0;
	pthread_t t;
	char c = 'x';

	if (secs <= 0) {
		fprintf(stderr, "usage: pipe_pingpong SECONDS\n");
		return 2;
	}
	if (pipe(ab) || pipe(ba) || pthread_create(&t, NULL, echo, NULL)) {
		perror("pipe_pingpong");
		return 1;
	}
	cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	wall0 = clock_s(CLOCK_MONOTONIC);
	do {
		for (int i = 0; i < 1000; i++, n++)
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				return 1;
		cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	} while (cpu < secs);
	wall = clock_s(CLOCK_MONOTONIC) - wall0;
	printf("round_trips_per_s=%.0f switches_per_s=%.0f\n", n / cpu, 2 * n / wall);
	return 0;
}

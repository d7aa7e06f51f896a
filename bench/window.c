// SPDX-License-Identifier: GPL-2.0
/* The measurement window shared by the overhead benchmark's workloads. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "window.h"

void bench_die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, errno ? strerror(errno) : "failed");
	exit(1);
}

static void usage(const char *prog, const char *const *extra)
{
	fprintf(stderr, "usage: %s [-w SECONDS]", prog);
	for (int i = 0; extra && extra[i]; i++)
		fprintf(stderr, " [%s]", extra[i]);
	fputc('\n', stderr);
	exit(2);
}

void bench_window__parse(struct bench_window *w, int argc, char **argv,
			 const char *const *extra, unsigned *extra_set)
{
	w->seconds = 3;
	w->max_wait_s = 120;
	*extra_set = 0;
	for (int i = 1; i < argc; i++) {
		int j;

		if (!strcmp(argv[i], "-w") && i + 1 < argc) {
			char *end;

			w->seconds = strtod(argv[++i], &end);
			if (*end || !(w->seconds > 0 && w->seconds <= 60))
				usage(argv[0], extra);
			continue;
		}
		for (j = 0; extra && extra[j]; j++)
			if (!strcmp(argv[i], extra[j]))
				break;
		if (!extra || !extra[j])
			usage(argv[0], extra);
		*extra_set |= 1u << j;
	}
}

void bench_window__block_go(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		bench_die("pthread_sigmask");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);	/* all threads */
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double bench_window__measure(struct bench_window *w, bench_read_fn read,
			     unsigned n_counters, uint64_t *delta)
{
	struct timespec wait = { .tv_sec = (time_t)w->max_wait_s };
	struct timespec len = {
		.tv_sec = (time_t)w->seconds,
		.tv_nsec = (long)((w->seconds - (time_t)w->seconds) * 1e9),
	};
	uint64_t start[BENCH_MAX_COUNTERS];
	sigset_t set;
	double t0, c0;

	if (n_counters > BENCH_MAX_COUNTERS)
		bench_die("too many counters");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	/* A tracer attaching with ptrace (strace) interrupts the wait. */
	for (;;) {
		int sig = sigtimedwait(&set, NULL, &wait);

		if (sig == SIGUSR1)
			break;
		if (sig < 0 && errno == EINTR)
			continue;
		bench_die("no go signal (SIGUSR1) came");
	}
	read(start);
	t0 = now_s();
	c0 = cpu_s();
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &len, &len) == EINTR)
		;
	read(delta);
	t0 = now_s() - t0;
	w->cpu_s = cpu_s() - c0;
	for (unsigned i = 0; i < n_counters; i++)
		delta[i] -= start[i];
	return t0;
}

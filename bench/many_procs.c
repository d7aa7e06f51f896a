// SPDX-License-Identifier: GPL-2.0
/*
 * A crowded host for `spinscope top`'s memory bound: P processes of T
 * threads each (1000 x 20 = 20000 threads by default), every thread
 * waking every PERIOD ms (sleep, then a little work), so that each refresh
 * sees every one of them active. Small stacks keep the whole under a few
 * hundred MiB. Prints "ready procs=P threads=N" once all exist, then runs
 * until killed (its children die with it: PR_SET_PDEATHSIG).
 *
 *   many_procs [P T PERIOD_MS]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static long period_ms = 1000;

static void *worker(void *arg)
{
	struct timespec ts = { .tv_sec = period_ms / 1000, .tv_nsec = (period_ms % 1000) * 1000000 };
	long offset_ms = (long)(((unsigned long)pthread_self() >> 12) % (unsigned long)period_ms);
	struct timespec first = { .tv_sec = offset_ms / 1000, .tv_nsec = (offset_ms % 1000) * 1000000 };
	volatile unsigned long x = 0;

	(void)arg;
	/* spread over the period: 20000 threads waking at once would make
	 * a load average of thousands, not a crowded host */
	nanosleep(&first, NULL);
	for (;;) {
		nanosleep(&ts, NULL);
		for (int i = 0; i < 2000; i++)
			x += (unsigned long)i;
	}
	return NULL;
}

/* One process: T threads (the main one among them), ready on fd. */
static void child(long t, int fd)
{
	pthread_attr_t attr;
	pthread_t th;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 1; i < t; i++)
		if (pthread_create(&th, &attr, worker, NULL))
			_exit(1);
	if (write(fd, "r", 1) != 1)
		_exit(1);
	worker(NULL);
}

int main(int argc, char **argv)
{
	long p = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long t = argc > 2 ? strtol(argv[2], NULL, 10) : 20;
	int fds[2];
	char c;

	if (argc > 3)
		period_ms = strtol(argv[3], NULL, 10);
	if (p < 1 || t < 1 || period_ms < 1 || pipe(fds)) {
		fprintf(stderr, "usage: many_procs [P T PERIOD_MS]\n");
		return 2;
	}
	for (long i = 0; i < p; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			child(t, fds[1]);
	}
	for (long i = 0; i < p; i++)
		if (read(fds[0], &c, 1) != 1) {
			fprintf(stderr, "a child failed to start its threads\n");
			return 1;
		}
	printf("ready procs=%ld threads=%ld\n", p, p * t);
	fflush(stdout);
	for (;;)
		pause();
}

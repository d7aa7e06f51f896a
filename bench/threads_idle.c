// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark target: N threads that exist and do nothing (each blocked in
 * read(2) on a pipe), for timing what attaching to a process of many
 * threads costs (bench/attach_cost.sh). Prints "ready pid=P threads=N"
 * once every thread has started, then waits until stdin closes.
 *
 *   threads_idle N
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int hold[2];		/* never written: the threads block reading it */
static int started[2];		/* each thread writes one byte once running */

static void *idle(void *arg)
{
	char c = 0;

	(void)arg;
	if (write(started[1], &c, 1) != 1)
		abort();
	while (read(hold[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	char *end, c;
	long n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	pthread_attr_t attr;

	if (argc != 2 || *end || n < 1 || n > 100000) {
		fprintf(stderr, "usage: threads_idle N (1 to 100000 threads)\n");
		return 2;
	}
	if (pipe(hold) || pipe(started) || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 64 * 1024)) {
		fprintf(stderr, "threads_idle: %s\n", strerror(errno));
		return 1;
	}
	for (long i = 0; i < n; i++) {
		pthread_t t;
		int err = pthread_create(&t, &attr, idle, NULL);

		if (err) {
			fprintf(stderr, "threads_idle: thread %ld: %s\n", i, strerror(err));
			return 1;
		}
	}
	for (long i = 0; i < n; i++)
		if (read(started[0], &c, 1) != 1) {
			fprintf(stderr, "threads_idle: %s\n", strerror(errno));
			return 1;
		}
	printf("ready pid=%d threads=%ld\n", (int)getpid(), n);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

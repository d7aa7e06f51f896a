// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark target: a thread-per-request server. After a line on stdin it
 * starts RATE threads a second for SECONDS seconds (paced by the clock,
 * detached); each "serves a request": takes a shared mutex, counts, and
 * makes K sched_yield calls, then exits. Prints "ready pid=P", then, once
 * every thread has ended, "done threads=N yields=Y seconds=S", and waits
 * until stdin closes. bench/thread_churn.sh traces it.
 *
 *   thread_server RATE SECONDS K
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long served, k_yields;
static atomic_long running, yields;

static void *request(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	served++;
	pthread_mutex_unlock(&lock);
	for (unsigned long i = 0; i < k_yields; i++)
		syscall(SYS_sched_yield);
	atomic_fetch_add(&yields, (long)k_yields);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

static int threads_now(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long arg(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1 || v > max) {
		fprintf(stderr, "usage: thread_server RATE SECONDS K\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	long rate, seconds, started = 0;
	double t0, t;
	char c;

	if (argc != 4)
		arg("", 0);
	rate = arg(argv[1], 1000000);
	seconds = arg(argv[2], 3600);
	k_yields = (unsigned long)arg(argv[3], 1000);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	t0 = now_s();
	while ((t = now_s() - t0) < seconds) {
		long due = (long)(t * rate);
		pthread_t th;
		int err;

		for (; started < due; started++) {
			atomic_fetch_add(&running, 1);
			if ((err = pthread_create(&th, &attr, request, NULL))) {
				fprintf(stderr, "pthread_create: %s\n", strerror(err));
				return 1;
			}
		}
		usleep(1000);
	}
	/* Every thread done, and its exit finished in the kernel. */
	while (atomic_load(&running) || threads_now() > 1)
		usleep(1000);
	printf("done threads=%ld yields=%ld served=%lu seconds=%.2f\n", started,
	       atomic_load(&yields), served, now_s() - t0);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

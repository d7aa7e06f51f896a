// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a broadcast herd. C consumers wait on one condition variable;
 * the producer queues ONE item at a time and wakes them all with
 * pthread_cond_broadcast. Every consumer wakes, all but one find the queue
 * empty and block again (first on the mutex the broadcast makes them
 * re-take, then on the condition). Known answer: wakes that wake several
 * threads, most of which block again at once: a thundering herd, fixed by
 * pthread_cond_signal.
 *
 *   cond_herd C SECONDS [signal]
 *
 * With "signal" the producer wakes one consumer per item: the same program
 * without the herd. "done items=N" at the end.
 */
#include "workload.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;
static unsigned long queued;
static volatile int stop;

static void __attribute__((noinline)) consume_item(void)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < 3000; i++)
		x += (unsigned long)i;
}

static void *herd_consumer(void *arg __attribute__((unused)))
{
	for (;;) {
		pthread_mutex_lock(&lock);
		while (!queued)
			pthread_cond_wait(&nonempty, &lock);
		queued--;
		pthread_cond_signal(&drained);
		pthread_mutex_unlock(&lock);
		consume_item();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long c, seconds, items = 0;
	bool signal_one;
	struct timespec t0, t;

	wl_init();
	if (argc != 3 && argc != 4)
		wl_fail("usage: cond_herd C SECONDS [signal]");
	c = wl_arg(argv[1], "C");
	seconds = wl_arg(argv[2], "SECONDS");
	signal_one = argc == 4 && !strcmp(argv[3], "signal");
	for (unsigned long i = 0; i < c; i++)
		wl_thread_start(herd_consumer);
	wl_ready("cond=%p mutex=%p", (void *)&nonempty, (void *)&lock);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pthread_mutex_lock(&lock);
		while (queued)
			pthread_cond_wait(&drained, &lock);
		queued++;
		items++;
		if (signal_one)
			pthread_cond_signal(&nonempty);
		else
			pthread_cond_broadcast(&nonempty);
		pthread_mutex_unlock(&lock);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((unsigned long)(t.tv_sec - t0.tv_sec) < seconds);
	printf("done items=%lu\n", items);
	fflush(stdout);
	wl_linger();
}

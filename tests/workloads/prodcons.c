// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a bounded queue under a mutex with two condition variables
 * (not_empty, not_full): one producer adds RATE items a second in bursts
 * of ten, C consumers take them and compute a little each. The consumers
 * wait for work, idle: not lock contention.
 *
 *   prodcons C RATE SECONDS
 */
#include "workload.h"

#define CAP 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static unsigned long head, tail;

static void __attribute__((noinline)) consume_item(void)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < 5000; i++)
		x += (unsigned long)i;
}

static void *consumer(void *arg __attribute__((unused)))
{
	for (;;) {
		pthread_mutex_lock(&lock);
		while (head == tail)
			pthread_cond_wait(&not_empty, &lock);
		tail++;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		consume_item();
	}
	return NULL;
}

static void __attribute__((noinline)) produce(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		pthread_mutex_lock(&lock);
		while (head - tail == CAP)
			pthread_cond_wait(&not_full, &lock);
		head++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
}

int main(int argc, char **argv)
{
	unsigned long c, rate, seconds;

	wl_init();
	if (argc != 4)
		wl_fail("usage: prodcons C RATE SECONDS");
	c = wl_arg(argv[1], "C");
	rate = wl_arg(argv[2], "RATE");
	seconds = wl_arg(argv[3], "SECONDS");
	for (unsigned long i = 0; i < c; i++)
		wl_thread_start(consumer);
	wl_ready("mutex=%p not_empty=%p consumer_fn=%p", (void *)&lock, (void *)&not_empty,
		 (void *)consumer);
	for (unsigned long b = 0; b < rate * seconds / 10; b++) {
		wl_sleep_ms(10000 / rate);
		produce(10);
	}
	wl_done();
	wl_linger();
}

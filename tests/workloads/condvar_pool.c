// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: an idle thread pool. W workers wait in pthread_cond_wait for
 * work; main hands out one item HZ times a second (pthread_cond_signal),
 * each taking a few microseconds. The workers are idle, not contended:
 * the advice must not call their waits lock contention.
 *
 *   condvar_pool W HZ SECONDS
 *
 * "ready" prints the condition variable's and the mutex's addresses and
 * pool_worker()'s. After SECONDS, "done items=N".
 */
#include "workload.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static unsigned long queued, taken;

static void __attribute__((noinline)) do_item(void)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < 2000; i++)
		x += (unsigned long)i;
}

static void *pool_worker(void *arg __attribute__((unused)))
{
	for (;;) {
		pthread_mutex_lock(&lock);
		while (queued == taken)
			pthread_cond_wait(&work, &lock);
		taken++;
		pthread_mutex_unlock(&lock);
		do_item();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long w, hz, seconds, n;

	wl_init();
	if (argc != 4)
		wl_fail("usage: condvar_pool W HZ SECONDS");
	w = wl_arg(argv[1], "W");
	hz = wl_arg(argv[2], "HZ");
	seconds = wl_arg(argv[3], "SECONDS");
	for (unsigned long i = 0; i < w; i++)
		wl_thread_start(pool_worker);
	wl_ready("cond=%p mutex=%p worker_fn=%p", (void *)&work, (void *)&lock, (void *)pool_worker);
	n = hz * seconds;
	for (unsigned long i = 0; i < n; i++) {
		wl_sleep_ms(1000 / hz);
		pthread_mutex_lock(&lock);
		queued++;
		pthread_cond_signal(&work);
		pthread_mutex_unlock(&lock);
	}
	printf("done items=%lu\n", n);
	fflush(stdout);
	wl_linger();
}

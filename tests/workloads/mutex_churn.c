// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a thread-per-request server whose requests contend on a lock.
 *
 *   mutex_churn M B R
 *
 * After go, M threads in all, B at a time, at most R a second (a pause
 * after each batch, never made up after a stall): the main
 * thread holds a mutex, starts B workers, waits until each is blocked on
 * it (so each waits on the lock at least once), and lets go; each worker
 * takes the lock, lets go (its unlock wakes the next), and exits. Every
 * worker leaves a waiter stack entry of its own in the tracer's maps, and
 * all but the batch's last a release-site entry (bpf/trace.h: both keyed
 * by thread): M far above the maps' sizes fills them unless the entries
 * of exited threads are moved out (issue 30 item 3). "ready" gives the
 * lock word; "done" comes once every worker's exit is finished.
 */
#include "workload.h"

#define MAX_BATCH 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t tids[MAX_BATCH];

static void *worker(void *arg)
{
	__atomic_store_n(&tids[(uintptr_t)arg], wl_gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One batch of n workers, each blocked on the lock before it is let go. */
static void batch(unsigned long n)
{
	pthread_t th[MAX_BATCH];
	int err;

	pthread_mutex_lock(&lock);
	for (unsigned long i = 0; i < n; i++) {
		tids[i] = 0;
		if ((err = pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i)))
			wl_fail("pthread_create: %s", strerror(err));
	}
	for (unsigned long i = 0; i < n; i++)
		while (!__atomic_load_n(&tids[i], __ATOMIC_ACQUIRE) ||
		       !wl_blocked_in_futex(tids[i], &lock))
			sched_yield();
	pthread_mutex_unlock(&lock);
	for (unsigned long i = 0; i < n; i++)
		if ((err = pthread_join(th[i], NULL)))
			wl_fail("pthread_join: %s", strerror(err));
}

int main(int argc, char **argv)
{
	unsigned long m, b, rate, started = 0;

	wl_init();
	if (argc != 4)
		wl_fail("usage: mutex_churn M B R");
	m = wl_arg(argv[1], "M");
	b = wl_arg(argv[2], "B");
	rate = wl_arg(argv[3], "R");
	if (b > MAX_BATCH)
		wl_fail("B: at most %d threads at a time", MAX_BATCH);
	wl_ready("lock=%p threads=%lu batch=%lu rate=%lu", (void *)&lock, m, b, rate);
	while (started < m) {
		unsigned long n = m - started < b ? m - started : b;
		double due;

		batch(n);
		started += n;
		/* Paced: a batch's share of a second at R a second after each,
		 * never caught up in a burst after a stall (a loaded host stalls
		 * the tracer's drain of the maps too). */
		due = now_s() + (double)n / (double)rate;
		while (now_s() < due)
			wl_sleep_ms(1);
	}
	while (wl_count_threads() > 1)
		wl_sleep_ms(1);
	wl_done();
	wl_linger();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a thread-per-request server in small.
 *
 *   thread_churn M K B
 *
 * After go, M threads in all are created, B at a time (each batch joined
 * before the next starts); each makes exactly K sched_yield calls and
 * exits. "done" comes once the kernel has finished every one's exit
 * (/proc/self/task holds the main thread alone). M may be far more than
 * spinscope's thread map holds (--max-threads): the yields must still add
 * up to M x K. Only the joins use futexes.
 */
#include "workload.h"

#define MAX_BATCH 256

static unsigned long n_yields;

static void *worker(void *arg __attribute__((unused)))
{
	for (unsigned long i = 0; i < n_yields; i++)
		syscall(SYS_sched_yield);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_BATCH];
	unsigned long m, b, started = 0;
	int err;

	wl_init();
	if (argc != 4)
		wl_fail("usage: thread_churn M K B");
	m = wl_arg(argv[1], "M");
	n_yields = wl_arg(argv[2], "K");
	b = wl_arg(argv[3], "B");
	if (b > MAX_BATCH)
		wl_fail("B: at most %d threads at a time", MAX_BATCH);
	wl_ready("threads=%lu n=%lu batch=%lu", m, n_yields, b);
	while (started < m) {
		unsigned long n = m - started < b ? m - started : b;

		for (unsigned long i = 0; i < n; i++)
			if ((err = pthread_create(&th[i], NULL, worker, NULL)))
				wl_fail("pthread_create: %s", strerror(err));
		for (unsigned long i = 0; i < n; i++)
			if ((err = pthread_join(th[i], NULL)))
				wl_fail("pthread_join: %s", strerror(err));
		started += n;
	}
	while (wl_count_threads() > 1)
		wl_sleep_ms(1);
	wl_done();
	wl_linger();
}

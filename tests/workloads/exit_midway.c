// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a process that ends while it is being traced.
 *
 *   exit_midway N MS
 *
 * After go, a second thread makes N sched_yield calls and then blocks; the
 * main thread makes N sched_yield calls, prints "done" MS ms after go and
 * calls exit(), which takes the blocked thread down with it. The test traces
 * it with a duration far longer than MS and expects spinscope to notice the
 * exit, end early and still report the 2N yields.
 */
#include "workload.h"

static unsigned long n_yields;
static int go_pipe[2], done_pipe[2];

static void yield_many(void)
{
	for (unsigned long i = 0; i < n_yields; i++)
		syscall(SYS_sched_yield);
}

static void *worker(void *arg __attribute__((unused)))
{
	char c = 0;

	wl_read_all(go_pipe[0], &c, 1);
	yield_many();
	wl_write_all(done_pipe[1], &c, 1);
	for (;;)
		pause();	/* until exit() ends us */
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec start, now;
	unsigned long ms, spent_ms;
	char c = 0;

	wl_init();
	if (argc != 3)
		wl_fail("usage: exit_midway N MS");
	n_yields = wl_arg(argv[1], "N");
	ms = wl_arg(argv[2], "MS");
	if (pipe(go_pipe) || pipe(done_pipe))
		wl_fail("pipe: %s", strerror(errno));
	wl_thread_start(worker);

	wl_ready("n=%lu exit_after_ms=%lu", n_yields, ms);
	clock_gettime(CLOCK_MONOTONIC, &start);
	wl_write_all(go_pipe[1], &c, 1);
	yield_many();
	wl_read_all(done_pipe[0], &c, 1);
	clock_gettime(CLOCK_MONOTONIC, &now);
	spent_ms = (unsigned long)((now.tv_sec - start.tv_sec) * 1000 +
				   (now.tv_nsec - start.tv_nsec) / 1000000);
	if (spent_ms < ms)
		wl_sleep_ms(ms - spent_ms);
	wl_done();
	exit(0);
}

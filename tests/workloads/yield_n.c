// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: each of K threads makes exactly N sched_yield system calls.
 *
 *   yield_n N K         threads exist before go; "ready" lists their tids
 *   yield_n N K late    threads are created after go (after spinscope has
 *                       attached), yield, and exit before "done"; "done"
 *                       lists their tids
 *
 * Between go and "done" the threads talk only through pipes: no futex call
 * and no other sched_yield, so the test can assert exact counts. "ready"
 * prints the run-time addresses of yield_many() and worker(), the functions
 * the yield call sites must point at.
 */
#include "workload.h"

#define MAX_THREADS 64

static unsigned long n_yields;
static bool late;
static int go_pipe[2];		/* main -> workers: one byte each to start */
static int tid_pipe[2];		/* workers -> main: their tid, once started */
static int done_pipe[2];	/* workers -> main: one byte each when done */

/* Not inlined: the yield call site is a frame the test can name. */
static void __attribute__((noinline)) yield_many(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_sched_yield);
}

static void *worker(void *arg __attribute__((unused)))
{
	pid_t tid = wl_gettid();
	char c = 0;

	wl_write_all(tid_pipe[1], &tid, sizeof(tid));
	if (!late)
		wl_read_all(go_pipe[0], &c, 1);
	yield_many(n_yields);
	wl_write_all(done_pipe[1], &c, 1);
	if (late)
		return NULL;	/* a thread that comes and goes */
	/* Stay, idle (an exit would wake a joiner through the kernel's futex),
	 * and off the go pipe: a worker still to start needs its byte. */
	for (;;)
		pause();
	return NULL;
}

static void start_workers(unsigned long k)
{
	for (unsigned long i = 0; i < k; i++)
		wl_thread_start(worker);
}

/* "a,b,c": the tids the workers reported, in the order they started. */
static void collect_tids(unsigned long k, char *list, size_t size)
{
	size_t len = 0;

	list[0] = 0;
	for (unsigned long i = 0; i < k; i++) {
		pid_t tid;

		wl_read_all(tid_pipe[0], &tid, sizeof(tid));
		len += (size_t)snprintf(list + len, size - len, "%s%d", i ? "," : "", tid);
		if (len >= size)
			wl_fail("tid list too long");
	}
}

int main(int argc, char **argv)
{
	char tids[MAX_THREADS * 12], buf[MAX_THREADS];
	unsigned long k;

	wl_init();
	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "late")))
		wl_fail("usage: yield_n N K [late]");
	n_yields = wl_arg(argv[1], "N");
	k = wl_arg(argv[2], "K");
	late = argc == 4;
	if (k > MAX_THREADS)
		wl_fail("K: at most %d threads", MAX_THREADS);
	if (pipe(go_pipe) || pipe(tid_pipe) || pipe(done_pipe))
		wl_fail("pipe: %s", strerror(errno));

	if (late) {
		wl_ready("n=%lu threads=%lu late yield_fn=%p worker_fn=%p", n_yields, k,
			 (void *)yield_many, (void *)worker);
		start_workers(k);
		collect_tids(k, tids, sizeof(tids));
		wl_read_all(done_pipe[0], buf, k);
		/* "done" only once the kernel has finished every worker's exit. */
		while (wl_count_threads() > 1)
			wl_sleep_ms(1);
		printf("done tids=%s\n", tids);
		fflush(stdout);
	} else {
		start_workers(k);
		collect_tids(k, tids, sizeof(tids));
		wl_ready("n=%lu threads=%lu tids=%s yield_fn=%p worker_fn=%p", n_yields, k, tids,
			 (void *)yield_many, (void *)worker);
		memset(buf, 0, sizeof(buf));
		wl_write_all(go_pipe[1], buf, k);
		wl_read_all(done_pipe[0], buf, k);
		wl_done();
	}
	wl_linger();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one thread ends while the process goes on.
 *
 *   thread_exit N
 *
 * "ready" lists the worker's tid. After go, the worker makes N sched_yield
 * calls and returns (its thread exits); the main thread joins it, prints
 * "done" and stays alive, idle, until killed. A trace of -t WORKER must end
 * when the worker does, with its N yields, though the process lives on.
 */
#include "workload.h"

static unsigned long n_yields;
static int go_pipe[2], tid_pipe[2];

static void *worker(void *arg __attribute__((unused)))
{
	pid_t tid = wl_gettid();
	char c;

	wl_write_all(tid_pipe[1], &tid, sizeof(tid));
	wl_read_all(go_pipe[0], &c, 1);
	for (unsigned long i = 0; i < n_yields; i++)
		syscall(SYS_sched_yield);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t tid;
	char c = 0;
	int err;

	wl_init();
	if (argc != 2)
		wl_fail("usage: thread_exit N");
	n_yields = wl_arg(argv[1], "N");
	if (pipe(go_pipe) || pipe(tid_pipe))
		wl_fail("pipe: %s", strerror(errno));
	err = pthread_create(&th, NULL, worker, NULL);
	if (err)
		wl_fail("pthread_create: %s", strerror(err));
	wl_read_all(tid_pipe[0], &tid, sizeof(tid));
	wl_ready("n=%lu tids=%d", n_yields, (int)tid);
	wl_write_all(go_pipe[1], &c, 1);
	err = pthread_join(th, NULL);
	if (err)
		wl_fail("pthread_join: %s", strerror(err));
	wl_done();
	wl_linger();
}

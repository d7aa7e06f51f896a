// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a process that names itself and its thread with whatever bytes
 * a hostile program would (issue 30: terminal escapes, a newline), then
 * makes the traced events that put those names into every output: a
 * worker thread waits N times on a mutex the main thread holds (a futex
 * wait each, the holder waits until the kernel shows the worker blocked)
 * and makes exactly N sched_yield calls.
 *
 *   hostile_names PROC_NAME THREAD_NAME N
 *
 * The names are set with prctl(PR_SET_NAME) (what pthread_setname_np does
 * for the calling thread), cut by the kernel to 15 bytes. "ready" gives
 * the worker's tid and the mutex's address.
 */
#include "workload.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *thread_name;
static int go_pipe[2];		/* main -> worker: one byte a round */
static int back_pipe[2];	/* worker -> main: one byte a round, its tid first */
static unsigned long rounds;

static void *worker(void *arg __attribute__((unused)))
{
	pid_t tid = wl_gettid();
	char c;

	prctl(PR_SET_NAME, thread_name);
	wl_write_all(back_pipe[1], &tid, sizeof(tid));
	for (unsigned long i = 0; i < rounds; i++) {
		wl_read_all(go_pipe[0], &c, 1);
		pthread_mutex_lock(&lock);	/* held by main: a futex wait */
		pthread_mutex_unlock(&lock);
		syscall(SYS_sched_yield);
		wl_write_all(back_pipe[1], &c, 1);
	}
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pid_t tid;
	char c = 0;

	wl_init();
	if (argc != 4)
		wl_fail("usage: hostile_names PROC_NAME THREAD_NAME N");
	rounds = wl_arg(argv[3], "N");
	thread_name = argv[2];
	if (pipe(go_pipe) || pipe(back_pipe))
		wl_fail("pipe: %s", strerror(errno));
	prctl(PR_SET_NAME, argv[1]);
	wl_thread_start(worker);
	wl_read_all(back_pipe[0], &tid, sizeof(tid));
	wl_ready("n=%lu tids=%d lock=%p", rounds, (int)tid, (void *)&lock);
	for (unsigned long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		wl_write_all(go_pipe[1], &c, 1);
		while (!wl_blocked_in_futex(tid, &lock))
			wl_sleep_ms(1);
		pthread_mutex_unlock(&lock);
		wl_read_all(back_pipe[0], &c, 1);
	}
	wl_done();
	wl_linger();
}

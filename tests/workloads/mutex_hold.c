// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one pthread mutex, held by the main thread for HOLD ms at a time
 * while T waiter threads block on it, for R rounds.
 *
 *   mutex_hold T R HOLD
 *
 * Each round: main locks the mutex, releases the T waiters (through a pipe),
 * sleeps HOLD ms holding it, unlocks, and waits for every waiter to have
 * taken and dropped it once (each holds it 1 ms). Nothing else in the process
 * blocks on a futex, so the mutex is by far the most waited-on address; the
 * waiters block inside contend_on_mutex(), which the test can look for in
 * their stacks. "ready" prints the mutex's address (&mutex, where glibc keeps
 * the futex word) and the run-time addresses of contend_on_mutex() and of
 * waiter(), its caller: a frame-pointer unwind through glibc (built without
 * frame pointers) may skip the innermost of the two.
 */
#include "workload.h"

#define MAX_WAITERS 32

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static int go_pipe[2];		/* main -> waiters: one byte per waiter per round */
static int ack_pipe[2];		/* waiters -> main: one byte after each lock */

/* Not inlined: the frame that names where the waiters block. */
static void __attribute__((noinline)) contend_on_mutex(void)
{
	int err = pthread_mutex_lock(&mutex);

	if (err)
		wl_fail("pthread_mutex_lock: %s", strerror(err));
	wl_sleep_ms(1);
	pthread_mutex_unlock(&mutex);
}

static void *waiter(void *arg __attribute__((unused)))
{
	char c;

	for (;;) {
		wl_read_all(go_pipe[0], &c, 1);
		contend_on_mutex();
		wl_write_all(ack_pipe[1], &c, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long t, rounds, hold_ms;
	char buf[MAX_WAITERS] = {0};

	wl_init();
	if (argc != 4)
		wl_fail("usage: mutex_hold T R HOLD");
	t = wl_arg(argv[1], "T");
	rounds = wl_arg(argv[2], "R");
	hold_ms = wl_arg(argv[3], "HOLD");
	if (t > MAX_WAITERS)
		wl_fail("T: at most %d waiters", MAX_WAITERS);
	if (pipe(go_pipe) || pipe(ack_pipe))
		wl_fail("pipe: %s", strerror(errno));
	for (unsigned long i = 0; i < t; i++)
		wl_thread_start(waiter);

	wl_ready("mutex=%p waiters=%lu rounds=%lu hold_ms=%lu lock_fn=%p waiter_fn=%p",
		 (void *)&mutex, t, rounds, hold_ms, (void *)contend_on_mutex, (void *)waiter);
	for (unsigned long r = 0; r < rounds; r++) {
		pthread_mutex_lock(&mutex);
		wl_write_all(go_pipe[1], buf, t);
		wl_sleep_ms(hold_ms);
		pthread_mutex_unlock(&mutex);
		wl_read_all(ack_pipe[0], buf, t);
	}
	wl_done();
	wl_linger();
}

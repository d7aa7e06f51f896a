// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: two threads, A and B, whose tids are equal modulo SLOTS (the
 * tracer's thread-record slots, SS_THREAD_SLOTS in bpf/trace.h: one slot
 * holds one of them, the other's record is in the threads hash), each
 * making exactly N sched_yield system calls.
 *
 *   slot_mates SLOTS N         A and B exist before go (spinscope seeds
 *                              their records at attach); "ready" gives
 *                              their tids: "a=TID b=TID"
 *   slot_mates SLOTS N late    A and B are made after go (the tracer makes
 *                              their records as they run: A's first);
 *                              "done" gives their tids
 *
 * B is found by making threads until one's tid falls in A's slot: the
 * others return at once and are joined (a kernel hands out tids in turn,
 * so about SLOTS of them). A and B stay alive, idle, after their yields,
 * so that neither tid is reused before the trace ends.
 */
#include "workload.h"

#define MAX_TRIES 200000

static unsigned long slots, n_yields;
static bool late;
static int go_pipe[2];		/* main -> A and B: one byte each to start */
static int done_pipe[2];	/* A and B -> main: one byte each when done */
static pid_t a_tid, b_tid;
static int decided;		/* the candidate has looked at its tid */

static void __attribute__((noinline)) yield_many(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_sched_yield);
}

/* A, or B: waits for go (unless late), yields, stays. */
static void mate(void)
{
	char c = 0;

	if (!late)
		wl_read_all(go_pipe[0], &c, 1);
	yield_many(n_yields);
	wl_write_all(done_pipe[1], &c, 1);
	for (;;)
		pause();
}

static void *a_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&a_tid, wl_gettid(), __ATOMIC_RELEASE);
	mate();
	return NULL;
}

/* A candidate for B: B if its tid falls in A's slot, else gone at once. */
static void *candidate(void *arg)
{
	pid_t tid = wl_gettid();

	(void)arg;
	if ((unsigned long)tid % slots != (unsigned long)__atomic_load_n(&a_tid, __ATOMIC_ACQUIRE) % slots) {
		__atomic_store_n(&decided, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_store_n(&b_tid, tid, __ATOMIC_RELEASE);
	__atomic_store_n(&decided, 1, __ATOMIC_RELEASE);
	mate();
	return NULL;
}

/* Starts A, then candidates until B: false if none came in MAX_TRIES. */
static bool start_mates(void)
{
	pthread_t th;

	wl_thread_start(a_main);
	while (!__atomic_load_n(&a_tid, __ATOMIC_ACQUIRE))
		wl_sleep_ms(1);
	for (int i = 0; i < MAX_TRIES; i++) {
		int err;

		__atomic_store_n(&decided, 0, __ATOMIC_RELEASE);
		err = pthread_create(&th, NULL, candidate, NULL);
		if (err)
			wl_fail("pthread_create: %s", strerror(err));
		/* B never returns: wait (without a system call: no yields but
		 * A's and B's) for the candidate to look, then join the others. */
		while (!__atomic_load_n(&decided, __ATOMIC_ACQUIRE))
			;
		if (__atomic_load_n(&b_tid, __ATOMIC_ACQUIRE))
			return true;
		pthread_join(th, NULL);
	}
	return false;
}

int main(int argc, char **argv)
{
	char buf[2] = { 0, 0 };

	wl_init();
	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "late")))
		wl_fail("usage: slot_mates SLOTS N [late]");
	slots = wl_arg(argv[1], "SLOTS");
	n_yields = wl_arg(argv[2], "N");
	late = argc == 4;
	if (!slots)
		wl_fail("SLOTS: at least 1");
	if (pipe(go_pipe) || pipe(done_pipe))
		wl_fail("pipe: %s", strerror(errno));
	if (late) {
		wl_ready("slots=%lu n=%lu late", slots, n_yields);
		if (!start_mates())
			wl_fail("no tid in A's slot after %d threads", MAX_TRIES);
		wl_read_all(done_pipe[0], buf, 2);
		printf("done a=%d b=%d\n", (int)a_tid, (int)__atomic_load_n(&b_tid, __ATOMIC_ACQUIRE));
		fflush(stdout);
	} else {
		if (!start_mates())
			wl_fail("no tid in A's slot after %d threads", MAX_TRIES);
		wl_ready("slots=%lu n=%lu a=%d b=%d", slots, n_yields, (int)a_tid,
			 (int)__atomic_load_n(&b_tid, __ATOMIC_ACQUIRE));
		wl_write_all(go_pipe[1], buf, 2);
		wl_read_all(done_pipe[0], buf, 2);
		wl_done();
	}
	wl_linger();
}

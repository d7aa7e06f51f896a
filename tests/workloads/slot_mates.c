// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: two threads, A and B, whose tids are equal modulo SLOTS (the
 * tracer's thread-record slots, SS_THREAD_SLOTS in bpf/trace.h: one slot
 * holds one of them, the other's record is in the threads hash), each
 * making exactly N sched_yield system calls and N FUTEX_WAKE calls on a
 * word nobody waits on (each wakes 0): the yields find a thread's record
 * by making it, the futex exits by looking it up.
 *
 *   slot_mates SLOTS N         A and B exist before go (spinscope seeds
 *                              their records at attach); "ready" gives
 *                              their tids: "a=TID b=TID"
 *   slot_mates SLOTS N late    A and B are made after go (the tracer makes
 *                              their records as they run: A's first);
 *                              "done" gives their tids
 *   slot_mates SLOTS N late-exit  as late, then, both done, A exits (the
 *                              tracer frees its slot) and, once it is
 *                              gone, B makes N calls more: B's record, in the hash, must
 *                              stay its one record (issue 30 item 2)
 *
 * B is found by making threads until one's tid falls in A's slot: the
 * others return at once and are joined (a kernel hands out tids in turn,
 * so about SLOTS of them). A is never in the main thread's slot (that
 * would put both A and B in the hash). A and B stay alive, idle, after
 * their calls, so that neither tid is reused before the trace ends.
 */
#include <linux/futex.h>
#include "workload.h"

#define MAX_TRIES 200000

static unsigned long slots, n_calls;
static bool late, a_exits;
static int exit_pipe[2];	/* main -> A: B has made its calls, exit */
static int again_pipe[2];	/* main -> B: A is gone, make N calls more */
static int go_pipe[2];		/* main -> A and B: one byte each to start */
static int done_pipe[2];	/* A and B -> main: one byte each when done */
static int look_pipe[2];	/* a candidate -> main: 'B' or 'x', its verdict */
static pid_t a_tid, b_tid;
static uint32_t wake_word;	/* nobody waits on it */

static void __attribute__((noinline)) calls(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		syscall(SYS_sched_yield);
		if (syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) != 0)
			wl_fail("FUTEX_WAKE with nobody waiting woke someone, or failed");
	}
}

/* A, or B: waits for go (unless late), yields, stays. */
static void mate(void)
{
	char c = 0;

	if (!late)
		wl_read_all(go_pipe[0], &c, 1);
	calls(n_calls);
	wl_write_all(done_pipe[1], &c, 1);
	if (a_exits && wl_gettid() == a_tid) {
		wl_read_all(exit_pipe[0], &c, 1);
		return;
	}
	if (a_exits) {
		wl_read_all(again_pipe[0], &c, 1);
		calls(n_calls);
		wl_write_all(done_pipe[1], &c, 1);
	}
	for (;;)
		pause();
}

/* Until tid is no thread of this process: past its exit, and past the
 * tracer's sched_process_exit program (which runs before the kernel
 * unhashes the task; a join returns earlier, at the clearing of its tid). */
static void wait_gone(pid_t tid)
{
	for (int i = 0; syscall(SYS_tgkill, getpid(), tid, 0) == 0; i++) {
		if (i == WL_MAX_SECONDS * 1000)
			wl_fail("thread %d still there after %d s", (int)tid, WL_MAX_SECONDS);
		wl_sleep_ms(1);
	}
	if (errno != ESRCH)
		wl_fail("tgkill %d: %s", (int)tid, strerror(errno));
}

static bool in_main_slot(pid_t tid)
{
	return (unsigned long)tid % slots == (unsigned long)getpid() % slots;
}

/* A candidate for A (a_tid still 0: A unless in the main thread's slot)
 * or for B (B if in A's slot); one that is neither says so and returns. */
static void *candidate(void *arg)
{
	pid_t tid = wl_gettid(), a = __atomic_load_n(&a_tid, __ATOMIC_ACQUIRE);
	char verdict = 'x';

	(void)arg;
	if (!a && !in_main_slot(tid)) {
		__atomic_store_n(&a_tid, tid, __ATOMIC_RELEASE);
		verdict = 'A';
	} else if (a && (unsigned long)tid % slots == (unsigned long)a % slots) {
		__atomic_store_n(&b_tid, tid, __ATOMIC_RELEASE);
		verdict = 'B';
	}
	wl_write_all(look_pipe[1], &verdict, 1);
	if (verdict != 'x')
		mate();
	return NULL;
}

/* Candidates until A, then until B: false if none came in MAX_TRIES. The
 * main thread waits for each verdict on a pipe (blocked, not spinning: a
 * loaded host may have no CPU for the candidate else). */
static bool start_mates(void)
{
	pthread_t th;

	for (int i = 0; i < MAX_TRIES; i++) {
		int err = pthread_create(&th, NULL, candidate, NULL);
		char verdict;

		if (err)
			wl_fail("pthread_create: %s", strerror(err));
		wl_read_all(look_pipe[0], &verdict, 1);
		if (verdict == 'B')
			return true;
		if (verdict == 'x')
			pthread_join(th, NULL);
	}
	return false;
}

int main(int argc, char **argv)
{
	char buf[2] = { 0, 0 };

	wl_init();
	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "late") && strcmp(argv[3], "late-exit")))
		wl_fail("usage: slot_mates SLOTS N [late|late-exit]");
	slots = wl_arg(argv[1], "SLOTS");
	n_calls = wl_arg(argv[2], "N");
	late = argc == 4;
	a_exits = late && !strcmp(argv[3], "late-exit");
	if (!slots)
		wl_fail("SLOTS: at least 1");
	if (pipe(go_pipe) || pipe(done_pipe) || pipe(look_pipe) || pipe(exit_pipe) ||
	    pipe(again_pipe))
		wl_fail("pipe: %s", strerror(errno));
	if (late) {
		wl_ready("slots=%lu n=%lu %s", slots, n_calls, argv[3]);
		if (!start_mates())
			wl_fail("no tid in A's slot after %d threads", MAX_TRIES);
		wl_read_all(done_pipe[0], buf, 2);
		if (a_exits) {
			wl_write_all(exit_pipe[1], buf, 1);
			wait_gone(a_tid);
			wl_write_all(again_pipe[1], buf, 1);
			wl_read_all(done_pipe[0], buf, 1);
		}
		printf("done a=%d b=%d\n", (int)a_tid, (int)__atomic_load_n(&b_tid, __ATOMIC_ACQUIRE));
		fflush(stdout);
	} else {
		if (!start_mates())
			wl_fail("no tid in A's slot after %d threads", MAX_TRIES);
		wl_ready("slots=%lu n=%lu a=%d b=%d", slots, n_calls, (int)a_tid,
			 (int)__atomic_load_n(&b_tid, __ATOMIC_ACQUIRE));
		wl_write_all(go_pipe[1], buf, 2);
		wl_read_all(done_pipe[0], buf, 2);
		wl_done();
	}
	wl_linger();
}

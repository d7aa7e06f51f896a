// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: the user's functions call Debian's own glibc (built without
 * frame pointers) where it blocks or yields, the stacks the CFI unwinder
 * exists for. Built -O2 -fno-omit-frame-pointer (mk/unwind.mk), as a user
 * would build it.
 *
 *   frameless_callers N
 *
 * After go, until "done":
 *   - 2 threads call sched_yield() N times each from yield_spin();
 *   - 3 threads take one mutex N times each from lock_and_hold(), holding
 *     it across a 50 us sleep, so the others block in __lll_lock_wait;
 *   - 1 thread waits N times in pthread_cond_wait() from wait_for_turn(),
 *     signalled by the main thread from hand_over() once per millisecond.
 * "ready" prints the mutex's address and the condition variable's range
 * [cond, cond_end), where its futex words are.
 */
#include "workload.h"

#define YIELDERS 2
#define LOCKERS 3
#define THREADS (YIELDERS + LOCKERS + 1)

static unsigned long n_iter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static unsigned long turns_given, turns_taken;
static int go_pipe[2], done_pipe[2];

/* Not inlined, and each call followed by work: every name below is a
 * frame of its own on the stack. */
static void __attribute__((noinline)) yield_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		sched_yield();
		__asm__ volatile("" ::: "memory");
	}
}

static void __attribute__((noinline)) lock_and_hold(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		struct timespec ts = { .tv_nsec = 50000 };

		pthread_mutex_lock(&lock);
		nanosleep(&ts, NULL);
		pthread_mutex_unlock(&lock);
		__asm__ volatile("" ::: "memory");
	}
}

static void __attribute__((noinline)) wait_for_turn(unsigned long n)
{
	pthread_mutex_lock(&turn_lock);
	while (turns_taken < n) {
		while (turns_given == turns_taken)
			pthread_cond_wait(&turn, &turn_lock);
		turns_taken++;
	}
	pthread_mutex_unlock(&turn_lock);
}

static void __attribute__((noinline)) hand_over(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		wl_sleep_ms(1);
		pthread_mutex_lock(&turn_lock);
		turns_given++;
		pthread_cond_signal(&turn);
		pthread_mutex_unlock(&turn_lock);
	}
}

static void *worker(void *arg)
{
	long kind = (long)arg;
	char c;

	wl_read_all(go_pipe[0], &c, 1);
	if (kind < YIELDERS)
		yield_spin(n_iter);
	else if (kind < YIELDERS + LOCKERS)
		lock_and_hold(n_iter);
	else
		wait_for_turn(n_iter);
	wl_write_all(done_pipe[1], &c, 1);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	char c = 0;

	wl_init();
	if (argc != 2)
		wl_fail("usage: frameless_callers N");
	n_iter = wl_arg(argv[1], "N");
	if (pipe(go_pipe) || pipe(done_pipe))
		wl_fail("pipe: %s", strerror(errno));
	for (long k = 0; k < THREADS; k++) {
		pthread_t th;
		int err = pthread_create(&th, NULL, worker, (void *)k);

		if (err)
			wl_fail("pthread_create: %s", strerror(err));
	}
	wl_ready("mutex=%p cond=%p cond_end=%p", (void *)&lock, (void *)&turn, (void *)(&turn + 1));
	for (int k = 0; k < THREADS; k++)
		wl_write_all(go_pipe[1], &c, 1);
	hand_over(n_iter);
	for (int k = 0; k < THREADS; k++)
		wl_read_all(done_pipe[0], &c, 1);
	printf("done\n");
	for (;;)
		pause();
}

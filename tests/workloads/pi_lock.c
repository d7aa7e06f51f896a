// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: FUTEX_LOCK_PI calls whose outcome is known, on one PI lock
 * word. The call returns 0 once the lock is taken, whether the thread
 * slept for it or found it free in the kernel; the tracer must tell the two
 * apart (blocked vs returned at once).
 *
 *   pi_lock N P
 *
 *   N times the main thread locks the free word with FUTEX_LOCK_PI (the
 *     kernel takes it at once: no sleep) and unlocks it with
 *     FUTEX_UNLOCK_PI (nobody waits: wakes no one);
 *   P rounds in which the holder thread locks the free word the same way
 *     (at once), then the main thread's FUTEX_LOCK_PI blocks on it: the
 *     holder unlocks only once the kernel has queued the main thread
 *     (FUTEX_WAITERS in the word) and it sleeps (off CPU in futex(2), from
 *     /proc), so that the lock is handed over to a sleeper; then the main
 *     thread unlocks it, with nobody waiting.
 *
 * So on the word: waits N + 2P, of which P blocked (the main thread's
 * in the rounds) and N + P returned at once; wakes N + 2P, which woke P.
 * Every call is a raw futex(2) syscall checked for its result. "ready"
 * prints the word ("word=0x...") and both tids.
 */
#include <linux/futex.h>
#include "workload.h"

static uint32_t word;
static unsigned long rounds;
static int lock_pipe[2], locked_pipe[2];
static pid_t main_tid;

static void pi_call(int op, const char *what)
{
	if (syscall(SYS_futex, &word, op | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0))
		wl_fail("%s: %s (word 0x%x)", what, strerror(errno), (unsigned)word);
}

/* Each round: take the free lock, say so, hold it until the main thread
 * is queued on it and asleep, then hand it over. */
static void *holder(void *arg __attribute__((unused)))
{
	char c;

	for (unsigned long i = 0; i < rounds; i++) {
		wl_read_all(lock_pipe[0], &c, 1);
		pi_call(FUTEX_LOCK_PI, "holder lock");
		wl_write_all(locked_pipe[1], &c, 1);
		while (!(__atomic_load_n(&word, __ATOMIC_ACQUIRE) & FUTEX_WAITERS) ||
		       !wl_blocked_in_futex(main_tid, &word))
			wl_sleep_ms(1);
		pi_call(FUTEX_UNLOCK_PI, "holder unlock");
	}
	wl_linger();
}

int main(int argc, char **argv)
{
	unsigned long n;
	char c = 0;

	wl_init();
	if (argc != 3)
		wl_fail("usage: pi_lock N P");
	n = wl_arg(argv[1], "N");
	rounds = wl_arg(argv[2], "P");
	if (pipe(lock_pipe) || pipe(locked_pipe))
		wl_fail("pipe: %s", strerror(errno));
	main_tid = wl_gettid();
	wl_thread_start(holder);
	wl_ready("word=%p main_tid=%d", (void *)&word, (int)main_tid);

	for (unsigned long i = 0; i < n; i++) {
		pi_call(FUTEX_LOCK_PI, "free lock");
		pi_call(FUTEX_UNLOCK_PI, "free unlock");
	}
	for (unsigned long i = 0; i < rounds; i++) {
		wl_write_all(lock_pipe[1], &c, 1);
		wl_read_all(locked_pipe[0], &c, 1);
		pi_call(FUTEX_LOCK_PI, "contended lock");	/* sleeps until handed over */
		if ((word & FUTEX_TID_MASK) != (uint32_t)main_tid)
			wl_fail("contended lock: word 0x%x, not owned by %d", (unsigned)word,
				(int)main_tid);
		pi_call(FUTEX_UNLOCK_PI, "contended unlock");
	}
	wl_done();
	wl_linger();
}

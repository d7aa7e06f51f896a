// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: futex calls whose number, length and outcome are known, each
 * kind on its own futex word so that the test can check every address.
 *
 *   futex_wait K M T A W I
 *
 *   K waits on word "woken", each ended by a FUTEX_WAKE from the waker
 *     thread (which retries its wake until it wakes someone: it makes K
 *     successful wakes, and some that woke nobody)
 *   M waits on word "timed" with a timeout of T ms: each ends ETIMEDOUT;
 *     "done timed_ns=N" says how long the M calls took, measured around
 *     each (a traced wait lies inside its call, so it is an upper bound
 *     that holds however slow the host is)
 *   A waits on word "again" with a stale expected value: each ends EAGAIN
 *   W wakes on word "wake" with nobody waiting: each wakes 0
 *   I waits on word "intr", each interrupted by a signal (a handler
 *     without SA_RESTART) that the interrupter thread sends 10 ms after it
 *     has seen the wait blocked: each ends EINTR and lasts at least 10 ms.
 *     (A timer armed before the call fired before it under TCG on a busy
 *     host: the wait came out short, or, the signal taken before the call,
 *     blocked for ever.)
 *
 * Every call is a raw futex(2) syscall and the workload checks each result,
 * failing loudly if the kernel did something else, so the test's expected
 * counts are facts. "ready" prints each word's address (a "0x" value).
 */
#include <linux/futex.h>
#include "workload.h"

#define INTR_AFTER_MS 10

static uint32_t woken_word, timed_word, again_word = 1, wake_word, intr_word;
static unsigned long k_woken;
static int start_pipe[2], finished_pipe[2], intr_pipe[2];
static unsigned long n_intr;
static pid_t main_tid;

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

static void expect(long ret, long want, int want_errno, const char *what)
{
	if (ret == want && (ret == 0 || errno == want_errno))
		return;
	if (ret < 0)
		wl_fail("%s: returned %ld (%s), expected %ld%s%s", what, ret, strerror(errno),
			want, want < 0 ? " " : "", want < 0 ? strerror(want_errno) : "");
	wl_fail("%s: returned %ld, expected %ld", what, ret, want);
}

/* Wakes the main thread K times; a wake that finds no waiter is retried. */
static void *waker(void *arg __attribute__((unused)))
{
	char c = 0;

	wl_read_all(start_pipe[0], &c, 1);
	for (unsigned long done = 0; done < k_woken; ) {
		long r = futex(&woken_word, FUTEX_WAKE_PRIVATE, 1, NULL);

		if (r < 0)
			wl_fail("waker: futex wake: %s", strerror(errno));
		if (r == 1)
			done++;
		else
			wl_sleep_ms(1);
	}
	wl_write_all(finished_pipe[1], &c, 1);
	for (;;)
		pause();	/* stay, idle: an exit would wake through a futex */
	return NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig __attribute__((unused)))
{
}

/* For each of the main thread's waits on "intr" (it writes intr_pipe just
 * before): once it is blocked there, INTR_AFTER_MS later, SIGUSR2 to it.
 * No futex call of its own; it stays, as the waker does. */
static void *interrupter(void *arg __attribute__((unused)))
{
	char c;

	for (unsigned long i = 0; i < n_intr; i++) {
		wl_read_all(intr_pipe[0], &c, 1);
		while (!wl_blocked_in_futex(main_tid, &intr_word))
			wl_sleep_ms(1);
		wl_sleep_ms(INTR_AFTER_MS);
		if (syscall(SYS_tgkill, getpid(), main_tid, SIGUSR2))
			wl_fail("tgkill: %s", strerror(errno));
	}
	wl_linger();
}

static void handle_sigusr2(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL))
		wl_fail("sigaction: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	unsigned long m, t_ms, a, w;
	struct timespec timeout;
	uint64_t timed_ns = 0, t0;
	char c = 0;

	wl_init();
	if (argc != 7)
		wl_fail("usage: futex_wait K M T A W I");
	k_woken = wl_arg(argv[1], "K");
	m = wl_arg(argv[2], "M");
	t_ms = wl_arg(argv[3], "T");
	a = wl_arg(argv[4], "A");
	w = wl_arg(argv[5], "W");
	n_intr = wl_arg(argv[6], "I");
	timeout = (struct timespec){ .tv_sec = t_ms / 1000, .tv_nsec = (t_ms % 1000) * 1000000L };
	if (pipe(start_pipe) || pipe(finished_pipe) || pipe(intr_pipe))
		wl_fail("pipe: %s", strerror(errno));
	main_tid = wl_gettid();
	handle_sigusr2();
	wl_thread_start(waker);
	wl_thread_start(interrupter);

	wl_ready("main_tid=%d woken=%p timed=%p again=%p wake=%p intr=%p",
		 wl_gettid(), (void *)&woken_word, (void *)&timed_word,
		 (void *)&again_word, (void *)&wake_word, (void *)&intr_word);

	wl_write_all(start_pipe[1], &c, 1);
	for (unsigned long i = 0; i < k_woken; i++)
		expect(futex(&woken_word, FUTEX_WAIT_PRIVATE, 0, NULL), 0, 0, "woken wait");
	/* The waker's last wake call has returned: its count is final. */
	wl_read_all(finished_pipe[0], &c, 1);
	for (unsigned long i = 0; i < m; i++) {
		t0 = mono_ns();
		expect(futex(&timed_word, FUTEX_WAIT_PRIVATE, 0, &timeout), -1, ETIMEDOUT,
		       "timed wait");
		timed_ns += mono_ns() - t0;
	}
	for (unsigned long i = 0; i < a; i++)
		expect(futex(&again_word, FUTEX_WAIT_PRIVATE, 0, NULL), -1, EAGAIN, "stale wait");
	for (unsigned long i = 0; i < w; i++)
		expect(futex(&wake_word, FUTEX_WAKE_PRIVATE, 1, NULL), 0, 0, "idle wake");
	for (unsigned long i = 0; i < n_intr; i++) {
		wl_write_all(intr_pipe[1], &c, 1);
		expect(futex(&intr_word, FUTEX_WAIT_PRIVATE, 0, NULL), -1, EINTR,
		       "interrupted wait");
	}
	printf("done timed_ns=%llu\n", (unsigned long long)timed_ns);
	fflush(stdout);
	wl_linger();
}

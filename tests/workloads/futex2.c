// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: the futex calls that are not futex(2): futex_waitv (Linux
 * 5.16) and the futex2 calls futex_wait and futex_wake (6.7). glibc makes
 * none of them, so nothing else exercises the tracer's programs for them.
 *
 *   futex2 N
 *
 * A waiter thread blocks N times in futex_waitv on one word, then N times
 * in futex_wait (futex2) on it, each wait with the word's expected value
 * 0, which it keeps: only a wake ends a wait. The main thread wakes each
 * wait with futex_wake (futex2), once the waiter has started that wait
 * (a counter it bumps before each call) and sleeps in it (off CPU in the
 * call, from /proc), so every wait blocks and every wake wakes exactly
 * one. Calls the kernel lacks (ENOSYS) are not made: "ready" says which
 * are ("waitv=1 futex2=1"), the word ("word=0x...") and both tids; with
 * no futex_wake the waits are ended by futex(2) FUTEX_WAKE instead.
 *
 * So on the word: waits 2N if both kinds exist (N with waitv only), all
 * blocked and woken; wakes as many, each waking one.
 */
#include <linux/futex.h>
#include "workload.h"

/* The futex2 calls share one number on every architecture (6.7's unified
 * table); Debian 12's headers predate them. */
#ifndef __NR_futex_wake
#define __NR_futex_wake 454
#define __NR_futex_wait 455
#endif
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_PRIVATE 128
#define MATCH_ANY 0xffffffffUL

static uint32_t word;
/* Global, so that the main thread knows futex_waitv's first argument. */
static struct futex_waitv waitv = { .val = 0, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG };
static unsigned long n_waits;
static bool has_waitv, has_futex2;
static unsigned long started;	/* waits the waiter has begun */
static unsigned long finished;	/* and returned from (its exit traced) */
static pid_t waiter_tid;

static long wait_waitv(void)
{
	return syscall(__NR_futex_waitv, &waitv, 1, 0, NULL, 0);
}

static long wait_futex2(void)
{
	return syscall(__NR_futex_wait, &word, 0UL, MATCH_ANY, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE,
		       NULL, 0);
}

static long wake_one(void)
{
	if (has_futex2)
		return syscall(__NR_futex_wake, &word, MATCH_ANY, 1, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE);
	return syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* A wait that returned for any reason but a wake is a broken count. */
static void one_wait(long (*wait)(void), const char *what)
{
	__atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
	if (wait())
		wl_fail("%s: %s", what, strerror(errno));
	__atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
}

static void *waiter(void *arg __attribute__((unused)))
{
	__atomic_store_n(&waiter_tid, wl_gettid(), __ATOMIC_RELEASE);
	for (unsigned long i = 0; has_waitv && i < n_waits; i++)
		one_wait(wait_waitv, "futex_waitv");
	for (unsigned long i = 0; has_futex2 && i < n_waits; i++)
		one_wait(wait_futex2, "futex_wait");
	wl_linger();
}

/* Whether the kernel has the call: made with arguments it refuses, it
 * fails with EINVAL (or EFAULT), not ENOSYS. */
static bool have(long nr)
{
	return syscall(nr, NULL, 0, 0, 0, 0, 0) == 0 || errno != ENOSYS;
}

int main(int argc, char **argv)
{
	unsigned long total;

	wl_init();
	if (argc != 2)
		wl_fail("usage: futex2 N");
	n_waits = wl_arg(argv[1], "N");
	waitv.uaddr = (uintptr_t)&word;
	has_waitv = have(__NR_futex_waitv);
	has_futex2 = have(__NR_futex_wait) && have(__NR_futex_wake);
	total = n_waits * (has_waitv + has_futex2);
	wl_ready("word=%p main=%d waitv=%d futex2=%d", (void *)&word, wl_gettid(), has_waitv,
		 has_futex2);
	wl_thread_start(waiter);
	for (unsigned long i = 0; i < total; i++) {
		bool by_waitv = has_waitv && i < n_waits;
		long nr = by_waitv ? __NR_futex_waitv : __NR_futex_wait;
		const void *arg0 = by_waitv ? (const void *)&waitv : (const void *)&word;

		/* Wait i+1 begun (so the previous one is over) and asleep. */
		while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) != i + 1 ||
		       !wl_blocked_in(__atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE), nr, arg0))
			wl_sleep_ms(1);
		if (wake_one() != 1)
			wl_fail("wake %lu of %lu woke no one: %s", i + 1, total, strerror(errno));
	}
	/* "done" once the last wait has returned: a woken waiter that has
	 * not run yet is still inside the call, its end not yet seen. */
	while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) != total)
		wl_sleep_ms(1);
	printf("done waits=%lu waiter=%d\n", total, waiter_tid);
	fflush(stdout);
	wl_linger();
}

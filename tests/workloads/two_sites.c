// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one thread alternates between two call sites, N times each:
 * near_site() and far_site() (one frame deeper) each make one sched_yield
 * and one FUTEX_WAIT on the same word that returns at once (EAGAIN: the
 * word never holds the expected value). A stack reused across call sites
 * would give one site the other's events; each site must get exactly N
 * yields and N waits on the word.
 *
 *   two_sites N
 *
 * Between go and "done": raw syscalls only, no other futex or yield.
 * "ready" prints the word's address.
 */
#include <linux/futex.h>
#include "workload.h"

static int word = 1;

static void __attribute__((noinline)) yield_and_wait(void)
{
	syscall(SYS_sched_yield);
	syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

/* Not inlined, and each with its own frame: two call sites at two stack
 * depths, named by the test. */
static void __attribute__((noinline)) near_site(void)
{
	yield_and_wait();
	__asm__ volatile("" ::: "memory");
}

static void __attribute__((noinline)) far_site(void)
{
	volatile char pad[256];

	pad[0] = 0;
	near_site();
	__asm__ volatile("" : : "r"(pad) : "memory");
}

int main(int argc, char **argv)
{
	unsigned long n;

	wl_init();
	if (argc != 2)
		wl_fail("usage: two_sites N");
	n = wl_arg(argv[1], "N");
	wl_ready("word=%p", (void *)&word);
	for (unsigned long i = 0; i < n; i++) {
		near_site();
		far_site();
	}
	wl_done();
	wl_linger();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one thread makes K timed futex waits that block, each at its
 * own stack depth (1 to K frames of descend() above the wait), so the K
 * waits have K different user stacks: more stacks than a small stack map
 * has buckets, whatever their hashes.
 *
 *   many_stacks K
 *
 * Between go and "done": one FUTEX_WAIT of 2 ms per depth on a word that
 * holds the expected value (each blocks and times out), nothing else.
 * "ready" prints the word's address.
 */
#include <linux/futex.h>
#include <time.h>
#include "workload.h"

static int word;

static void __attribute__((noinline)) wait_here(void)
{
	const struct timespec t = { .tv_nsec = 2000000 };
	long ret = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &t, NULL, 0);

	if (ret != -1 || errno != ETIMEDOUT)
		wl_fail("futex wait: %ld (%s), expected a timeout", ret, strerror(errno));
}

/* d frames of its own, then the wait: no tail call, so each frame stays. */
static void __attribute__((noinline)) descend(unsigned long d)
{
	if (d)
		descend(d - 1);
	else
		wait_here();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	unsigned long k;

	wl_init();
	if (argc != 2)
		wl_fail("usage: many_stacks K");
	k = wl_arg(argv[1], "K");
	wl_ready("word=%p", (void *)&word);
	for (unsigned long d = 1; d <= k; d++)
		descend(d);
	wl_done();
	wl_linger();
}

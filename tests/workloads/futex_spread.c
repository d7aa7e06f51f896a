// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one FUTEX_WAKE (nobody waiting) on each of N distinct futex
 * words, in address order, to fill spinscope's per-address map.
 *
 *   futex_spread N
 *
 * "ready" prints the first word's address and the stride between words. The
 * test sizes the map below N and expects exactly the overflow to be counted
 * as dropped, while the per-thread counters still see every call.
 */
#include <linux/futex.h>
#include "workload.h"

#define MAX_WORDS 16384	/* the exports test uses 10,000 */

static uint32_t words[MAX_WORDS];

int main(int argc, char **argv)
{
	unsigned long n;

	wl_init();
	if (argc != 2)
		wl_fail("usage: futex_spread N");
	n = wl_arg(argv[1], "N");
	if (n > MAX_WORDS)
		wl_fail("N: at most %d words", MAX_WORDS);
	wl_ready("first=%p stride=%zu", (void *)&words[0], sizeof(words[0]));
	for (unsigned long i = 0; i < n; i++) {
		long r = syscall(SYS_futex, &words[i], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);

		if (r != 0)
			wl_fail("futex wake on word %lu returned %ld", i, r);
	}
	wl_done();
	wl_linger();
}

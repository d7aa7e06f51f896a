// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: one thread computing alone, the healthy case the advisor must
 * leave without warnings: no other thread, no lock, no yield, no shared
 * data, no system call while it computes.
 *
 *   compute_alone SECONDS
 *
 * After go, the only thread runs compute_alone_work() (an xorshift loop on
 * registers) for SECONDS, prints "done sum=N" and exits. "ready" prints the
 * run-time address of compute_alone_work().
 */
#include "workload.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Not inlined: the function the samples of this workload land in. The
 * clock is read through the vDSO, without a system call. */
static uint64_t __attribute__((noinline)) compute_alone_work(double seconds)
{
	double end = now_s() + seconds;
	uint64_t x = 88172645463325252ull, sum = 0;

	do {
		for (int i = 0; i < 1 << 20; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			sum += x;
		}
	} while (now_s() < end);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long seconds;
	uint64_t sum;

	wl_init();
	if (argc != 2)
		wl_fail("usage: compute_alone SECONDS");
	seconds = wl_arg(argv[1], "SECONDS");
	wl_ready("seconds=%lu compute_fn=%p", seconds, (void *)compute_alone_work);
	sum = compute_alone_work((double)seconds);
	printf("done sum=%llu\n", (unsigned long long)sum);
	return 0;
}

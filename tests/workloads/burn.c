// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: N threads computing without a pause: CPU burners, the other
 * processes of a busy host, or a target that computes on N threads.
 *
 *   burn N SECONDS
 */
#include "workload.h"

static volatile int stop;

static void __attribute__((noinline)) burn_work(void)
{
	uint64_t x = 88172645463325252ull;

	while (!stop) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	if (x == 42)
		printf("unlikely\n");
}

static void *burner(void *arg __attribute__((unused)))
{
	burn_work();
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n, seconds;

	wl_init();
	if (argc != 3)
		wl_fail("usage: burn N SECONDS");
	n = wl_arg(argv[1], "N");
	seconds = wl_arg(argv[2], "SECONDS");
	wl_ready("burn_fn=%p", (void *)burn_work);
	for (unsigned long i = 0; i < n; i++)
		wl_thread_start(burner);
	wl_sleep_ms(seconds * 1000);
	stop = 1;
	wl_done();
	wl_linger();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: N threads wait for a flag that never comes by calling
 * sched_yield() (glibc's, frameless on Debian) in a loop, in w().
 *
 *   yield_spinners N SECONDS
 */
#include <sched.h>
#include "workload.h"

static volatile int flag, stop;

static void __attribute__((noinline)) w(void)
{
	while (!flag && !stop)
		sched_yield();
}

static void *spinner(void *arg __attribute__((unused)))
{
	w();
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n, seconds;

	wl_init();
	if (argc != 3)
		wl_fail("usage: yield_spinners N SECONDS");
	n = wl_arg(argv[1], "N");
	seconds = wl_arg(argv[2], "SECONDS");
	wl_ready("w_fn=%p", (void *)w);
	for (unsigned long i = 0; i < n; i++)
		wl_thread_start(spinner);
	wl_sleep_ms(seconds * 1000);
	stop = 1;
	wl_done();
	wl_linger();
}

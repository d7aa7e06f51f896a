// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: two threads each increment their own counter with an atomic
 * add, the two counters 8 bytes apart (one cache line: false sharing) or
 * 128 bytes apart (padded).
 *
 *   counters_share PAD SECONDS      PAD: 8 or 128
 */
#include "workload.h"

static _Alignas(256) unsigned char area[512];
static unsigned long pad;
static volatile int stop;

static void __attribute__((noinline)) bump_counter(unsigned long *c)
{
	for (int i = 0; i < 4096; i++)
		__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void *bumper(void *arg)
{
	unsigned long *c = arg;

	while (!stop)
		bump_counter(c);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long seconds;
	pthread_t th[2];

	wl_init();
	if (argc != 3)
		wl_fail("usage: counters_share PAD SECONDS");
	pad = wl_arg(argv[1], "PAD");
	seconds = wl_arg(argv[2], "SECONDS");
	if (pad != 8 && pad != 128)
		wl_fail("PAD: 8 or 128");
	wl_ready("pad=%lu bump_fn=%p", pad, (void *)bump_counter);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, bumper, area + i * pad))
			wl_fail("pthread_create");
	wl_sleep_ms(seconds * 1000);
	stop = 1;
	wl_done();
	wl_linger();
}

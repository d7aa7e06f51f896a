// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: the known answers of false sharing, two threads each, for
 * SECONDS after go. Every case writes with the same atomic add, so that
 * only the layout differs between the shared and the padded ones.
 *
 *   fs_cases CASE SECONDS
 *     globals    two global counters 8 bytes apart (counters, counters+8):
 *                false sharing
 *     padded     the same, 128 bytes apart (counters, counters+128): none
 *     heap       two threads' heap records 48 bytes apart in one block:
 *                false sharing
 *     heapsep    each record in its own 128-byte aligned block: none
 *     shared     one counter (shared_counter) both threads add to: true
 *                sharing
 *     flag       one thread polls a flag (pair.flag), the other adds to
 *                the counter beside it (pair.counter): false sharing,
 *                read/write
 */
#include "workload.h"

struct record {
	unsigned long count;
	char rest[40];		/* 48 bytes a record */
};

_Alignas(256) unsigned long counters[64];
_Alignas(256) unsigned long shared_counter;
_Alignas(256) struct { volatile int flag; unsigned long counter; } pair;
static volatile int stop;

static void __attribute__((noinline)) bump_counter(unsigned long *c)
{
	for (int i = 0; i < 4096; i++)
		__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void *bumper(void *arg)
{
	while (!stop)
		bump_counter(arg);
	return NULL;
}

static void __attribute__((noinline)) poll_flag(void)
{
	for (int i = 0; i < 4096; i++)
		if (pair.flag)
			return;
}

static void *poller(void *arg __attribute__((unused)))
{
	while (!stop)
		poll_flag();
	return NULL;
}

int main(int argc, char **argv)
{
	void *arg[2] = { 0 };
	void *(*fn[2])(void *) = { bumper, bumper };
	unsigned long seconds;
	const char *c;
	pthread_t th[2];

	wl_init();
	if (argc != 3)
		wl_fail("usage: fs_cases globals|padded|heap|heapsep|shared|flag SECONDS");
	c = argv[1];
	seconds = wl_arg(argv[2], "SECONDS");
	if (!strcmp(c, "globals") || !strcmp(c, "padded")) {
		size_t apart = !strcmp(c, "globals") ? 1 : 16;

		arg[0] = &counters[0];
		arg[1] = &counters[apart];
	} else if (!strcmp(c, "heap")) {
		struct record *r = aligned_alloc(128, 2 * sizeof(*r) + 32);

		if (!r)
			wl_fail("aligned_alloc");
		arg[0] = &r[0].count;
		arg[1] = &r[1].count;
	} else if (!strcmp(c, "heapsep")) {
		for (int i = 0; i < 2; i++)
			if (!(arg[i] = aligned_alloc(128, 128)))
				wl_fail("aligned_alloc");
	} else if (!strcmp(c, "shared")) {
		arg[0] = arg[1] = &shared_counter;
	} else if (!strcmp(c, "flag")) {
		fn[0] = poller;
		arg[1] = &pair.counter;
	} else {
		wl_fail("CASE: globals, padded, heap, heapsep, shared or flag");
	}
	wl_ready("case=%s a=%p b=%p", c, arg[0], arg[1]);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, fn[i], arg[i]))
			wl_fail("pthread_create");
	wl_sleep_ms(seconds * 1000);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	wl_done();
	wl_linger();
}

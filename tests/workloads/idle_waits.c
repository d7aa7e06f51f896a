// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a process that only waits: one thread sleeps in nanosleep
 * (10 ms at a time), another in epoll_wait on a pipe nobody writes (100 ms
 * timeouts). Silent for the advice.
 *
 *   idle_waits SECONDS
 */
#include <sys/epoll.h>
#include "workload.h"

static void *epoller(void *arg __attribute__((unused)))
{
	struct epoll_event ev = { .events = EPOLLIN };
	int p[2], ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		wl_fail("epoll: %s", strerror(errno));
	for (;;)
		epoll_wait(ep, &ev, 1, 100);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long seconds;

	wl_init();
	if (argc != 2)
		wl_fail("usage: idle_waits SECONDS");
	seconds = wl_arg(argv[1], "SECONDS");
	wl_thread_start(epoller);
	wl_ready("seconds=%lu", seconds);
	for (unsigned long i = 0; i < seconds * 100; i++)
		wl_sleep_ms(10);
	wl_done();
	wl_linger();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: T threads take one pthread mutex in a loop, hold it for about
 * CS_NS nanoseconds (a busy loop on the vDSO clock, or for short sections a
 * calibrated count of dependent adds), and work outside it as long again.
 * With a short section most futex waits return at once (EAGAIN); with a
 * long one they block. take_lock_and_work() is where the lock is taken.
 *
 *   mutex_cs T CS_NS SECONDS
 */
#include "workload.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static unsigned long cs_ns, spins_per_cs;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void busy(void)
{
	if (spins_per_cs) {
		volatile unsigned long x = 0;

		for (unsigned long i = 0; i < spins_per_cs; i++)
			x += i;
		return;
	}
	for (uint64_t end = mono_ns() + cs_ns; mono_ns() < end;)
		;
}

static void __attribute__((noinline)) take_lock_and_work(void)
{
	pthread_mutex_lock(&lock);
	busy();
	pthread_mutex_unlock(&lock);
	busy();
}

static void *worker(void *arg __attribute__((unused)))
{
	while (!stop)
		take_lock_and_work();
	return NULL;
}

/* Adds per ns, for sections too short to time with the clock. */
static void calibrate(void)
{
	uint64_t t0;
	volatile unsigned long x = 0;

	if (cs_ns >= 2000)
		return;
	t0 = mono_ns();
	for (unsigned long i = 0; i < 10000000; i++)
		x += i;
	spins_per_cs = cs_ns * 10000000ul / (mono_ns() - t0 + 1);
	if (!spins_per_cs)
		spins_per_cs = 1;
}

int main(int argc, char **argv)
{
	unsigned long t, seconds;

	wl_init();
	if (argc != 4)
		wl_fail("usage: mutex_cs T CS_NS SECONDS");
	t = wl_arg(argv[1], "T");
	cs_ns = wl_arg(argv[2], "CS_NS");
	seconds = wl_arg(argv[3], "SECONDS");
	calibrate();
	wl_ready("mutex=%p lock_fn=%p", (void *)&lock, (void *)take_lock_and_work);
	for (unsigned long i = 0; i < t; i++)
		wl_thread_start(worker);
	wl_sleep_ms(seconds * 1000);
	stop = 1;
	wl_done();
	wl_linger();
}

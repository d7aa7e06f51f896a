// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: readers against slow writers on a pthread_rwlock. W writers
 * take the write side and hold it HOLD_US, R readers take the read side
 * briefly. Known answer: the rwlock is contended; its write side is held
 * for ~HOLD_US by write_record() while the readers wait.
 *
 *   rwlock_writers R W HOLD_US SECONDS
 */
#include "workload.h"

static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned long hold_us;
static volatile unsigned long table[64];

static void __attribute__((noinline)) write_record(void)
{
	pthread_rwlock_wrlock(&table_lock);
	table[0]++;
	wl_busy_us(hold_us);
	pthread_rwlock_unlock(&table_lock);
}

static void __attribute__((noinline)) read_record(void)
{
	volatile unsigned long sum = 0;

	pthread_rwlock_rdlock(&table_lock);
	for (int i = 0; i < 64; i++)
		sum += table[i];
	pthread_rwlock_unlock(&table_lock);
}

static void *rw_writer(void *arg __attribute__((unused)))
{
	for (;;) {
		write_record();
		wl_busy_us(hold_us);
	}
	return NULL;
}

static void *rw_reader(void *arg __attribute__((unused)))
{
	for (;;) {
		read_record();
		wl_busy_us(20);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long r, w, seconds;

	wl_init();
	if (argc != 5)
		wl_fail("usage: rwlock_writers R W HOLD_US SECONDS");
	r = wl_arg(argv[1], "R");
	w = wl_arg(argv[2], "W");
	hold_us = wl_arg(argv[3], "HOLD_US");
	seconds = wl_arg(argv[4], "SECONDS");
	wl_ready("rwlock=%p", (void *)&table_lock);
	for (unsigned long i = 0; i < w; i++)
		wl_thread_start(rw_writer);
	for (unsigned long i = 0; i < r; i++)
		wl_thread_start(rw_reader);
	wl_sleep_ms(seconds * 1000);
	printf("done\n");
	fflush(stdout);
	_exit(0);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: a lock convoy. T threads take one lock, compute SECTION_US
 * under it, and compute a little outside. Built twice (mk/advice.mk):
 * convoy_lock uses a pthread mutex; convoy_lock_home (-DHOME_LOCK, then
 * stripped of every symbol) uses a home-made three-state futex lock with
 * raw futex calls, so that nothing in it is named. Known answer for both:
 * the same contended lock, decided from what the kernel saw.
 *
 *   convoy_lock T SECTION_US SECONDS
 */
#include <linux/futex.h>
#include "workload.h"

#ifdef HOME_LOCK
/* 0 free, 1 taken, 2 taken with waiters (Drepper, "Futexes are tricky"). */
static unsigned int word;

static void lock_take(void)
{
	unsigned int c = 0;

	if (__atomic_compare_exchange_n(&word, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&word, 2, __ATOMIC_ACQUIRE);
	while (c) {
		syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = __atomic_exchange_n(&word, 2, __ATOMIC_ACQUIRE);
	}
}

static void lock_give(void)
{
	if (__atomic_fetch_sub(&word, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(&word, 0, __ATOMIC_RELEASE);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}
#define LOCK_ADDR ((void *)&word)
#else
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
#define lock_take() pthread_mutex_lock(&m)
#define lock_give() pthread_mutex_unlock(&m)
#define LOCK_ADDR ((void *)&m)
#endif

static unsigned long section_us;
static volatile unsigned long shared_total;

static void __attribute__((noinline)) update_total(void)
{
	lock_take();
	shared_total++;
	wl_busy_us(section_us);
	lock_give();
}

static void *convoy_worker(void *arg __attribute__((unused)))
{
	for (;;) {
		update_total();
		wl_busy_us(section_us / 4 + 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long t, seconds;

	wl_init();
	if (argc != 4)
		wl_fail("usage: convoy_lock T SECTION_US SECONDS");
	t = wl_arg(argv[1], "T");
	section_us = wl_arg(argv[2], "SECTION_US");
	seconds = wl_arg(argv[3], "SECONDS");
	wl_ready("lock=%p", LOCK_ADDR);
	for (unsigned long i = 0; i < t; i++)
		wl_thread_start(convoy_worker);
	wl_sleep_ms(seconds * 1000);
	printf("done total=%lu\n", shared_total);
	fflush(stdout);
	_exit(0);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: T threads share a test-and-set spin lock; waiting, they spin
 * on it with PAUSE (x86) or ISB (AArch64) and make no system call. The
 * samples land in spin_lock(), the loop with the hint.
 *
 *   pause_spin T SECONDS
 */
#include "workload.h"

static int lock_word;
static volatile int stop;
static unsigned long counter;

static inline void cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#endif
}

static void __attribute__((noinline)) spin_lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			cpu_relax();
}

static void __attribute__((noinline)) spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static void *spinner(void *arg __attribute__((unused)))
{
	while (!stop) {
		spin_lock(&lock_word);
		for (int i = 0; i < 200; i++)
			__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		spin_unlock(&lock_word);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long t, seconds;

	wl_init();
	if (argc != 3)
		wl_fail("usage: pause_spin T SECONDS");
	t = wl_arg(argv[1], "T");
	seconds = wl_arg(argv[2], "SECONDS");
	wl_ready("spin_fn=%p", (void *)spin_lock);
	for (unsigned long i = 0; i < t; i++)
		wl_thread_start(spinner);
	wl_sleep_ms(seconds * 1000);
	stop = 1;
	wl_done();
	wl_linger();
}

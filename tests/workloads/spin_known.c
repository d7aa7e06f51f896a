// SPDX-License-Identifier: GPL-2.0
/*
 * One thread spinning in a known function, for the sampling tests.
 *
 *   spin_known [SECONDS [FAULT_PAGES]]
 *
 * The spinning thread prints "pid=P tid=T spin_start=0x.. spin_end=0x.."
 * when it starts. spin_here() is the only function in the section
 * "spin_text", so [__start_spin_text, __stop_spin_text) is exactly its code
 * whatever order the compiler emits functions in. With FAULT_PAGES > 0 the
 * spinner first waits for SIGUSR1 (so that a tracer can attach before), then
 * starts a new thread that writes FAULT_PAGES fresh pages, one minor fault
 * each, prints "faulted N tid=T", sleeps 1 ms and exits; then it spins.
 * The process exits after SECONDS (default 5).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

extern const char __start_spin_text[], __stop_spin_text[];

static atomic_int stop;
static long fault_pages;

/* Called once in 2^24 spins: makes spin_here a non-leaf function, which
 * gcc gives a frame pointer (Debian's gcc omits it in leaf functions, and a
 * frameless leaf hides its caller from frame-pointer unwinding). */
__attribute__((noinline, noclone))
static void spin_tick(unsigned long spins)
{
	__asm__ volatile("" : : "r"(spins) : "memory");
}

__attribute__((noinline, noclone, section("spin_text")))
static unsigned long spin_here(void)
{
	unsigned long spins = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		if ((++spins & ((1UL << 24) - 1)) == 0)
			spin_tick(spins);
	return spins;
}

/* A thread started after the tracer attached: faults in fault_pages fresh
 * pages, one minor fault each, then ends its time slice and exits. */
static void *faulter(void *arg)
{
	long psz = sysconf(_SC_PAGESIZE);
	volatile char *p = arg;

	for (long i = 0; i < fault_pages; i++)
		p[i * psz] = 1;
	printf("faulted %ld tid=%d\n", fault_pages, gettid());
	fflush(stdout);
	usleep(1000);
	return NULL;
}

static int fault_in_new_thread(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)(fault_pages * psz), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;
	sigset_t set;
	int sig;

	if (p == MAP_FAILED)
		return -1;
	/* A huge page would serve 512 pages with one fault. */
	madvise(p, (size_t)(fault_pages * psz), MADV_NOHUGEPAGE);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigwait(&set, &sig);
	if (pthread_create(&t, NULL, faulter, p))
		return -1;
	return pthread_join(t, NULL);
}

static void *spinner(void *arg)
{
	(void)arg;
	printf("pid=%d tid=%d spin_start=%p spin_end=%p\n", getpid(), gettid(),
	       (void *)__start_spin_text, (void *)__stop_spin_text);
	fflush(stdout);
	if (fault_pages > 0 && fault_in_new_thread())
		return NULL;
	spin_here();
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	pthread_t t;
	sigset_t set;

	fault_pages = argc > 2 ? atol(argv[2]) : 0;
	/* SIGUSR1 is taken by sigwait in the spinner only. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, spinner, NULL))
		return 1;
	while (nanosleep(&ts, &ts))
		;
	atomic_store(&stop, 1);
	pthread_kill(t, SIGUSR1);	/* releases a spinner still waiting */
	pthread_join(t, NULL);
	return 0;
}

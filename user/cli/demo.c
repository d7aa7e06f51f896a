// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope demo`: starts a workload with three planted problems in a
 * child process and traces it, so a new user sees a real report at once.
 *   - lock convoy: threads fight over one pthread mutex held for ~20 us
 *   - spin-then-yield: a test-and-set lock that calls sched_yield on failure
 *   - false sharing: two threads increment counters in one cache line
 * With 7 busy threads on few CPUs it is also oversubscribed.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "cli.h"
#include "commands.h"
#include "common/errors.h"
#include "trace/perf_events.h"
#include "trace_cmd.h"

#define DEMO_MUTEX_THREADS 3
#define DEMO_YIELD_THREADS 2
#define DEMO_COUNTER_THREADS 2

static pthread_mutex_t demo_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int demo_spin_flag;
static unsigned long demo_shared_table[64];

/* Two counters 8 bytes apart: one cache line, two writers. */
static struct {
	_Atomic unsigned long a;
	_Atomic unsigned long b;
} demo_counters;

static void __attribute__((noinline)) demo_busy_ns(long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

/* Holds the mutex for ~20 us, long enough for the others to park. */
static void __attribute__((noinline)) demo_locked_update(int i)
{
	pthread_mutex_lock(&demo_lock);
	demo_shared_table[i % 64]++;
	demo_busy_ns(20000);
	pthread_mutex_unlock(&demo_lock);
}

static void *demo_mutex_worker(void *arg)
{
	pthread_setname_np(pthread_self(), "mutex-worker");
	for (int i = 0;; i++) {
		demo_locked_update(i);
		demo_busy_ns(2000);
	}
	return NULL;
}

/* A homegrown lock: spin a little, then sched_yield until it is free. */
static void __attribute__((noinline)) demo_spin_lock(void)
{
	while (atomic_exchange_explicit(&demo_spin_flag, 1, memory_order_acquire)) {
		for (int i = 0; i < 32; i++)
			if (!atomic_load_explicit(&demo_spin_flag, memory_order_relaxed))
				break;
		syscall(SYS_sched_yield);
	}
}

/* Short holds, frequent retries: the lock is busy often enough that the
 * spinners yield thousands of times a second. */
static void *demo_yield_spinner(void *arg)
{
	pthread_setname_np(pthread_self(), "yield-spinner");
	for (;;) {
		demo_spin_lock();
		demo_busy_ns(3000);
		atomic_store_explicit(&demo_spin_flag, 0, memory_order_release);
		demo_busy_ns(1000);
	}
	return NULL;
}

static void __attribute__((noinline)) demo_count_adjacent(_Atomic unsigned long *c)
{
	for (int i = 0; i < 1000; i++)
		atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static void *demo_counter_worker(void *arg)
{
	_Atomic unsigned long *c = arg;

	pthread_setname_np(pthread_self(), "counter");
	for (;;)
		demo_count_adjacent(c);
	return NULL;
}

static void __attribute__((noreturn)) demo_workload(int ready_fd)
{
	pthread_t th;

	prctl(PR_SET_NAME, "spinscope-demo");
	/* Never outlive spinscope. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int i = 0; i < DEMO_MUTEX_THREADS; i++)
		pthread_create(&th, NULL, demo_mutex_worker, NULL);
	for (int i = 0; i < DEMO_YIELD_THREADS; i++)
		pthread_create(&th, NULL, demo_yield_spinner, NULL);
	pthread_create(&th, NULL, demo_counter_worker, &demo_counters.a);
	pthread_create(&th, NULL, demo_counter_worker, &demo_counters.b);
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	close(ready_fd);
	for (;;)
		pause();
}

static const char demo_usage[] =
	"usage: spinscope demo [-d SECONDS] [--event EVENT] [--folded FILE] [--json|--brief] [-v]\n"
	"                      [--html FILE] [-o FILE] [--calibration FILE] [--no-calibrate]\n"
	"Starts a workload with a lock convoy, a spin-then-yield lock and false\n"
	"sharing in a child process, traces it (default 4 s, sampling cpu-clock)\n"
	"and reports. OPTIONS: those of `spinscope -p PID` but -p and -t\n"
	"(spinscope --help lists them).\n";

static void demo_help(FILE *out)
{
	fputs(demo_usage, out);
}

int cmd_demo(int argc, char **argv)
{
	struct ss_opts o;
	int pipefd[2], status, code;
	char c, err[256];
	pid_t child;

	code = ss_opts_parse_cmd(argc, argv, SS_OPTS_DEMO, &o, err, sizeof(err));
	if (code) {
		ss_error(code, "demo: %s", err);
		fputs(demo_usage, stderr);
		return code;
	}
	code = trace_opts_settle(&o, demo_help);
	if (code)
		return code < 0 ? 0 : code;
	if (pipe(pipefd))
		return ss_error(SS_EXIT_ERROR, "demo: pipe: %s", strerror(errno));
	fflush(NULL);
	child = fork();
	if (child < 0)
		return ss_error(SS_EXIT_ERROR, "demo: fork: %s", strerror(errno));
	if (child == 0) {
		close(pipefd[0]);
		demo_workload(pipefd[1]);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1) {
		close(pipefd[0]);
		waitpid(child, &status, 0);
		return ss_error(SS_EXIT_ERROR, "demo: the workload did not start");
	}
	close(pipefd[0]);
	if (!o.json)
		ss_notice("demo workload is pid %d: %d threads on one mutex, %d spinning with sched_yield, %d on adjacent counters",
			  child, DEMO_MUTEX_THREADS, DEMO_YIELD_THREADS, DEMO_COUNTER_THREADS);
	o.pid = child;
	o.stop_target_to_calibrate = true;
	code = trace_run(&o);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return code;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measurement window of the overhead benchmark's workloads.
 *
 * A workload starts its threads, lets them warm up, prints "ready" and keeps
 * running while the harness attaches a tracer. Only when the tracer is fully
 * attached does the harness send SIGUSR1 ("go"); the workload then counts
 * operations for exactly the window's length and prints one result line.
 * So attach and detach costs never fall inside what is measured, and the
 * tracer sees every thread (they all exist before it attaches).
 */
#ifndef SPINSCOPE_BENCH_WINDOW_H
#define SPINSCOPE_BENCH_WINDOW_H

#include <stdint.h>

struct bench_window {
	double seconds;		/* length of the measured window */
	double max_wait_s;	/* give up if no go comes by then */
	double cpu_s;		/* out: CPU time the process used in the window */
};

/* Parses "-w SECONDS" (default 3); exits 2 with usage on anything else
 * except the flags listed in `extra` (e.g. "--pair"), returned as a bitmask
 * in *extra_set, bit i for extra[i]. */
void bench_window__parse(struct bench_window *w, int argc, char **argv,
			 const char *const *extra, unsigned *extra_set);

/* Blocks SIGUSR1 so that threads created afterwards inherit the mask and
 * only the main thread's sigtimedwait takes the go signal. */
void bench_window__block_go(void);

/* Reads the workload's running counters into v[] (at most BENCH_MAX_COUNTERS). */
#define BENCH_MAX_COUNTERS 4
typedef void (*bench_read_fn)(uint64_t *v);

/* Prints "ready pid=N", waits for go, then sleeps through the window while
 * the workers count. Puts each counter's increase over the window in
 * delta[] (all read at the same two instants), the process's CPU time over
 * the window in w->cpu_s, and returns the window's exact length in seconds. */
double bench_window__measure(struct bench_window *w, bench_read_fn read,
			     unsigned n_counters, uint64_t *delta);

/* Exits 1 with a message: the benchmark must not report a broken run. */
void bench_die(const char *what) __attribute__((noreturn));

#endif

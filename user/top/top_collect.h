/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From bpf/top.bpf.c's maps to a struct top_snapshot: each refresh reads
 * the thread and word records (batch reads where the kernel has them),
 * subtracts what the previous refresh read (keyed by tid and start time,
 * so a reused tid is a new thread; by thread and word for the words),
 * credits time still running (a thread on a CPU, in the run queue or in a
 * futex wait for the whole interval), groups threads into processes and
 * names them from /proc. Exited threads' records and idle words are
 * deleted once read: the maps and this side's tables hold what lives.
 */
#ifndef SPINSCOPE_TOP_COLLECT_H
#define SPINSCOPE_TOP_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "top/top_model.h"

struct top_bpf;

struct top_collect_opts {
	bool threads;		/* show each process's threads (snapshot's threads arrays, names read) */
	const int *pids;	/* only these processes; NULL: all */
	size_t npids;
	const char *proc_root;	/* "/proc" unless a test says otherwise */
};

struct top_collector;

/* Now on bpf_ktime_get_ns()'s clock (CLOCK_MONOTONIC), in ns. */
uint64_t top_mono_ns(void);

/* NULL on out of memory. The collector's zero time is now: the first
 * refresh covers the time since (call it just after attach). */
struct top_collector *top_collect__new(struct top_bpf *bpf, const struct top_collect_opts *o);
/* Fills snap with the figures since the last call (or since new); snap's
 * arrays stay valid until the next call. 0 or an SS_EXIT_* code (a map
 * that cannot be read, out of memory). */
int top_collect__refresh(struct top_collector *c, struct top_snapshot *snap);
/* p's words (p from the last refresh), writable: the verdict marks each
 * lock or event (top_verdict.h). */
struct top_word *top_collect__words(struct top_collector *c, const struct top_proc *p);
/* p's threads in the interval (whether or not the snapshot shows them:
 * the verdict always reads them); *n how many. */
const struct top_thread *top_collect__threads(const struct top_collector *c, const struct top_proc *p,
					      size_t *n);
void top_collect__free(struct top_collector *c);

#endif

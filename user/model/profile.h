/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot of what the tracer has aggregated, as plain C: copied out of
 * the BPF maps by tracer.c, then sorted, summed, diffed and reported without
 * touching libbpf. Times are bpf_ktime_get_ns() (CLOCK_MONOTONIC).
 */
#ifndef SPINSCOPE_PROFILE_H
#define SPINSCOPE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "trace.h"
#include "counters.h"

/* stack_id < 0: the stack could not be collected (-errno). */
struct ss_waiter_stack {
	__s32 stack_id;
	__u64 count;
	__u64 wait_ns;
	__u64 at_once;			/* of count, returned at once (EAGAIN) */
};

/* One thread's waits on one waiter stack of an address: the waiters map's
 * own key, which stacks[] sums over the threads. */
struct ss_waiter_share {
	__s32 stack_id;
	__u32 tid;
	__u64 count;
	__u64 wait_ns;
	__u64 at_once;
};

/* A wake call site that found waiters on a word, per waker thread, as
 * bpf/trace.h keeps it (model/releases.h sums them by stack and thread). */
struct ss_release_rec {
	__s32 stack_id;			/* < 0: not collected (-errno) */
	__u32 tid;
	struct ss_release_val v;
};

struct ss_futex_rec {
	__u64 uaddr;
	struct ss_futex f;
	__u32 waiters;			/* distinct threads that waited */
	__u32 *tids;			/* ... and their ids */
	struct ss_waiter_stack *stacks;	/* sorted by wait_ns, descending */
	size_t nstacks;
	/* Per (stack, thread), sorted as stacks; NULL where not known (older
	 * recordings): then only a single waiter's stacks are its own. */
	struct ss_waiter_share *shares;
	size_t nshares;
	struct ss_release_rec *releases;	/* any order */
	size_t nreleases;
};

struct ss_yield_site {
	__s32 stack_id;
	__u64 count;
};

/* The whole target: the thread counters summed (maxima: the largest). */
struct ss_totals {
	__u64 threads;
	SS_COUNTER_FIELDS(SS_THREAD_COUNTERS)
};

struct ss_profile {
	__u64 start_ns;			/* trace start */
	__u64 now_ns;			/* when this snapshot was taken */
	struct ss_thread *threads;	/* on/off-CPU include the open tail */
	size_t nthreads;
	struct ss_futex_rec *futexes;	/* sorted by wait_ns, descending */
	size_t nfutexes;
	struct ss_yield_site *yields;	/* sorted by count, descending */
	size_t nyields;
	__u64 drops[SS_DROPS];
	struct ss_totals totals;
	/* Time with k of the target's threads on a CPU at once (struct
	 * ss_concurrency, the last slot k or more); all 0: not measured. */
	__u64 running_ns[SS_CONC_SLOTS];
};

extern const char *const ss_drop_names[SS_DROPS];
extern const char *const ss_outcome_names[SS_FUTEX_OUTCOMES];

/* Adds the time since a thread's last switch to its on- or off-CPU total,
 * as of now_ns (exited threads stop at their last switch). running says
 * where a thread that never switched has been (its /proc state is R). */
void profile_close_thread(struct ss_thread *t, __u64 start_ns, __u64 now_ns, bool running);

/* Sorts everything and computes totals. Call once the arrays are filled. */
void profile_finish(struct ss_profile *p);

/* The name of thread tid, or NULL when the profile does not hold it. */
const char *profile_thread_comm(const struct ss_profile *p, __u32 tid);

/* Thread order of the report: most time waiting in futexes plus yields. */
int profile_thread_cmp(const void *a, const void *b);

/* out = cur - prev, thread by thread (matched by tid), for interval reports.
 * out owns new arrays (threads only; futexes and yields are left empty). */
int profile_diff(const struct ss_profile *cur, const struct ss_profile *prev,
		 struct ss_profile *out);

void profile_free(struct ss_profile *p);

#endif

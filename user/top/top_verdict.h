/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict column of `spinscope top`: for one process, the advisor's
 * most severe finding that the scheduler-only data supports (the same
 * rules as `spinscope -p`, run on a profile built from the interval's
 * threads and futex words, with no host calibration), each futex word
 * classified lock or event by adv_futex_use(), and whether `-p` could
 * say more. Pure: no I/O.
 */
#ifndef SPINSCOPE_TOP_VERDICT_H
#define SPINSCOPE_TOP_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include "advisor/advisor.h"
#include "top/top_model.h"

#define TOP_MAX_VERDICT_THREADS 1024	/* a larger process: its totals stand in */
#define TOP_MAX_VERDICT_WORDS 256	/* the most-waited words; the rest count as events */

/* The advisor's input and output for one process, reused across
 * processes (about 1 MiB: allocate it once). */
struct top_verdict_scratch {
	struct adv_report report;
	struct adv_thread threads[TOP_MAX_VERDICT_THREADS];
	struct adv_futex fx[TOP_MAX_VERDICT_WORDS];
	struct adv_holder holders[TOP_MAX_VERDICT_WORDS][2];
};

/* What one process's verdict reads besides the process itself. */
struct top_verdict_input {
	uint64_t interval_ns;
	uint32_t host_cpus;		/* when the process's affinity is unknown */
	const struct top_thread *threads;	/* its threads in the interval */
	size_t nthreads;
	struct top_word *words;		/* marked lock or event here */
	size_t nwords;
};

/* Fills p's lock/event split, verdict, verdict_summary, verdict_severity
 * and needs_full_trace; may reorder in->words (most waited first). 0, or
 * -EINVAL. */
int top_verdict_apply(struct top_proc *p, const struct top_verdict_input *in, struct top_verdict_scratch *s);

/* Whether the scheduler-only data supports finding id; when not, why
 * (what `-p` adds), else NULL. */
const char *top_verdict_needs_trace(const char *id);

/* The finding ids whose evidence top cannot give, in the advisor's order:
 * for --help, docs and the JSON header. n: how many. */
const char *const *top_verdict_trace_only(size_t *n);

#endif

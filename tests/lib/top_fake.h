/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A refresh source with canned figures, for the live view's and the
 * agent's tests (and the Prometheus test until it runs against real BPF):
 * a lock-wait-heavy process, a sched_yield spinner, an idle
 * condition-variable pool, an oversubscribed process, one whose names
 * hold a terminal escape and label syntax, and nnoise small processes.
 * Every refresh blocks interval_ms (in steps that watch *stop) and gives
 * the same per-interval deltas, so totals grow linearly.
 */
#ifndef SPINSCOPE_TOP_FAKE_H
#define SPINSCOPE_TOP_FAKE_H

#include <stdint.h>
#include "top/top_model.h"

enum { TOP_FAKE_FIXED = 5 };	/* processes besides the noise */

/* pids of the fixed processes */
enum { FAKE_LOCKY = 100, FAKE_SPINNER = 200, FAKE_IDLE = 300, FAKE_HOG = 400, FAKE_ODD = 500 };

struct top_fake {
	unsigned int interval_ms;
	unsigned int nnoise;
	unsigned int refreshes;		/* done so far */
	unsigned int fail_after;	/* nonzero: that refresh returns SS_EXIT_ERROR */
	struct top_proc *procs;
	struct top_thread threads[4];
};

/* Sets f up (procs allocated): 0 or -ENOMEM. */
int top_fake_init(struct top_fake *f, unsigned int interval_ms, unsigned int nnoise);
void top_fake_free(struct top_fake *f);
/* A top_refresh_fn: ctx is a struct top_fake. */
int top_fake_refresh(void *ctx, struct top_snapshot *snap, volatile int *stop);
/* Fills snap at once (no wait), as the refresh would. */
void top_fake_fill(struct top_fake *f, struct top_snapshot *snap);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the live view and the metrics agent get their figures: one
 * function that waits out a refresh interval and fills a snapshot. The
 * tracer behind it (top_live.h) or a test's stand-in provides it.
 */
#ifndef SPINSCOPE_TOP_SOURCE_H
#define SPINSCOPE_TOP_SOURCE_H

struct top_snapshot;
/* Blocks until the current refresh interval ends (or *stop becomes nonzero),
 * then fills snap with that interval's figures (deltas) and verdicts.
 * snap's arrays stay valid until the next call. 0, or an SS_EXIT_* code. */
typedef int (*top_refresh_fn)(void *ctx, struct top_snapshot *snap, volatile int *stop);

#endif

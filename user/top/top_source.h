/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SPINSCOPE_TOP_SOURCE_H
#define SPINSCOPE_TOP_SOURCE_H
struct top_snapshot;
/* Blocks until the current refresh interval ends (or *stop becomes nonzero),
 * then fills snap with that interval's figures (deltas) and verdicts.
 * snap's arrays stay valid until the next call. 0, or an SS_EXIT_* code. */
typedef int (*top_refresh_fn)(void *ctx, struct top_snapshot *snap, volatile int *stop);
#endif

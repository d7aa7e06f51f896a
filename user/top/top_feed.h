/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view's refreshes on a thread of their own: each refresh blocks
 * a whole interval, and keys must answer meanwhile. Every snapshot is
 * copied (processes and their threads; the words are the verdict's, not
 * shown) into one of three buffers: the thread fills one, one waits, the
 * view reads the third, so neither ever waits on the other for long.
 * The thread blocks SIGINT, SIGTERM, SIGHUP and SIGWINCH: they reach the
 * view's thread, whose poll they end.
 */
#ifndef SPINSCOPE_TOP_FEED_H
#define SPINSCOPE_TOP_FEED_H

#include <stdbool.h>
#include "top_model.h"
#include "top_source.h"

struct top_feed;

/* Starts calling refresh(ctx, ...) until top_feed_stop. NULL: out of memory
 * or threads (errno). */
struct top_feed *top_feed_start(top_refresh_fn refresh, void *ctx);
/* The newest snapshot since the last take, or NULL. Valid until the next
 * take. *rc: nonzero when the refreshes ended with that code. */
const struct top_snapshot *top_feed_take(struct top_feed *f, int *rc);
/* Asks the refresh to return (its *stop), joins the thread, frees f. */
void top_feed_stop(struct top_feed *f);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `spinscope top`'s live view on ncurses: the host lines, the table
 * (top_table.c) refreshed every interval, keys to sort, filter, select,
 * see a process's threads, and Enter to run `spinscope -p PID -d 5
 * --brief` on the selected process and page its report.
 *
 * The refreshes run on a thread of their own (each blocks for the whole
 * interval), so keys answer at once; the view takes each new snapshot as
 * a copy, so the source may reuse its arrays on its next call.
 *
 * Returns SS_EXIT_OK on q, SIGINT, SIGTERM, SIGHUP and a terminal that went
 * away (read EOF or a hang-up on stdin), as `-p` does on SIGHUP: the
 * caller then detaches everything. SS_EXIT_USAGE (with one line) when
 * stdin or stdout is not a terminal; a refresh's own code when one fails.
 */
#ifndef SPINSCOPE_TOP_VIEW_H
#define SPINSCOPE_TOP_VIEW_H

#include "top_source.h"
#include "top_table.h"

struct top_view_opts {
	const char *exe;		/* what Enter runs; NULL: /proc/self/exe */
	unsigned int report_seconds;	/* its -d; 0: 5 */
	enum top_col sort;		/* the first sort column (TOP_COL_PID is 0) */
};

int top_view_run(top_refresh_fn refresh, void *ctx, const struct top_view_opts *o);

#endif

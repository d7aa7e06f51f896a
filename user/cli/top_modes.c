// SPDX-License-Identifier: GPL-2.0
/*
 * The live view and the metrics agent of `spinscope top`, built in
 * user/top/ (top_view.c: ncurses; top_agent.c: OpenMetrics), driven here
 * with the live source's refresh function.
 */
#include <string.h>
#include "top/top_agent.h"
#include "top/top_table.h"
#include "top/top_view.h"
#include "top_modes.h"

/* The view's first sort column for a --sort key: one row per key. */
static const enum top_col col_of_key[TOP_SORT_KEYS] = {
	[TOP_SORT_LOCK_WAIT] = TOP_COL_LOCKWAIT,
	[TOP_SORT_EVENT_WAIT] = TOP_COL_EVWAIT,
	[TOP_SORT_YIELDS] = TOP_COL_YIELDS,
	[TOP_SORT_SPIN] = TOP_COL_SPIN,
	[TOP_SORT_CPU] = TOP_COL_CPU,
	[TOP_SORT_RUNQ] = TOP_COL_RUNQ,
	[TOP_SORT_WAKES] = TOP_COL_WAKES,
	[TOP_SORT_PID] = TOP_COL_PID,
};

int top_cmd_run_view(struct top_live *live, const struct top_cmd_opts *o, volatile int *stop)
{
	struct top_view_opts vo;

	(void)stop;	/* the view reads the same flag through its refresh calls */
	memset(&vo, 0, sizeof(vo));
	vo.sort = col_of_key[o->sort];
	return top_view_run(top_live_refresh, live, &vo);
}

int top_cmd_run_agent(struct top_live *live, const struct top_cmd_opts *o, volatile int *stop)
{
	struct top_agent_opts ao = { .listen = o->metrics, .top_n = o->top_n, .token = o->token };

	(void)stop;
	return top_agent_run(top_live_refresh, live, &ao);
}

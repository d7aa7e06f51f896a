// SPDX-License-Identifier: GPL-2.0
/*
 * The live view and the metrics agent of `spinscope top`, built in
 * user/top/ (top_view.c: ncurses; top_agent.c: OpenMetrics), driven here
 * with the live source's refresh function.
 *
 * Until both are merged into one tree, a build without them still links:
 * their entry points are declared here when the headers are absent, and
 * weak stand-ins say in one line that this build has no such mode (exit
 * 1); a tree with top_view.c and top_agent.c overrides them.
 */
#include <stdio.h>
#include <string.h>
#include "common/errors.h"
#include "top_modes.h"

#if __has_include("top/top_view.h")
#include "top/top_view.h"
#define TOP_HAVE_VIEW_HEADER 1
#endif
#if __has_include("top/top_agent.h")
#include "top/top_agent.h"
#define TOP_HAVE_AGENT_HEADER 1
#endif

#ifndef TOP_HAVE_VIEW_HEADER
struct top_view_opts {
	uint64_t interval_ns;
	size_t rows;
	enum top_sort_key sort;
	bool threads;
};
int top_view_run(top_refresh_fn refresh, void *ctx, const struct top_view_opts *o);
#endif
#ifndef TOP_HAVE_AGENT_HEADER
struct top_agent_opts {
	const char *listen;		/* [ADDR:]PORT */
	size_t top_n;			/* processes labelled; the rest summed */
};
int top_agent_run(top_refresh_fn refresh, void *ctx, const struct top_agent_opts *o);
#endif

__attribute__((weak)) int top_view_run(top_refresh_fn refresh, void *ctx, const struct top_view_opts *o)
{
	(void)refresh, (void)ctx, (void)o;
	return ss_error(SS_EXIT_ERROR, "top: this build has no interactive view: use -b or --json");
}

__attribute__((weak)) int top_agent_run(top_refresh_fn refresh, void *ctx, const struct top_agent_opts *o)
{
	(void)refresh, (void)ctx, (void)o;
	return ss_error(SS_EXIT_ERROR, "top: this build has no metrics agent: use --json");
}

int top_cmd_run_view(struct top_live *live, const struct top_cmd_opts *o, volatile int *stop)
{
	struct top_view_opts vo;

	(void)stop;	/* the view reads the same flag through its refresh calls */
	memset(&vo, 0, sizeof(vo));
#ifndef TOP_HAVE_VIEW_HEADER
	vo.interval_ns = (uint64_t)(o->interval_s * 1e9);
	vo.rows = o->rows;
	vo.sort = o->sort;
	vo.threads = o->threads;
#endif
	return top_view_run(top_live_refresh, live, &vo);
}

int top_cmd_run_agent(struct top_live *live, const struct top_cmd_opts *o, volatile int *stop)
{
	struct top_agent_opts ao;

	(void)stop;
	memset(&ao, 0, sizeof(ao));
#ifndef TOP_HAVE_AGENT_HEADER
	ao.listen = o->metrics;
	ao.top_n = o->rows ? o->rows : 20;
#endif
	return top_agent_run(top_live_refresh, live, &ao);
}

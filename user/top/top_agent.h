/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `spinscope top --metrics [ADDR:]PORT`: refreshes until SIGINT, SIGTERM
 * or SIGHUP, adding each refresh to the bounded series (top_series.h) and
 * serving their text at /metrics with the `-p --metrics` server
 * (report/metrics_http.c: its connection limit and deadlines hold here
 * too). The server starts before the first refresh, so a taken port is
 * one line and SS_EXIT_USAGE before the refresh source attaches anything
 * it attaches lazily. Returns 0 when stopped, or the refresh's own code.
 */
#ifndef SPINSCOPE_TOP_AGENT_H
#define SPINSCOPE_TOP_AGENT_H

#include "top_source.h"

struct top_agent_opts {
	const char *listen;		/* "[ADDR:]PORT"; IPv4, no address: 127.0.0.1 */
	unsigned int top_n;		/* --top-n; 0: TOP_SERIES_DEFAULT_N */
	const char *token;		/* what a scrape must send; NULL or "": none */
};

int top_agent_run(top_refresh_fn refresh, void *ctx, const struct top_agent_opts *o);

#endif

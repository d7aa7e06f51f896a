// SPDX-License-Identifier: GPL-2.0
/* The host agent: refresh, add, render, publish (see top_agent.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "common/errors.h"
#include "report/metrics_http.h"
#include "top_agent.h"
#include "top_model.h"
#include "top_series.h"

static volatile int agent_stop;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

static void on_stop(int sig)
{
	(void)sig;
	agent_stop = 1;
}

/* No SA_RESTART: a refresh's wait ends at once, and it reads *stop. */
static void catch_stop(struct sigaction old[NSTOP])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	agent_stop = 0;
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, &old[i]);
}

static int publish(struct metrics_http *h, const struct top_series_set *s)
{
	char *text;
	size_t len;
	int err = top_series_render(s, &text, &len);

	if (err)
		return ss_error(SS_EXIT_ERROR, "top --metrics: cannot render the metrics: %s",
				strerror(-err));
	metrics_http__publish(h, text, len);
	return 0;
}

static int serve(top_refresh_fn refresh, void *ctx, struct metrics_http *h, struct top_series_set *s)
{
	int rc = publish(h, s);	/* a scrape before the first refresh reads zeros, not nothing */

	while (!rc && !agent_stop) {
		struct top_snapshot snap;
		int err;

		memset(&snap, 0, sizeof(snap));
		rc = refresh(ctx, &snap, &agent_stop);
		if (rc || agent_stop)
			break;
		if ((err = top_series_update(s, &snap)))
			return ss_error(SS_EXIT_ERROR, "top --metrics: cannot keep the series: %s",
					strerror(-err));
		rc = publish(h, s);
	}
	return rc;
}

int top_agent_run(top_refresh_fn refresh, void *ctx, const struct top_agent_opts *o)
{
	unsigned int top_n = o->top_n ? o->top_n : TOP_SERIES_DEFAULT_N;
	struct sigaction old[NSTOP];
	struct top_series_set s;
	struct metrics_http *h;
	char addr[64], why[256];
	unsigned int port;
	int rc;

	if (top_n > TOP_SERIES_MAX_N)
		return ss_error(SS_EXIT_USAGE, "--top-n %u: at most %u (series per ranking, to keep the cardinality bounded): choose a smaller N",
				top_n, TOP_SERIES_MAX_N);
	if (metrics_http__parse_addr(o->listen, addr, sizeof(addr), &port, why, sizeof(why)))
		return ss_error(SS_EXIT_USAGE, "%s", why);
	h = metrics_http__start(addr, port, o->token, why, sizeof(why));
	if (!h)
		return ss_error(SS_EXIT_USAGE, "%s", why);
	ss_notice("top: serving http://%s:%u/metrics, the top %u by lock wait and by spinning labelled",
		  addr, port, top_n);
	top_series_init(&s, top_n);
	catch_stop(old);
	rc = serve(refresh, ctx, h, &s);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	metrics_http__stop(h);
	top_series_free(&s);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace command's exports: --pprof FILE at the end, and --metrics /
 * --metrics-file refreshed while tracing (each -i interval, else every
 * second) from a fresh read of the maps, then once more from the final
 * model with the advice. The renderers are in user/report (pprof.c,
 * metrics_text.c, metrics_http.c); this file feeds them.
 */
#ifndef SPINSCOPE_TRACE_EXPORTS_H
#define SPINSCOPE_TRACE_EXPORTS_H

#include <linux/types.h>
#include "cli.h"
#include "report/report.h"

struct tracer;
struct syms;
struct metrics_http;

struct trace_exports {
	const struct ss_opts *o;
	int pid;
	char comm[64];
	struct metrics_http *http;	/* --metrics */
	__u64 step_ns, next_ns;		/* live refreshes */
	bool warned;			/* a live refresh failed once already */
};

/* Checks the export paths and starts the metrics server, before tracing:
 * 0 or an exit code (the error printed). */
int trace_exports__open(struct trace_exports *ex, const struct ss_opts *o, const char *comm);
/* While tracing: refreshes the metrics when one is due (now_ns, the
 * tracer's clock). Failures are warned about once, never fatal. */
void trace_exports__tick(struct trace_exports *ex, struct tracer *t, struct syms *syms,
			 __u64 now_ns);
/* Says that what (a name) could not be written to path, and why: returns
 * the exit code. The trace command's own, so every file says it alike. */
typedef int (*trace_exports_failed_fn)(const struct ss_opts *o, const char *what, const char *path,
				       const char *why);
/* After the render: the final pprof and metrics. 0 or failed()'s code. */
int trace_exports__final(struct trace_exports *ex, const struct ss_report *rep, struct syms *syms,
			 trace_exports_failed_fn failed);
void trace_exports__close(struct trace_exports *ex);

#endif

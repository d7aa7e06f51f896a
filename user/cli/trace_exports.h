/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace command's live exports: --metrics and --metrics-file refreshed
 * while tracing (each -i interval, else every second) from a fresh read
 * of the maps; at the end the server gets the final model with the
 * advice, and the files are outputs.c's. The renderers are in
 * user/report (metrics_text.c, metrics_http.c); this file feeds them.
 */
#ifndef SPINSCOPE_TRACE_EXPORTS_H
#define SPINSCOPE_TRACE_EXPORTS_H

#include <linux/types.h>
#include "cli.h"
#include "report/pprof.h"
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

/* Starts the metrics server, before tracing: 0 or an exit code (the
 * error printed). */
int trace_exports__open(struct trace_exports *ex, const struct ss_opts *o, const char *comm);
/* While tracing: refreshes the metrics when one is due (now_ns, the
 * tracer's clock). Failures are warned about once, never fatal. */
void trace_exports__tick(struct trace_exports *ex, struct tracer *t, struct syms *syms,
			 __u64 now_ns);
/* After the render: the server's final page. */
void trace_exports__final(struct trace_exports *ex, const struct ss_report *rep);
/* pprof's view of an address (arg: the trace's syms): its name, module,
 * file offset and the module's build-id. */
int trace_exports__pprof_resolve(void *arg, uint64_t ip, struct pprof_frame *out);
void trace_exports__close(struct trace_exports *ex);

#endif

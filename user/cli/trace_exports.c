// SPDX-License-Identifier: GPL-2.0
/* Feeds the exports of `spinscope -p` (see trace_exports.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/errors.h"
#include "common/outfile.h"
#include "report/metrics_http.h"
#include "report/metrics_text.h"
#include "report/pprof.h"
#include "syms/syms.h"
#include "trace/tracer.h"
#include "trace_exports.h"

#define LIVE_STEP_NS 1000000000ull

int trace_exports__open(struct trace_exports *ex, const struct ss_opts *o, const char *comm)
{
	char addr[64], why[512];
	unsigned int port;

	memset(ex, 0, sizeof(*ex));
	ex->o = o;
	ex->pid = o->pid;
	snprintf(ex->comm, sizeof(ex->comm), "%s", comm);
	ex->step_ns = o->interval_s > 0 ? (__u64)(o->interval_s * 1e9) : LIVE_STEP_NS;
	if (!o->metrics_addr)
		return 0;
	if (metrics_http__parse_addr(o->metrics_addr, addr, sizeof(addr), &port, why, sizeof(why)))
		return ss_error(SS_EXIT_USAGE, "%s", why);
	ex->http = metrics_http__start(addr, port, o->metrics_token, why, sizeof(why));
	return ex->http ? 0 : ss_error(SS_EXIT_USAGE, "%s", why);
}

static int read_live_stack(void *arg, __s32 id, __u64 *ips, int max)
{
	int n = tracer__stack(arg, id, ips, max);

	return n < 0 ? 0 : n;	/* gone from the map: no frames, unnamed */
}

/* Report frames ("func+0x12 (module)"; callers' at the call, ip - 1). */
static const char *live_frame(void *arg, __u64 ip, int depth, char *buf, size_t len)
{
	if (!arg) {
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
		return buf;
	}
	return syms__format(arg, depth ? ip - 1 : ip, buf, len);
}

/* The stacks that name the metrics' locks and sites (the top ones), named
 * as the report names them, so that a live refresh labels them as the
 * final one and the advice do. */
static int live_stacks(struct tracer *t, struct syms *syms, const struct ss_profile *p,
		       struct ss_stacks *out)
{
	int err = 0;

	for (size_t i = 0; i < p->nfutexes && i < METRICS_TOP_N; i++)
		for (size_t k = 0; k < p->futexes[i].nstacks; k++)
			err = err ?: stacks__add(out, p->futexes[i].stacks[k].stack_id, read_live_stack, t);
	for (size_t i = 0; i < p->nyields && i < METRICS_TOP_N; i++)
		err = err ?: stacks__add(out, p->yields[i].stack_id, read_live_stack, t);
	return err ?: stacks__symbolize(out, live_frame, syms);
}

/* Renders r and hands the text to the server and the file. */
static int publish(struct trace_exports *ex, const struct ss_report *r, char *why, size_t whylen)
{
	char *text;
	size_t len;
	int err = metrics_text__render(r, &text, &len);

	if (err) {
		snprintf(why, whylen, "%s", strerror(-err));
		return err;
	}
	if (ex->o->out.path[SS_OUT_METRICS_FILE])
		err = outfile__save(ex->o->out.path[SS_OUT_METRICS_FILE], text, len, why, whylen);
	if (ex->http)
		metrics_http__publish(ex->http, text, len);
	else
		free(text);
	return err;
}

void trace_exports__tick(struct trace_exports *ex, struct tracer *t, struct syms *syms,
			 __u64 now_ns)
{
	struct ss_stacks stacks = { 0 };
	struct ss_profile cur;
	struct ss_report r = { .pid = ex->pid, .stacks = &stacks };
	char why[512] = "";
	int err;

	if ((!ex->http && !ex->o->out.path[SS_OUT_METRICS_FILE]) || now_ns < ex->next_ns)
		return;
	ex->next_ns = now_ns + ex->step_ns;
	err = tracer__read(t, &cur);
	if (!err) {
		snprintf(r.comm, sizeof(r.comm), "%s", ex->comm);
		r.profile = &cur;
		err = live_stacks(t, syms, &cur, &stacks);
		if (err)
			snprintf(why, sizeof(why), "cannot name the stacks: %s", strerror(-err));
		else
			err = publish(ex, &r, why, sizeof(why));
		stacks__free(&stacks);
		profile_free(&cur);
	} else {
		snprintf(why, sizeof(why), "cannot read the BPF maps: %s", strerror(-err));
	}
	if (err && !ex->warned) {
		ss_warn("cannot refresh the metrics: %s (tracing goes on)", why);
		ex->warned = true;
	}
}

/* pprof's view of an address: syms' name, module, file offset and the
 * module's build-id. */
int trace_exports__pprof_resolve(void *arg, uint64_t ip, struct pprof_frame *out)
{
	static char build_id[2 * 64 + 1];
	struct sym_info si;

	if (!arg || syms__resolve(arg, ip, &si))
		return -ENOENT;
	out->name = si.name;
	out->module = si.module;
	out->module_offset = si.module_offset;
	out->build_id = syms__build_id(arg, ip, build_id, sizeof(build_id)) ? NULL : build_id;
	return 0;
}

void trace_exports__final(struct trace_exports *ex, const struct ss_report *rep)
{
	char *text;
	size_t len;

	/* The server's last page: what the metrics file (outputs.c) gets. */
	if (ex->http && !metrics_text__render(rep, &text, &len))
		metrics_http__publish(ex->http, text, len);
}

void trace_exports__close(struct trace_exports *ex)
{
	metrics_http__stop(ex->http);
	ex->http = NULL;
}

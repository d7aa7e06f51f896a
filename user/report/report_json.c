// SPDX-License-Identifier: GPL-2.0
/* The JSON form of a trace report (schema SS_JSON_SCHEMA, keys documented
 * in README.md). */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "report.h"

#define U64(v) json_object_new_uint64(v)

static void add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *hist_json(const __u64 *slots, int n)
{
	json_object *a = json_object_new_array();
	int last = n - 1;

	/* Trailing empty slots say nothing; keep the array short. */
	while (last > 0 && !slots[last])
		last--;
	for (int i = 0; i <= last; i++)
		json_object_array_add(a, U64(slots[i]));
	return a;
}

/* {name: count} from a table of names and the counts they label. */
static json_object *named_counts_json(const char *const *names, const __u64 *v, int n)
{
	json_object *j = json_object_new_object();

	for (int i = 0; i < n; i++)
		add(j, names[i], U64(v[i]));
	return j;
}

/* The counters "totals" and each thread share: struct ss_totals and struct
 * ss_thread name them alike, so one macro serves both. */
#define COUNTERS_JSON(o, t) do {						\
		add(o, "sched_yield", U64((t)->sched_yield));			\
		add(o, "futex_wait", U64((t)->futex_wait));			\
		add(o, "futex_wait_ns", U64((t)->futex_wait_ns));		\
		add(o, "futex_wake", U64((t)->futex_wake));			\
		add(o, "futex_woken", U64((t)->futex_woken));			\
		add(o, "switches_voluntary", U64((t)->switches_voluntary));	\
		add(o, "switches_involuntary", U64((t)->switches_involuntary)); \
		add(o, "oncpu_ns", U64((t)->oncpu_ns));				\
		add(o, "offcpu_ns", U64((t)->offcpu_ns));			\
		add(o, "runq_count", U64((t)->runq_count));			\
		add(o, "runq_ns", U64((t)->runq_ns));				\
		add(o, "runq_ns_max", U64((t)->runq_ns_max));			\
		add(o, "futex_outcomes", named_counts_json(ss_outcome_names,	\
				(t)->futex_outcome, SS_FUTEX_OUTCOMES));	\
		add(o, "runq_hist_log2_ns", hist_json((t)->runq_hist, SS_HIST_SLOTS)); \
	} while (0)

static json_object *totals_json(const struct ss_totals *t)
{
	json_object *o = json_object_new_object();

	add(o, "threads", U64(t->threads));
	COUNTERS_JSON(o, t);
	return o;
}

static json_object *thread_json(const struct ss_thread *t)
{
	json_object *o = json_object_new_object();

	add(o, "tid", json_object_new_int(t->tid));
	add(o, "comm", json_object_new_string_len(t->comm, strnlen(t->comm, sizeof(t->comm))));
	add(o, "exited", json_object_new_boolean(t->flags & SS_THREAD_EXITED));
	COUNTERS_JSON(o, t);
	add(o, "futex_wait_ns_max", U64(t->futex_wait_ns_max));
	return o;
}

static json_object *stack_json(const struct ss_stacks *stacks, __s32 id, __u64 count, __u64 wait_ns,
			       bool with_wait)
{
	const struct ss_stack *st = stacks ? stacks__find(stacks, id) : NULL;
	json_object *o = json_object_new_object(), *frames = json_object_new_array();

	add(o, "stack_id", json_object_new_int(id));
	add(o, "count", U64(count));
	if (with_wait)
		add(o, "wait_ns", U64(wait_ns));
	for (int d = 0; st && d < st->depth; d++) {
		char hex[32];

		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)st->ips[d]);
		json_object_array_add(frames, json_object_new_string(st->frames ? st->frames[d] : hex));
	}
	add(o, "frames", frames);
	return o;
}

static json_object *futex_json(const struct ss_futex_rec *r, const struct ss_stacks *stacks)
{
	json_object *o = json_object_new_object(), *st = json_object_new_array();
	char addr[32];

	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)r->uaddr);
	add(o, "uaddr", json_object_new_string(addr));
	add(o, "waits", U64(r->f.waits));
	add(o, "wait_ns", U64(r->f.wait_ns));
	add(o, "wait_ns_max", U64(r->f.wait_ns_max));
	add(o, "wakes", U64(r->f.wakes));
	add(o, "woken", U64(r->f.woken));
	add(o, "waiter_threads", json_object_new_int(r->waiters));
	add(o, "outcomes", named_counts_json(ss_outcome_names, r->f.outcome, SS_FUTEX_OUTCOMES));
	add(o, "hist_log2_ns", hist_json(r->f.hist, SS_HIST_SLOTS));
	for (size_t i = 0; i < r->nstacks && i < SS_REPORT_TOP_STACKS; i++)
		if (r->stacks[i].stack_id >= 0)
			json_object_array_add(st, stack_json(stacks, r->stacks[i].stack_id, r->stacks[i].count,
						     r->stacks[i].wait_ns, true));
	add(o, "stacks", st);
	return o;
}

json_object *report_to_json(const struct ss_report *r)
{
	const struct ss_profile *p = r->profile;
	json_object *root = json_object_new_object(), *o, *a;

	add(root, "schema", json_object_new_int(SS_JSON_SCHEMA));
	o = json_object_new_object();
	add(o, "name", json_object_new_string("spinscope"));
	add(o, "version", json_object_new_string(SS_VERSION));
	add(root, "tool", o);

	o = json_object_new_object();
	add(o, "hostname", json_object_new_string(r->host->hostname));
	add(o, "kernel", json_object_new_string(r->host->kernel));
	add(o, "machine", json_object_new_string(r->host->machine));
	add(o, "cpus", json_object_new_int(r->host->cpus));
	add(o, "cpu_model", json_object_new_string(r->host->cpu_model));
	add(root, "host", o);

	o = json_object_new_object();
	add(o, "pid", json_object_new_int(r->pid));
	if (r->tid)
		add(o, "tid", json_object_new_int(r->tid));
	add(o, "comm", json_object_new_string(r->comm));
	add(o, "exited", json_object_new_boolean(r->exited));
	add(root, "target", o);
	add(root, "duration_ns", U64(r->duration_ns));

	o = json_object_new_object();
	add(o, "futex", json_object_new_boolean(true));
	add(o, "futex_waitv", json_object_new_boolean(r->futex_waitv_traced));
	add(o, "futex2", json_object_new_boolean(r->futex2_traced));
	add(o, "sched_yield", json_object_new_boolean(true));
	add(o, "sched", json_object_new_string(r->sched_btf ? "tp_btf" : "raw_tp"));
	add(root, "traced", o);

	add(root, "totals", totals_json(&p->totals));
	a = json_object_new_array();
	for (size_t i = 0; i < p->nthreads; i++)
		json_object_array_add(a, thread_json(&p->threads[i]));
	add(root, "threads", a);

	a = json_object_new_array();
	for (size_t i = 0; i < p->nfutexes; i++)
		json_object_array_add(a, futex_json(&p->futexes[i], r->stacks));
	add(root, "futexes", a);

	a = json_object_new_array();
	for (size_t i = 0; i < p->nyields; i++)
		json_object_array_add(a, stack_json(r->stacks, p->yields[i].stack_id, p->yields[i].count,
						    0, false));
	add(root, "yield_sites", a);

	add(root, "dropped", named_counts_json(ss_drop_names, p->drops, SS_DROPS));
	o = json_object_new_object();
	a = json_object_new_array();
	for (size_t i = 0; i < r->symbols.nno_fp; i++)
		json_object_array_add(a, json_object_new_string(r->symbols.no_fp[i]));
	add(o, "modules_without_frame_pointers", a);
	add(o, "stacks", U64(r->symbols.stacks));
	add(o, "stacks_truncated", U64(r->symbols.stacks_truncated));
	add(o, "stacks_unnamed_end", U64(r->symbols.stacks_unnamed_end));
	add(o, "addresses_resolved", U64(r->symbols.resolved));
	add(o, "addresses_module_only", U64(r->symbols.module_only));
	add(o, "addresses_unknown", U64(r->symbols.unknown));
	add(root, "symbols", o);
	if (r->samples)
		add(root, "samples", json_object_get(r->samples));
	add(root, "advice", r->advice ? json_object_get(r->advice) : json_object_new_array());
	return root;
}

json_object *report_interval_json(const struct ss_profile *p, double t_s)
{
	json_object *root = json_object_new_object(), *a = json_object_new_array();

	add(root, "type", json_object_new_string("interval"));
	{
		char ts[32];

		/* Milliseconds are the resolution that matters here. */
		snprintf(ts, sizeof(ts), "%.3f", t_s);
		add(root, "t_s", json_object_new_double_s(t_s, ts));
	}
	add(root, "duration_ns", U64(p->now_ns - p->start_ns));
	add(root, "totals", totals_json(&p->totals));
	for (size_t i = 0; i < p->nthreads; i++)
		json_object_array_add(a, thread_json(&p->threads[i]));
	add(root, "threads", a);
	add(root, "dropped", named_counts_json(ss_drop_names, p->drops, SS_DROPS));
	return root;
}

// SPDX-License-Identifier: GPL-2.0
/* The JSON form of a trace report (schema SS_JSON_SCHEMA, keys documented
 * in docs/REFERENCE.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/version.h"
#include "advice.h"
#include "report.h"
#include "verdict.h"
#include "recording_json.h"
#include "samples_report.h"
#include "model/releases.h"

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

/*
 * The counters of a JSON object, from the lists in bpf/trace.h: the scalars
 * whose json column is `scope`, or (scope ARRAYS) the arrays, each under its
 * key and in its form. An object shows ALL, then ARRAYS, then its extras.
 */
enum scope { SCOPE_NONE, SCOPE_ALL, SCOPE_THREAD, SCOPE_ARRAYS };
#define JSON_HIST(v, n) hist_json(v, n)
#define JSON_OUTCOMES(v, n) named_counts_json(ss_outcome_names, v, n)
#define JSON_KEY(key, form) #key
#define JSON_FORM(key, form) JSON_##form
#define JSON_SCALAR(name, kind, unit, json)					\
	if (scope == SCOPE_##json)						\
		add(o, #name, U64(c->name));
#define JSON_ARRAY(name, slots, kind, unit, json)				\
	if (scope == SCOPE_ARRAYS)						\
		add(o, JSON_KEY json, JSON_FORM json(c->name, slots));
#define DEFINE_COUNTERS_JSON(fn, type, list)					\
	static void fn(json_object *o, const type *c, enum scope scope)		\
	{									\
		list(JSON_SCALAR, JSON_ARRAY)					\
	}
DEFINE_COUNTERS_JSON(thread_counters_json, struct ss_thread, SS_THREAD_COUNTERS)
DEFINE_COUNTERS_JSON(totals_counters_json, struct ss_totals, SS_THREAD_COUNTERS)
DEFINE_COUNTERS_JSON(futex_counters_json, struct ss_futex, SS_FUTEX_COUNTERS)
DEFINE_COUNTERS_JSON(release_counters_json, struct ss_release_val, SS_RELEASE_COUNTERS)

static json_object *totals_json(const struct ss_totals *t)
{
	json_object *o = json_object_new_object();

	add(o, "threads", U64(t->threads));
	totals_counters_json(o, t, SCOPE_ALL);
	totals_counters_json(o, t, SCOPE_ARRAYS);
	return o;
}

static json_object *thread_json(const struct ss_thread *t)
{
	json_object *o = json_object_new_object();

	add(o, "tid", json_object_new_int(t->tid));
	add(o, "comm", json_object_new_string_len(t->comm, strnlen(t->comm, sizeof(t->comm))));
	add(o, "exited", json_object_new_boolean(t->flags & SS_THREAD_EXITED));
	thread_counters_json(o, t, SCOPE_ALL);
	thread_counters_json(o, t, SCOPE_ARRAYS);
	thread_counters_json(o, t, SCOPE_THREAD);
	return o;
}

/* A name's exited threads, folded at their exit (model/profile.h). */
static json_object *exited_json(const struct ss_exited_group *g)
{
	json_object *o = json_object_new_object();

	add(o, "comm", json_object_new_string_len(g->comm, strnlen(g->comm, sizeof(g->comm))));
	add(o, "threads", U64(g->x.threads));
	totals_counters_json(o, &g->x, SCOPE_ALL);
	totals_counters_json(o, &g->x, SCOPE_ARRAYS);
	totals_counters_json(o, &g->x, SCOPE_THREAD);
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

/* "release_sites" and "holders" of a word used as a lock (a condition
 * variable's signallers are not its holders) whose wakes found waiters
 * (model/releases.h); neither key otherwise. */
static void releases_json(json_object *o, const struct ss_futex_rec *r,
			  const struct ss_profile *p, const struct ss_stacks *stacks)
{
	json_object *sites, *holders;
	struct ss_release_site *s = NULL;
	struct ss_holder *h = NULL;
	long ns, nh;

	if (!r->nreleases || !releases_word_is_lock(r))
		return;
	sites = json_object_new_array();
	holders = json_object_new_array();
	ns = releases_sites(r, &s);
	nh = releases_holders(r, &h);
	for (long i = 0; i < ns; i++) {
		json_object *x = stack_json(stacks, s[i].stack_id, s[i].v.wakes, 0, false);

		add(x, "threads", json_object_new_int(s[i].threads));
		release_counters_json(x, &s[i].v, SCOPE_ALL);
		release_counters_json(x, &s[i].v, SCOPE_ARRAYS);
		json_object_array_add(sites, x);
	}
	for (long i = 0; i < nh; i++) {
		json_object *x = json_object_new_object();
		const char *comm = profile_thread_comm(p, h[i].tid) ?: "";
		size_t len = strnlen(comm, SS_COMM_LEN);

		add(x, "tid", json_object_new_int(h[i].tid));
		add(x, "comm", json_object_new_string_len(comm, len));
		add(x, "releases", U64(h[i].releases));
		add(x, "woken", U64(h[i].woken));
		add(x, "held_contended_ns", U64(h[i].held_contended_ns));
		add(x, "also_waits", json_object_new_boolean(h[i].also_waits));
		json_object_array_add(holders, x);
	}
	add(o, "release_sites", sites);
	add(o, "holders", holders);
	free(s);
	free(h);
}

/* "running_threads_ns": [time with 0, 1, ... running], the last slot
 * that many or more; trailing empty slots dropped. */
static json_object *running_json(const struct ss_profile *p)
{
	json_object *a = json_object_new_array();
	int n = SS_CONC_SLOTS;

	while (n > 0 && !p->running_ns[n - 1])
		n--;
	for (int i = 0; i < n; i++)
		json_object_array_add(a, U64(p->running_ns[i]));
	return a;
}

static json_object *futex_json(const struct ss_futex_rec *r, const struct ss_profile *p,
			       const struct ss_stacks *stacks)
{
	json_object *o = json_object_new_object(), *st = json_object_new_array();
	char addr[32];

	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)r->uaddr);
	add(o, "uaddr", json_object_new_string(addr));
	futex_counters_json(o, &r->f, SCOPE_ALL);
	add(o, "waiter_threads", json_object_new_int(r->waiters));
	futex_counters_json(o, &r->f, SCOPE_ARRAYS);
	for (size_t i = 0; i < r->nstacks && i < SS_REPORT_TOP_STACKS; i++)
		if (r->stacks[i].stack_id >= 0)
			json_object_array_add(st, stack_json(stacks, r->stacks[i].stack_id, r->stacks[i].count,
						     r->stacks[i].wait_ns, true));
	add(o, "stacks", st);
	releases_json(o, r, p, stacks);
	return o;
}

json_object *report_kernel_features_json(const struct kernel_features *f)
{
	json_object *o = json_object_new_object();

#define SS_KF_JSON(name) add(o, #name, json_object_new_boolean(f->name.ok));
	SS_KFEATURES(SS_KF_JSON)
#undef SS_KF_JSON
	return o;
}

/* The CFI unwinder: whether it ran, and its counts (cut_short: stacks
 * whose unwinding stopped inside code without frame pointers). */
static json_object *unwind_json(const struct ss_report_symbols *s)
{
	json_object *o = json_object_new_object();

	add(o, "enabled", json_object_new_boolean(s->unwind_on));
	for (int i = 0; i < SS_UNWIND_NSTATS; i++)
		add(o, ss_unwind_stat_names[i], U64(s->unwind[i]));
	return o;
}

/* The host traced on, and its load during the trace. */
static json_object *host_json(const struct ss_report *r)
{
	json_object *o = json_object_new_object();

	add(o, "hostname", json_object_new_string(r->host->hostname));
	add(o, "kernel", json_object_new_string(r->host->kernel));
	add(o, "machine", json_object_new_string(r->host->machine));
	add(o, "cpus", json_object_new_int(r->host->cpus));
	add(o, "cpu_model", json_object_new_string(r->host->cpu_model));
	/* The host's load during the trace (absent when /proc/stat failed). */
	if (r->host_load.measured) {
		add(o, "busy_cpus", json_object_new_double(r->host_load.busy_cpus));
		add(o, "busy_other_cpus", json_object_new_double(r->host_load.busy_other_cpus));
	}
	return o;
}

/* What was traced, and by which mechanism. */
static json_object *traced_json(const struct ss_report *r)
{
	json_object *o = json_object_new_object();

	add(o, "futex", json_object_new_boolean(true));
	add(o, "futex_waitv", json_object_new_boolean(r->futex_waitv_traced));
	add(o, "futex2", json_object_new_boolean(r->futex2_traced));
	add(o, "sched_yield", json_object_new_boolean(true));
	add(o, "sched", json_object_new_string(r->sched_btf ? "tp_btf" : "raw_tp"));
	add(o, "mechanism", json_object_new_string(report_mechanism(r)));
	add(o, "mechanism_cost", json_object_new_string(report_mechanism_cost(r)));
	if (r->light) {
		json_object *blind = json_object_new_array();

		for (int i = 0; ss_light_blind_spots[i]; i++)
			json_object_array_add(blind, json_object_new_string(ss_light_blind_spots[i]));
		add(o, "blind_spots", blind);
	}
	return o;
}

/* How well the stacks were named. */
static json_object *symbols_json(const struct ss_report_symbols *s)
{
	json_object *o = json_object_new_object(), *a;

	a = json_object_new_array();
	for (size_t i = 0; i < s->nno_fp; i++)
		json_object_array_add(a, json_object_new_string(s->no_fp[i]));
	add(o, "modules_without_frame_pointers", a);
	add(o, "stacks", U64(s->stacks));
	add(o, "stacks_truncated", U64(s->stacks_truncated));
	add(o, "stacks_unnamed_end", U64(s->stacks_unnamed_end));
	add(o, "addresses_resolved", U64(s->resolved));
	add(o, "addresses_module_only", U64(s->module_only));
	add(o, "addresses_unknown", U64(s->unknown));
	add(o, "unwind", unwind_json(s));
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

	add(root, "host", host_json(r));

	o = json_object_new_object();
	add(o, "pid", json_object_new_int(r->pid));
	if (r->tid)
		add(o, "tid", json_object_new_int(r->tid));
	add(o, "comm", json_object_new_string(r->comm));
	add(o, "exited", json_object_new_boolean(r->exited));
	add(root, "target", o);
	add(root, "duration_ns", U64(r->duration_ns));

	add(root, "traced", traced_json(r));
	if (r->kernel_features)
		add(root, "kernel_features", report_kernel_features_json(r->kernel_features));

	add(root, "totals", totals_json(&p->totals));
	a = json_object_new_array();
	for (size_t i = 0; i < p->nthreads; i++)
		json_object_array_add(a, thread_json(&p->threads[i]));
	add(root, "threads", a);
	if (p->nexited) {
		a = json_object_new_array();
		for (size_t i = 0; i < p->nexited; i++)
			json_object_array_add(a, exited_json(&p->exited[i]));
		add(root, "exited_threads", a);
	}

	a = json_object_new_array();
	for (size_t i = 0; i < p->nfutexes; i++)
		json_object_array_add(a, futex_json(&p->futexes[i], p, r->stacks));
	add(root, "futexes", a);

	a = json_object_new_array();
	for (size_t i = 0; i < p->nyields; i++)
		json_object_array_add(a, stack_json(r->stacks, p->yields[i].stack_id, p->yields[i].count,
						    0, false));
	add(root, "yield_sites", a);

	add(root, "dropped", named_counts_json(ss_drop_names, p->drops, SS_DROPS));
	add(root, "running_threads_ns", running_json(p));
	add(root, "symbols", symbols_json(&r->symbols));
	if (r->jvm_map)
		add(root, "jvm_perf_map", json_object_new_string(r->jvm_map));
	if (r->samples)
		add(root, "samples", samples__to_json(r->samples, r->name, r->name_arg));
	add(root, "advice", r->advice ? advice__to_json(r->advice) : json_object_new_array());
	if (r->advice)
		add(root, "verdict", verdict__to_json(r->advice));
	recording__add_sections(root, r);
	return root;
}

json_object *report_interval_json(const struct ss_profile *p, double t_s, bool with_threads)
{
	json_object *root = json_object_new_object();

	add(root, "type", json_object_new_string("interval"));
	{
		char ts[32];

		/* Milliseconds are the resolution that matters here. */
		snprintf(ts, sizeof(ts), "%.3f", t_s);
		add(root, "t_s", json_object_new_double_s(t_s, ts));
	}
	add(root, "duration_ns", U64(p->now_ns - p->start_ns));
	add(root, "totals", totals_json(&p->totals));
	if (with_threads) {
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < p->nthreads; i++)
			json_object_array_add(a, thread_json(&p->threads[i]));
		add(root, "threads", a);
	}
	add(root, "dropped", named_counts_json(ss_drop_names, p->drops, SS_DROPS));
	return root;
}

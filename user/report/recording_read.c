// SPDX-License-Identifier: GPL-2.0
/* A recording back into the model (see recording_read.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/sort.h"
#include "advisor/runtime.h"
#include "common/errors.h"
#include "common/names.h"
#include "common/grow.h"
#include "model/counters.h"
#include "recording.h"
#include "recording_json.h"
#include "recording_check.h"
#include "samples_report.h"
#include "recording_read.h"

/* ---- typed, bounded access to untrusted JSON ----------------------------- */

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static json_object *get_type(json_object *o, const char *key, json_type t)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, t) ? v : NULL;
}

/* An array's length, capped; 0 for anything else. */
static size_t arr_len(json_object *a)
{
	size_t n;

	if (!a || !json_object_is_type(a, json_type_array))
		return 0;
	n = json_object_array_length(a);
	return n < SS_RECORDING_MAX_ITEMS ? n : SS_RECORDING_MAX_ITEMS;
}

/* A count: a non-negative integer, or a "0x..." string (addresses). */
static __u64 num(json_object *v)
{
	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return 0;
		return json_object_get_uint64(v);
	}
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);

		return s && s[0] == '0' && s[1] == 'x' ? strtoull(s, NULL, 16) : 0;
	}
	return 0;
}

static __u64 get_u64(json_object *o, const char *key)
{
	return num(get(o, key));
}

static bool get_bool(json_object *o, const char *key)
{
	json_object *v = get_type(o, key, json_type_boolean);

	return v && json_object_get_boolean(v);
}

/* A string field, or NULL; it lives as long as the document. */
static const char *get_str(json_object *o, const char *key)
{
	json_object *v = get_type(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

static void copy_str(char *dst, size_t len, json_object *o, const char *key)
{
	const char *s = get_str(o, key);

	snprintf(dst, len, "%s", s ? s : "");
}

static void *alloc_n(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* ---- counters, through the lists of bpf/trace.h -------------------------- */

static void read_hist(json_object *a, __u64 *slots, size_t n)
{
	for (size_t i = 0; i < n && i < arr_len(a); i++)
		slots[i] = num(json_object_array_get_idx(a, i));
}

static void read_outcomes(json_object *o, __u64 *v, size_t n)
{
	for (size_t i = 0; i < n && i < SS_FUTEX_OUTCOMES; i++)
		v[i] = get_u64(o, ss_outcome_names[i]);
}

#define READ_HIST(o, key, v, n) read_hist(get(o, key), v, n)
#define READ_OUTCOMES(o, key, v, n) read_outcomes(get(o, key), v, n)
#define READ_KEY(key, form) #key
#define READ_FORM(key, form) READ_##form
/* Counters the report leaves out (json NONE) sit in "unreported_counters". */
#define READ_SCALAR(name, kind, unit, json)					\
	c->name = get_u64(SS_JSON_##json == SS_JSON_NONE ? get(o, "unreported_counters") : o, #name);
#define READ_ARRAY(name, slots, kind, unit, json) READ_FORM json(o, READ_KEY json, c->name, slots);
#define DEFINE_COUNTERS_READ(fn, type, list)					\
	static void fn(json_object *o, type *c)				\
	{									\
		list(READ_SCALAR, READ_ARRAY)					\
	}
DEFINE_COUNTERS_READ(thread_counters_read, struct ss_thread, SS_THREAD_COUNTERS)
DEFINE_COUNTERS_READ(totals_counters_read, struct ss_totals, SS_THREAD_COUNTERS)
DEFINE_COUNTERS_READ(futex_counters_read, struct ss_futex, SS_FUTEX_COUNTERS)
DEFINE_COUNTERS_READ(release_counters_read, struct ss_release_val, SS_RELEASE_COUNTERS)

/* ---- the profile --------------------------------------------------------- */

/* Recordings from before waits were split into blocked and at-once ones
 * lack those keys: the outcomes say the same (slept: woken, timed out,
 * interrupted; at once: value changed). Their wait times still include the
 * at-once calls. */
static void split_old_waits(json_object *o, const __u64 *outcome, __u64 *blocked, __u64 *at_once,
			    const char *key)
{
	if (json_object_object_get_ex(o, key, NULL))
		return;
	*blocked = outcome[SS_FUTEX_WOKEN] + outcome[SS_FUTEX_TIMEDOUT] + outcome[SS_FUTEX_INTR];
	*at_once = outcome[SS_FUTEX_AGAIN];
}

static int read_threads(struct ss_recording *rec)
{
	json_object *a = get(rec->doc, "threads");
	struct ss_profile *p = &rec->prof;

	p->threads = alloc_n(arr_len(a), sizeof(*p->threads));
	if (!p->threads)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		struct ss_thread *t = &p->threads[p->nthreads++];

		thread_counters_read(o, t);
		split_old_waits(o, t->futex_outcome, &t->futex_blocked, &t->futex_returned_at_once,
				"futex_blocked");
		t->tid = (__u32)get_u64(o, "tid");
		copy_str(t->comm, sizeof(t->comm), o, "comm");
		if (get_bool(o, "exited"))
			t->flags |= SS_THREAD_EXITED;
	}
	return 0;
}

/* The exited threads' groups by name (none before they were folded). */
static int read_exited(struct ss_recording *rec)
{
	json_object *a = get(rec->doc, "exited_threads");
	struct ss_profile *p = &rec->prof;

	if (!arr_len(a))
		return 0;
	p->exited = alloc_n(arr_len(a), sizeof(*p->exited));
	if (!p->exited)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		struct ss_exited_group *g = &p->exited[p->nexited++];

		totals_counters_read(o, &g->x);
		g->x.threads = get_u64(o, "threads");
		copy_str(g->comm, sizeof(g->comm), o, "comm");
	}
	return 0;
}

struct stack_index {
	__s32 stack_id;
	size_t at;
};

static int index_cmp(const void *a, const void *b)
{
	const struct stack_index *x = a, *y = b;

	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* Each stack's at-once count, the sum of its shares' (found by bisection:
 * a hostile file may hold many of both). */
static int add_at_once(struct ss_futex_rec *r)
{
	struct stack_index *ix = alloc_n(r->nstacks, sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (size_t k = 0; k < r->nstacks; k++)
		ix[k] = (struct stack_index){ .stack_id = r->stacks[k].stack_id, .at = k };
	if (r->nstacks > 1)
		ss_sort(ix, r->nstacks, sizeof(*ix), index_cmp);
	for (size_t k = 0; k < r->nshares; k++) {
		struct stack_index key = { .stack_id = r->shares[k].stack_id };
		const struct stack_index *hit = r->nstacks ?
			bsearch(&key, ix, r->nstacks, sizeof(*ix), index_cmp) : NULL;

		if (hit)
			r->stacks[hit->at].at_once += r->shares[k].at_once;
	}
	free(ix);
	return 0;
}

/* Each thread's share of the waiter stacks, [stack_id, tid, count,
 * wait_ns, at_once] since 1.1 (absent before: NULL); the stacks' at-once
 * counts are their sums (waiter_stacks keeps its 1.0 form). */
static int read_shares(json_object *a, struct ss_futex_rec *r)
{
	if (!a)
		return 0;
	r->shares = alloc_n(arr_len(a), sizeof(*r->shares));
	if (!r->shares)
		return -ENOMEM;
	for (size_t k = 0; k < arr_len(a); k++) {
		json_object *e = json_object_array_get_idx(a, k), *id;
		struct ss_waiter_share *w = &r->shares[r->nshares++];

		if (arr_len(e) != 5)
			continue;
		id = json_object_array_get_idx(e, 0);
		w->stack_id = json_object_is_type(id, json_type_int) ? json_object_get_int(id) : -1;
		w->tid = (__u32)num(json_object_array_get_idx(e, 1));
		w->count = num(json_object_array_get_idx(e, 2));
		w->wait_ns = num(json_object_array_get_idx(e, 3));
		w->at_once = num(json_object_array_get_idx(e, 4));
	}
	return add_at_once(r);
}

/* Waiter stacks: [id, count, wait_ns] since 1.0, else the top ones shown. */
static int read_waiters(json_object *o, struct ss_futex_rec *r)
{
	json_object *all = get_type(o, "waiter_stacks", json_type_array), *tids;
	json_object *shown = get(o, "stacks");
	size_t n = all ? arr_len(all) : arr_len(shown);

	r->stacks = alloc_n(n, sizeof(*r->stacks));
	if (!r->stacks)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		json_object *e = json_object_array_get_idx(all ? all : shown, k);
		struct ss_waiter_stack *w = &r->stacks[r->nstacks++];

		if (all) {
			json_object *id = arr_len(e) == 3 ? json_object_array_get_idx(e, 0) : NULL;

			w->stack_id = id && json_object_is_type(id, json_type_int) ?
				      json_object_get_int(id) : -1;
			w->count = num(arr_len(e) == 3 ? json_object_array_get_idx(e, 1) : NULL);
			w->wait_ns = num(arr_len(e) == 3 ? json_object_array_get_idx(e, 2) : NULL);
		} else {
			w->stack_id = (__s32)get_u64(e, "stack_id");
			w->count = get_u64(e, "count");
			w->wait_ns = get_u64(e, "wait_ns");
		}
	}
	if (read_shares(get_type(o, "waiter_shares", json_type_array), r))
		return -ENOMEM;
	/* The count as reported; the tids only as far as they were kept. */
	tids = get_type(o, "waiter_tids", json_type_array);
	r->waiters = (__u32)get_u64(o, "waiter_threads");
	if (!tids || arr_len(tids) != r->waiters)
		return 0;
	r->tids = alloc_n(arr_len(tids), sizeof(*r->tids));
	if (!r->tids)
		return -ENOMEM;
	for (size_t k = 0; k < arr_len(tids); k++)
		r->tids[k] = (__u32)num(json_object_array_get_idx(tids, k));
	return 0;
}

/* Release records (per stack and thread) since they were traced. */
static int read_releases(json_object *o, struct ss_futex_rec *r)
{
	json_object *a = get_type(o, "release_records", json_type_array);

	if (!a || !arr_len(a))
		return 0;
	r->releases = alloc_n(arr_len(a), sizeof(*r->releases));
	if (!r->releases)
		return -ENOMEM;
	for (size_t k = 0; k < arr_len(a); k++) {
		json_object *e = json_object_array_get_idx(a, k);
		struct ss_release_rec *rel = &r->releases[r->nreleases++];

		json_object *id = get(e, "stack_id");

		/* Negative: not collected (-errno). */
		rel->stack_id = id && json_object_is_type(id, json_type_int) ?
				json_object_get_int(id) : -1;
		rel->tid = (__u32)get_u64(e, "tid");
		release_counters_read(e, &rel->v);
	}
	return 0;
}

static int read_futexes(struct ss_recording *rec)
{
	json_object *a = get(rec->doc, "futexes");
	struct ss_profile *p = &rec->prof;

	p->futexes = alloc_n(arr_len(a), sizeof(*p->futexes));
	if (!p->futexes)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		struct ss_futex_rec *r = &p->futexes[p->nfutexes++];

		r->uaddr = get_u64(o, "uaddr");
		futex_counters_read(o, &r->f);
		split_old_waits(o, r->f.outcome, &r->f.blocked, &r->f.returned_at_once, "blocked");
		if (read_waiters(o, r) || read_releases(o, r))
			return -ENOMEM;
	}
	return 0;
}

static int read_yields(struct ss_recording *rec)
{
	json_object *a = get(rec->doc, "yield_sites");
	struct ss_profile *p = &rec->prof;

	p->yields = alloc_n(arr_len(a), sizeof(*p->yields));
	if (!p->yields)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);

		p->yields[p->nyields].stack_id = (__s32)get_u64(o, "stack_id");
		p->yields[p->nyields++].count = get_u64(o, "count");
	}
	return 0;
}

static void read_drops(json_object *o, __u64 *drops)
{
	for (int i = 0; i < SS_DROPS; i++)
		drops[i] = get_u64(o, ss_drop_names[i]);
}

/* "running_threads_ns": absent in recordings made before it was measured. */
static void read_running(json_object *doc, __u64 *slots)
{
	json_object *a = get_type(doc, "running_threads_ns", json_type_array);
	size_t n = a ? arr_len(a) : 0;

	for (size_t i = 0; i < n && i < SS_CONC_SLOTS; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (json_object_is_type(v, json_type_int))
			slots[i] = (__u64)json_object_get_uint64(v);
	}
}

/* ---- stacks -------------------------------------------------------------- */

static struct ss_stack *new_stack(struct ss_stacks *s, __s32 id, size_t depth)
{
	struct ss_stack *st;

	if (depth > SS_MAX_STACK_DEPTH)
		depth = SS_MAX_STACK_DEPTH;
	if (ss_grow((void **)&s->v, s->n, &s->cap, sizeof(*s->v), 32))
		return NULL;
	st = &s->v[s->n];
	memset(st, 0, sizeof(*st));
	st->id = id;
	st->ips = alloc_n(depth, sizeof(*st->ips));
	st->frames = alloc_n(depth, sizeof(*st->frames));
	st->where = alloc_n(depth, sizeof(*st->where));
	s->n++;
	if (!st->ips || !st->frames || !st->where)
		return NULL;
	st->depth = (int)depth;
	return st;
}

/* One frame: {ip, name, module, offset, build_id} since 1.0, a name before.
 * Frames without an ip get one from base up. */
static int read_frame(json_object *f, struct ss_stack *st, int d, __u64 base)
{
	const char *name = json_object_is_type(f, json_type_string) ? json_object_get_string(f) :
			   get_str(f, "name");
	const char *module = get_str(f, "module");

	char hex[32];

	st->ips[d] = get_u64(f, "ip");
	/* Odd and two apart: a caller's ip - 1, which is what names it, stays
	 * distinct from every other frame's. */
	if (!st->ips[d])
		st->ips[d] = base + 2 * ((__u64)(__u32)st->id * SS_MAX_STACK_DEPTH + (__u64)d) + 1;
	/* Unnamed at trace time: the address, as the report shows it. */
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)st->ips[d]);
	st->frames[d] = strdup(name ? name : hex);
	if (!st->frames[d])
		return -ENOMEM;
	if (module) {
		st->where[d].module = strdup(module);
		if (!st->where[d].module)
			return -ENOMEM;
		st->where[d].offset = get_u64(f, "offset");
		st->where[d].vaddr = get_u64(f, "vaddr");
		copy_str(st->where[d].build_id, sizeof(st->where[d].build_id), f, "build_id");
	}
	return 0;
}

static int add_stack(struct ss_stacks *s, __s32 id, json_object *frames, __u64 base)
{
	struct ss_stack *st;

	if (id < 0 || stacks__find(s, id))
		return 0;
	st = new_stack(s, id, arr_len(frames));
	if (!st)
		return -ENOMEM;
	for (int d = 0; d < st->depth; d++)
		if (read_frame(json_object_array_get_idx(frames, d), st, d, base))
			return -ENOMEM;
	return 0;
}

/* A table of {id, frames} into s. */
static int read_stack_table(json_object *table, struct ss_stacks *s, __u64 base)
{
	int err = 0;

	for (size_t i = 0; i < arr_len(table) && !err; i++) {
		json_object *o = json_object_array_get_idx(table, i);

		err = add_stack(s, (__s32)get_u64(o, "id"), get(o, "frames"), base);
	}
	return err;
}

/* The stack table since 1.0; before it, the frames the report showed. */
static int read_stacks(struct ss_recording *rec)
{
	json_object *table = get_type(rec->doc, "stacks", json_type_array), *a;
	int err = 0;

	if (table)
		return read_stack_table(table, &rec->stacks, SS_RECORDING_NO_IP_BASE);
	a = get(rec->doc, "futexes");
	for (size_t i = 0; i < arr_len(a) && !err; i++) {
		json_object *st = get(json_object_array_get_idx(a, i), "stacks");

		for (size_t k = 0; k < arr_len(st) && !err; k++) {
			json_object *o = json_object_array_get_idx(st, k);

			err = add_stack(&rec->stacks, (__s32)get_u64(o, "stack_id"), get(o, "frames"),
					SS_RECORDING_NO_IP_BASE);
		}
	}
	a = get(rec->doc, "yield_sites");
	for (size_t i = 0; i < arr_len(a) && !err; i++) {
		json_object *o = json_object_array_get_idx(a, i);

		err = add_stack(&rec->stacks, (__s32)get_u64(o, "stack_id"), get(o, "frames"),
				SS_RECORDING_NO_IP_BASE);
	}
	return err;
}

/* ---- report fields, samples, advisor input ------------------------------- */

/* What the kernel offered BPF: available, or the errno that said no. */
static void read_kernel_features(struct ss_recording *rec)
{
	json_object *k = get_type(rec->doc, "kernel_features", json_type_object);
	json_object *e = get(rec->doc, "kernel_features_errno");

	if (!k)
		return;
#define READ_KF(name)								\
	rec->kernel.name.ok = get_bool(k, #name);				\
	rec->kernel.name.err = (int)(get_u64(e, #name) & 0xfff);
	SS_KFEATURES(READ_KF)
#undef READ_KF
	rec->rep.kernel_features = &rec->kernel;
}

/* What the stack unwinder did (absent from recordings before it: off). */
static void read_unwind(json_object *u, struct ss_report_symbols *s)
{
	s->unwind_on = get_bool(u, "enabled");
	for (int k = 0; k < SS_UNWIND_NSTATS; k++)
		s->unwind[k] = get_u64(u, ss_unwind_stat_names[k]);
}

static void read_header(struct ss_recording *rec)
{
	json_object *d = rec->doc, *h = get(d, "host"), *t = get(d, "target");
	json_object *tr = get(d, "traced"), *sy = get(d, "symbols"), *clock = get(d, "clock");
	json_object *nofp = get(sy, "modules_without_frame_pointers");
	json_object *partial = get(sy, "frame_pointers_partial");
	struct ss_report *r = &rec->rep;
	const char *sched = get_str(tr, "sched"), *mech = get_str(tr, "mechanism");

	copy_str(rec->host.hostname, sizeof(rec->host.hostname), h, "hostname");
	copy_str(rec->host.kernel, sizeof(rec->host.kernel), h, "kernel");
	copy_str(rec->host.machine, sizeof(rec->host.machine), h, "machine");
	copy_str(rec->host.cpu_model, sizeof(rec->host.cpu_model), h, "cpu_model");
	rec->host.cpus = (int)(get_u64(h, "cpus") & 0xffff);
	r->host = &rec->host;
	/* The host's load during the trace, when the recording has it. */
	{
		json_object *busy = get_type(h, "busy_cpus", json_type_double);
		json_object *other = get_type(h, "busy_other_cpus", json_type_double);

		if (busy && other)
			r->host_load = (struct host_load){
				.measured = true, .cpus = rec->host.cpus,
				.busy_cpus = json_object_get_double(busy),
				.busy_other_cpus = json_object_get_double(other),
			};
	}
	r->pid = (int)(get_u64(t, "pid") & 0x7fffffff);
	r->tid = (int)(get_u64(t, "tid") & 0x7fffffff);
	copy_str(r->comm, sizeof(r->comm), t, "comm");
	r->exited = get_bool(t, "exited");
	r->duration_ns = get_u64(d, "duration_ns");
	rec->prof.start_ns = get_u64(clock, "start_ns");
	r->end_unix_ns = get_u64(clock, "end_unix_ns");
	rec->prof.now_ns = clock ? get_u64(clock, "now_ns") : r->duration_ns;
	r->futex_waitv_traced = get_bool(tr, "futex_waitv");
	r->futex2_traced = get_bool(tr, "futex2");
	r->sched_btf = sched && !strcmp(sched, "tp_btf");
	r->light = mech && !strcmp(mech, "light");
	r->fentry = mech && !strcmp(mech, "fentry");
	for (size_t i = 0; i < arr_len(nofp) && r->symbols.nno_fp < SS_REPORT_MAX_NOFP; i++) {
		json_object *m = json_object_array_get_idx(nofp, i), *pt;

		if (!json_object_is_type(m, json_type_string))
			continue;
		pt = i < arr_len(partial) ? json_object_array_get_idx(partial, i) : NULL;
		r->symbols.no_fp_partial[r->symbols.nno_fp] = pt && json_object_get_boolean(pt);
		r->symbols.no_fp[r->symbols.nno_fp++] = json_object_get_string(m);
	}
	r->symbols.stacks = get_u64(sy, "stacks");
	r->symbols.stacks_truncated = get_u64(sy, "stacks_truncated");
	r->symbols.stacks_unnamed_end = get_u64(sy, "stacks_unnamed_end");
	r->symbols.resolved = get_u64(sy, "addresses_resolved");
	r->symbols.module_only = get_u64(sy, "addresses_module_only");
	r->symbols.unknown = get_u64(sy, "addresses_unknown");
	read_unwind(get(sy, "unwind"), &r->symbols);
	read_kernel_features(rec);
	rec->calibration = get_type(d, "calibration", json_type_object);
	rec->intervals = get_type(d, "intervals", json_type_array);
}

/* The samples' data addresses, as recording_json.c wrote them. */
static int read_data_addresses(struct ss_recording *rec, json_object *o)
{
	json_object *a = get_type(o, "accesses", json_type_array);
	struct adv_data_addrs *d = &rec->data;

	d->captured = get_bool(o, "captured");
	d->samples = get_u64(o, "samples");
	d->skipped = get_u64(o, "skipped");
	d->lost = get_u64(o, "lost");
	copy_str(d->lang, sizeof(d->lang), o, "language");
	rec->data_accesses = alloc_n(arr_len(a), sizeof(*rec->data_accesses));
	if (!rec->data_accesses)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);
		struct adv_data_access *x = &rec->data_accesses[d->naccesses++];

		x->tid = (uint32_t)get_u64(e, "tid");
		x->addr = get_u64(e, "address");
		x->size = (uint32_t)(get_u64(e, "size") & 0xffff);
		x->store = get_bool(e, "store");
		x->samples = get_u64(e, "samples");
		x->region = (enum adv_data_region)(get_u64(e, "region") % (ADV_DATA_STACK + 1));
		x->runtime = get_bool(e, "runtime");
		copy_str(x->data, sizeof(x->data), e, "data");
		copy_str(x->func, sizeof(x->func), e, "function");
		copy_str(x->insn, sizeof(x->insn), e, "instruction");
	}
	d->accesses = rec->data_accesses;
	return 0;
}

static int read_advisor_input(struct ss_recording *rec)
{
	json_object *in = get_type(rec->doc, "advisor_input", json_type_object);
	json_object *top = get(in, "samples_top"), *fences = get(in, "fences");
	json_object *numa = get(in, "numa_nodes"), *spins = get(in, "spin_loops");
	json_object *parked = get(in, "parked_samples");

	rec->have_input = in != NULL;
	rec->ncpus = (__u32)(get_u64(in, "ncpus") & 0xffff);
	rec->is_jvm = get_bool(in, "is_jvm");
	rec->runtime = adv_runtime_from_id(json_object_get_string(get(in, "runtime")));
	/* cleaned again: a recording is anyone's file */
	snprintf(rec->python_functions, sizeof(rec->python_functions), "%s",
		 json_object_get_string(get_type(in, "python_functions", json_type_string)) ?: "");
	ss_name_clean_array(rec->python_functions, sizeof(rec->python_functions));
	rec->python_read = get_bool(in, "python_read");
	rec->samples_top = alloc_n(arr_len(top), sizeof(*rec->samples_top));
	rec->fences = alloc_n(arr_len(fences), sizeof(*rec->fences));
	rec->spin_loops = alloc_n(arr_len(spins), sizeof(*rec->spin_loops));
	rec->parked_samples = alloc_n(arr_len(parked), sizeof(*rec->parked_samples));
	if (!rec->samples_top || !rec->fences || !rec->spin_loops || !rec->parked_samples)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(top); i++) {
		json_object *o = json_object_array_get_idx(top, i);
		struct adv_sample_sym *s = &rec->samples_top[rec->nsamples_top++];

		copy_str(s->symbol, sizeof(s->symbol), o, "symbol");
		s->count = get_u64(o, "count");
		s->writes_shared = get_bool(o, "writes_shared");
		s->runtime = adv_is_runtime_symbol(s->symbol);
	}
	for (size_t i = 0; i < arr_len(fences); i++) {
		json_object *o = json_object_array_get_idx(fences, i);
		json_object *sh = get_type(o, "share", json_type_double);
		struct adv_fence_spot *f = &rec->fences[rec->nfences++];

		copy_str(f->symbol, sizeof(f->symbol), o, "symbol");
		f->share = sh ? json_object_get_double(sh) : 0;
		f->runtime = adv_is_runtime_symbol(f->symbol);
	}
	/* The spin loops the sampled instructions showed (since 1.1). */
	for (size_t i = 0; i < arr_len(spins); i++) {
		json_object *o = json_object_array_get_idx(spins, i);
		struct adv_spin_loop *l = &rec->spin_loops[rec->nspin_loops++];

		copy_str(l->symbol, sizeof(l->symbol), o, "symbol");
		copy_str(l->hint, sizeof(l->hint), o, "hint");
		l->samples = get_u64(o, "samples");
		l->runtime = get_bool(o, "runtime");
	}
	/* [address, waiter's samples, those where it parks from]; a row of
	 * another shape is skipped, and there are never more there than in
	 * all (the advisor's ratio stays a share) */
	for (size_t i = 0; i < arr_len(parked); i++) {
		json_object *e = json_object_array_get_idx(parked, i);
		struct ss_parked_samples *ps = &rec->parked_samples[rec->nparked_samples];

		if (arr_len(e) != 3)
			continue;
		ps->uaddr = num(json_object_array_get_idx(e, 0));
		ps->waiter = num(json_object_array_get_idx(e, 1));
		ps->acquire = num(json_object_array_get_idx(e, 2));
		if (ps->acquire > ps->waiter)
			ps->acquire = ps->waiter;
		rec->nparked_samples++;
	}
	for (size_t n = 0; n < arr_len(numa) && n < ADV_MAX_NODES; n++) {
		json_object *e = json_object_array_get_idx(numa, n);

		rec->numa.pages[n] = num(arr_len(e) == 2 ? json_object_array_get_idx(e, 0) : NULL);
		rec->numa.cpus_used[n] = num(arr_len(e) == 2 ? json_object_array_get_idx(e, 1) : NULL);
		rec->numa.nodes = (__u32)n + 1;
	}
	return read_data_addresses(rec, get(in, "data_addresses"));
}

/* Since 1.1: every sampled (thread, stack) as [tid, stack_id, count] on
 * the "sample_stacks" table, so folded lines and pprof come back whole. */
static int read_sample_stacks(struct ss_recording *rec, json_object *table, json_object *entries)
{
	struct samples_result *r = &rec->sres;
	size_t n = arr_len(entries);

	if (read_stack_table(table, &rec->sample_stacks, SS_RECORDING_NO_IP_BASE_SAMPLES))
		return -ENOMEM;
	rec->rep.sample_stacks = &rec->sample_stacks;
	r->stacks = alloc_n(n, sizeof(*r->stacks));
	if (!r->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(entries, i);
		json_object *id = arr_len(e) == 3 ? json_object_array_get_idx(e, 1) : NULL;
		struct samples_stack *st = &r->stacks[r->nr_stacks++];
		const struct ss_stack *s;

		st->tid = (__u32)num(arr_len(e) == 3 ? json_object_array_get_idx(e, 0) : NULL);
		st->count = num(arr_len(e) == 3 ? json_object_array_get_idx(e, 2) : NULL);
		st->stack_id = id && json_object_is_type(id, json_type_int) ?
			       json_object_get_int(id) : -1;
		s = stacks__find(&rec->sample_stacks, st->stack_id);
		if (s) {
			st->ips = s->ips;
			st->depth = (__u32)s->depth;
		}
	}
	return 0;
}

/* Before 1.1, the sampled functions ("top") as one-frame stacks on
 * addresses named from the recording: the same top list, text and advice
 * come back, but the folded lines of the samples are leaves only. */
static int read_sample_top(struct ss_recording *rec, json_object *top)
{
	struct samples_result *r = &rec->sres;
	size_t n = arr_len(top);

	r->stacks = alloc_n(n, sizeof(*r->stacks));
	r->ip_pool = alloc_n(n, sizeof(*r->ip_pool));
	rec->sample_addrs = alloc_n(n, sizeof(*rec->sample_addrs));
	if (!r->stacks || !r->ip_pool || !rec->sample_addrs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(top, i);
		const char *sym = get_str(o, "symbol"), *mod = get_str(o, "module");
		struct samples_stack *st = &r->stacks[r->nr_stacks++];

		st->stack_id = (__s32)i;
		st->count = get_u64(o, "count");
		if (sym && !mod && !strcmp(sym, "[no user stack]"))
			continue;	/* depth 0: named so by the renderers */
		r->ip_pool[i] = i + 1;	/* any distinct address will do */
		st->ips = &r->ip_pool[i];
		st->depth = 1;
		rec->sample_addrs[rec->nsample_addrs].ip = i + 1;
		rec->sample_addrs[rec->nsample_addrs].name = sym && strcmp(sym, "[unknown]") ? sym : NULL;
		rec->sample_addrs[rec->nsample_addrs++].module = mod;
	}
	return 0;
}

/* What the samples section needs, from what it showed. */
static int read_samples(struct ss_recording *rec)
{
	json_object *s = get_type(rec->doc, "samples", json_type_object), *a, *c, *table, *entries;
	struct samples_result *r = &rec->sres;

	if (!s)
		return 0;
	rec->have_sres = true;
	r->event = get_str(s, "event");
	r->available = get_bool(s, "available");
	copy_str(r->reason, sizeof(r->reason), s, "reason");
	r->period = get_u64(s, "period");
	r->freq = (__u32)get_u64(s, "frequency_hz");
	r->cpus = (int)(get_u64(s, "cpus") & 0xffff);
	/* CPUs that were offline for part of the trace (hotplug). */
	a = get_type(s, "cpus_offline", json_type_array);
	r->cpus_offline = alloc_n(arr_len(a), sizeof(*r->cpus_offline));
	if (!r->cpus_offline)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(a); i++)
		r->cpus_offline[r->nr_cpus_offline++] =
			(int)(num(json_object_array_get_idx(a, i)) & 0xffff);
	r->total = get_u64(s, "total");
	c = get(s, "dropped");
	for (int k = 0; k < SS_SAMPLE_DROPS; k++)
		r->drops[k] = get_u64(c, samples_drop_keys[k]);
	c = get(s, "counters");
	r->counters_available = get_bool(c, "available");
	copy_str(r->counters_reason, sizeof(r->counters_reason), c, "reason");
	a = get(c, "events");
	for (size_t k = 0; k < SS_SAMPLE_COUNTERS && k < arr_len(a); k++) {
		json_object *n = json_object_array_get_idx(a, k);

		r->counter_names[k] = json_object_is_type(n, json_type_string) ?
				      json_object_get_string(n) : NULL;
	}
	table = get_type(rec->doc, "sample_stacks", json_type_array);
	entries = get_type(s, "stacks", json_type_array);
	if (table && entries ? read_sample_stacks(rec, table, entries) : read_sample_top(rec, get(s, "top")))
		return -ENOMEM;
	a = get(s, "threads");
	r->threads = alloc_n(arr_len(a), sizeof(*r->threads));
	if (!r->threads)
		return -ENOMEM;
	for (size_t i = 0; i < arr_len(a); i++) {
		json_object *o = json_object_array_get_idx(a, i), *ctr = get(o, "counters");
		struct samples_thread *t = &r->threads[r->nr_threads++];

		t->tid = (__u32)get_u64(o, "tid");
		t->samples = get_u64(o, "samples");
		t->has_counters = ctr != NULL;
		t->slices = get_u64(o, "slices");
		for (int k = 0; k < SS_SAMPLE_COUNTERS && ctr; k++)
			if (r->counter_names[k])
				t->counter[k] = (double)get_u64(ctr, r->counter_names[k]);
	}
	return 0;
}

/* ---- names of addresses --------------------------------------------------- */

/* "func+0x12 (mod)" -> "func"; NULL for frames without a function. */
static char *frame_function(const char *frame)
{
	const char *plus = strstr(frame, "+0x"), *paren = strstr(frame, " (");

	if (!plus || !paren || plus > paren)
		return NULL;
	return strndup(frame, (size_t)(plus - frame));
}

static int addr_cmp(const void *a, const void *b)
{
	const struct recording_addr *x = a, *y = b;

	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static void free_names(struct ss_recording *rec)
{
	for (size_t i = 0; i < rec->naddrs; i++)
		free(rec->addrs[i].owned);
	free(rec->addrs);
	rec->addrs = NULL;
	rec->naddrs = 0;
}

/* Each frame's address as the renderers ask for it, with its name and
 * where its code lives. */
static void index_stacks(struct ss_recording *rec, const struct ss_stacks *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ss_stack *st = &s->v[i];

		for (int d = 0; d < st->depth; d++) {
			struct recording_addr *a = &rec->addrs[rec->naddrs++];
			const struct ss_frame_where *w = st->where ? &st->where[d] : NULL;

			/* The renderers ask for a caller's return address - 1. */
			a->ip = d ? st->ips[d] - 1 : st->ips[d];
			a->owned = frame_function(st->frames[d]);
			a->name = a->owned;
			a->where = w && w->module ? w : NULL;
			a->module = a->where ? w->module : NULL;
		}
	}
}

int recording__index_names(struct ss_recording *rec)
{
	size_t n = rec->nsample_addrs;

	free_names(rec);
	for (size_t i = 0; i < rec->stacks.n; i++)
		n += (size_t)rec->stacks.v[i].depth;
	for (size_t i = 0; i < rec->sample_stacks.n; i++)
		n += (size_t)rec->sample_stacks.v[i].depth;
	rec->addrs = alloc_n(n, sizeof(*rec->addrs));
	if (!rec->addrs)
		return -ENOMEM;
	if (rec->nsample_addrs)
		memcpy(rec->addrs, rec->sample_addrs, rec->nsample_addrs * sizeof(*rec->addrs));
	rec->naddrs = rec->nsample_addrs;
	index_stacks(rec, &rec->stacks);
	index_stacks(rec, &rec->sample_stacks);
	if (rec->naddrs > 1)
		ss_sort(rec->addrs, rec->naddrs, sizeof(*rec->addrs), addr_cmp);
	return 0;
}

/* ---- the whole document -------------------------------------------------- */

/* "MAJOR.MINOR"; absent: 0.0, a report from before recordings. */
static int read_version(struct ss_recording *rec, char *why, size_t whylen)
{
	json_object *schema = get_type(rec->doc, "schema", json_type_int);
	const char *v = get_str(rec->doc, "recording");

	if (!schema || json_object_get_int(schema) != SS_JSON_SCHEMA) {
		snprintf(why, whylen, "not a spinscope recording of schema %d", SS_JSON_SCHEMA);
		return SS_EXIT_USAGE;
	}
	if (get(rec->doc, "recording") && (!v || sscanf(v, "%d.%d", &rec->major, &rec->minor) != 2 ||
					   rec->major < 0 || rec->minor < 0)) {
		snprintf(why, whylen, "its recording version is not MAJOR.MINOR");
		return SS_EXIT_USAGE;
	}
	if (rec->major > SS_RECORDING_MAJOR) {
		snprintf(why, whylen,
			 "recording version %d.%d is newer than this spinscope reads (%d.x): use spinscope %s or later",
			 rec->major, rec->minor, SS_RECORDING_MAJOR, "of the recording's version");
		return SS_EXIT_USAGE;
	}
	return 0;
}

/*
 * Every string of a recording made elsewhere is cleaned in place before
 * anything reads it (common/names.h): comm, frames, modules, paths reach
 * the terminal and every renderer from here, whoever wrote the file.
 * Depth is json-c's parser's (at most 32).
 */
static int clean_strings(json_object *o)
{
	if (json_object_is_type(o, json_type_string)) {
		const char *v = json_object_get_string(o);
		int len = json_object_get_string_len(o);
		char *c;
		int err;

		if (ss_name_is_clean(v, (size_t)len) && strlen(v) == (size_t)len)
			return 0;
		c = malloc((size_t)len + 1);
		if (!c)
			return -ENOMEM;
		err = json_object_set_string_len(o, c, (int)ss_name_clean(c, (size_t)len + 1, v, (size_t)len)) ? 0 : -ENOMEM;
		free(c);
		return err;
	}
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (clean_strings(json_object_array_get_idx(o, i)))
				return -ENOMEM;
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v) {
			(void)key;
			if (clean_strings(v))
				return -ENOMEM;
		}
	}
	return 0;
}

int recording__from_json(json_object *doc, struct ss_recording *rec, char *why, size_t whylen)
{
	int code, err;

	memset(rec, 0, sizeof(*rec));
	rec->doc = doc;
	if (!doc || !json_object_is_type(doc, json_type_object)) {
		snprintf(why, whylen, "not a JSON object");
		return SS_EXIT_USAGE;
	}
	code = read_version(rec, why, whylen);
	if (code)
		return code;
	code = recording__check(doc, why, whylen);
	if (code)
		return code;
	if (clean_strings(doc)) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return SS_EXIT_ERROR;
	}
	read_header(rec);
	read_drops(get(doc, "dropped"), rec->prof.drops);
	read_running(doc, rec->prof.running_ns);
	err = read_threads(rec) ?: read_exited(rec) ?: read_futexes(rec) ?: read_yields(rec) ?: read_stacks(rec) ?:
	      read_advisor_input(rec) ?: read_samples(rec) ?: recording__index_names(rec);
	if (err) {
		snprintf(why, whylen, "%s", strerror(-err));
		return SS_EXIT_ERROR;
	}
	/* Totals are the threads' sums: computed, never trusted. */
	profile_finish(&rec->prof);
	rec->rep.profile = &rec->prof;
	rec->rep.stacks = &rec->stacks;
	rec->rep.samples = rec->have_sres ? &rec->sres : NULL;
	rec->rep.name = recording__sym_name;
	rec->rep.name_arg = rec;
	return 0;
}

int recording__open(const char *path, json_object **doc, char *why, size_t whylen)
{
	int err = recording__load(path, doc);

	if (!err)
		return 0;
	snprintf(why, whylen, "cannot read the recording %s: %s", path,
		 err == -EINVAL ? "truncated, corrupt, too large or not a spinscope report" :
		 err == -E2BIG ? "reading it would take more than 16 times its size in memory (at most 512 MiB)" :
		 strerror(-err));
	return err == -ENOMEM ? SS_EXIT_ERROR : SS_EXIT_USAGE;
}

int recording__read(const char *path, struct ss_recording *rec, char *why, size_t whylen)
{
	json_object *doc = NULL;
	char inner[256];
	int code = recording__open(path, &doc, why, whylen);

	memset(rec, 0, sizeof(*rec));
	if (code)
		return code;
	code = recording__from_json(doc, rec, inner, sizeof(inner));
	if (code)
		snprintf(why, whylen, "cannot read the recording %s: %s", path, inner);
	return code;
}

void recording__free(struct ss_recording *rec)
{
	if (!rec)
		return;
	profile_free(&rec->prof);
	stacks__free(&rec->stacks);
	stacks__free(&rec->sample_stacks);
	free(rec->sres.threads);
	free(rec->sres.stacks);
	free(rec->sres.ip_pool);
	free(rec->sres.cpus_offline);
	free_names(rec);
	free(rec->sample_addrs);
	free(rec->samples_top);
	free(rec->fences);
	free(rec->spin_loops);
	free(rec->parked_samples);
	free(rec->data_accesses);
	json_object_put(rec->doc);
	memset(rec, 0, sizeof(*rec));
}

const struct recording_addr *recording__find_addr(const struct ss_recording *rec, __u64 ip)
{
	size_t lo = 0, hi = rec ? rec->naddrs : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rec->addrs[mid].ip == ip)
			return &rec->addrs[mid];
		if (rec->addrs[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *recording__sym_name(void *arg, __u64 ip, const char **module)
{
	const struct recording_addr *a = recording__find_addr(arg, ip);

	*module = a ? a->module : NULL;
	return a ? a->name : NULL;
}

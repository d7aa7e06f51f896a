// SPDX-License-Identifier: GPL-2.0
/* The recording's sections of the JSON report (see recording_json.h). */
#include <stdio.h>
#include <string.h>
#include "model/counters.h"
#include "recording_json.h"
#include "advisor/runtime.h"

#define U64(v) json_object_new_uint64(v)

static void add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static json_object *hex(__u64 v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

static json_object *frame_json(const struct ss_stack *st, int d)
{
	json_object *f = json_object_new_object();
	const struct ss_frame_where *w = st->where ? &st->where[d] : NULL;

	add(f, "ip", hex(st->ips[d]));
	if (st->frames)
		add(f, "name", json_object_new_string(st->frames[d]));
	if (w && w->module) {
		add(f, "module", json_object_new_string(w->module));
		add(f, "offset", hex(w->offset));
		if (w->vaddr)
			add(f, "vaddr", hex(w->vaddr));
		if (w->build_id[0])
			add(f, "build_id", json_object_new_string(w->build_id));
	}
	return f;
}

/* Every stack the model holds, each frame normalized (module, build-id,
 * file offset) and named as it was at trace time. */
static json_object *stacks_json(const struct ss_stacks *s)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; s && i < s->n; i++) {
		json_object *o = json_object_new_object(), *frames = json_object_new_array();

		add(o, "id", json_object_new_int(s->v[i].id));
		for (int d = 0; d < s->v[i].depth; d++)
			json_object_array_add(frames, frame_json(&s->v[i], d));
		add(o, "frames", frames);
		json_object_array_add(a, o);
	}
	return a;
}

/* The counters the report leaves out (json NONE), kept apart under
 * "unreported_counters" so that the model reads back whole. */
#define EXTRA_SCALAR(name, kind, unit, json)					\
	if (SS_JSON_##json == SS_JSON_NONE)					\
		add(x, #name, U64(t->name));
#define EXTRA_ARRAY(name, slots, kind, unit, json)
static void thread_extras(json_object *o, const struct ss_thread *t)
{
	json_object *x = json_object_new_object();

	SS_THREAD_COUNTERS(EXTRA_SCALAR, EXTRA_ARRAY)
	add(o, "unreported_counters", x);
	add(o, "flags", U64(t->flags));
}

static json_object *slots_json(const __u64 *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, U64(v[i]));
	return a;
}

/* A word's release records as BPF kept them (per stack and thread): the
 * report shows them summed by site and by holder, which loses the pairs. */
#define REL_KEY(key, form) #key
#define REL_SCALAR(name, kind, unit, json) add(e, #name, U64(rec->v.name));
#define REL_ARRAY(name, slots, kind, unit, json) add(e, REL_KEY json, slots_json(rec->v.name, slots));
static json_object *release_records_json(const struct ss_futex_rec *r)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; k < r->nreleases; k++) {
		const struct ss_release_rec *rec = &r->releases[k];
		json_object *e = json_object_new_object();

		add(e, "stack_id", json_object_new_int(rec->stack_id));
		add(e, "tid", json_object_new_int64(rec->tid));
		SS_RELEASE_COUNTERS(REL_SCALAR, REL_ARRAY)
		json_object_array_add(a, e);
	}
	return a;
}

/* A futex's every waiter stack ([id, count, wait_ns]), each thread's
 * share of them and every waiter tid: the report shows the top ones,
 * folded stacks, pprof and the advice use them all. */
static void futex_extras(json_object *o, const struct ss_futex_rec *r)
{
	json_object *a = json_object_new_array(), *tids = json_object_new_array();

	for (size_t k = 0; k < r->nstacks; k++) {
		json_object *e = json_object_new_array();

		json_object_array_add(e, json_object_new_int(r->stacks[k].stack_id));
		json_object_array_add(e, U64(r->stacks[k].count));
		json_object_array_add(e, U64(r->stacks[k].wait_ns));
		json_object_array_add(a, e);
	}
	add(o, "waiter_stacks", a);
	/* Since 1.1, per thread: [stack_id, tid, count, wait_ns, at_once] (absent
	 * where not known: an older recording read back). */
	a = r->shares ? json_object_new_array() : NULL;
	for (size_t k = 0; k < r->nshares; k++) {
		json_object *e = json_object_new_array();

		json_object_array_add(e, json_object_new_int(r->shares[k].stack_id));
		json_object_array_add(e, U64(r->shares[k].tid));
		json_object_array_add(e, U64(r->shares[k].count));
		json_object_array_add(e, U64(r->shares[k].wait_ns));
		json_object_array_add(e, U64(r->shares[k].at_once));
		json_object_array_add(a, e);
	}
	if (a)
		add(o, "waiter_shares", a);
	for (__u32 k = 0; r->tids && k < r->waiters; k++)
		json_object_array_add(tids, json_object_new_int64(r->tids[k]));
	add(o, "waiter_tids", tids);
	if (r->nreleases)
		add(o, "release_records", release_records_json(r));
}

/* Each sampled (thread, stack) as [tid, stack_id, count], in the result's
 * order: with "sample_stacks" the samples come back whole (1.1). */
static void samples_extras(json_object *root, const struct ss_report *r)
{
	const struct samples_result *sr = r->samples;
	json_object *o, *a;

	if (!sr || !r->sample_stacks || !json_object_object_get_ex(root, "samples", &o))
		return;
	a = json_object_new_array();
	for (size_t i = 0; i < sr->nr_stacks; i++) {
		json_object *e = json_object_new_array();

		json_object_array_add(e, U64(sr->stacks[i].tid));
		json_object_array_add(e, json_object_new_int(sr->stacks[i].stack_id));
		json_object_array_add(e, U64(sr->stacks[i].count));
		json_object_array_add(a, e);
	}
	add(o, "stacks", a);
	add(root, "sample_stacks", stacks_json(r->sample_stacks));
}

static void profile_extras(json_object *root, const struct ss_report *r)
{
	const struct ss_profile *p = r->profile;
	json_object *a, *o;

	if (json_object_object_get_ex(root, "threads", &a))
		for (size_t i = 0; i < p->nthreads && i < json_object_array_length(a); i++)
			thread_extras(json_object_array_get_idx(a, i), &p->threads[i]);
	if (json_object_object_get_ex(root, "futexes", &a))
		for (size_t i = 0; i < p->nfutexes && i < json_object_array_length(a); i++)
			futex_extras(json_object_array_get_idx(a, i), &p->futexes[i]);
	if (json_object_object_get_ex(root, "symbols", &o)) {
		a = json_object_new_array();
		for (size_t i = 0; i < r->symbols.nno_fp; i++)
			json_object_array_add(a, json_object_new_boolean(r->symbols.no_fp_partial[i]));
		add(o, "frame_pointers_partial", a);
	}
	o = json_object_new_object();
	add(o, "start_ns", U64(p->start_ns));
	add(o, "now_ns", U64(p->now_ns));
	if (r->end_unix_ns)
		add(o, "end_unix_ns", U64(r->end_unix_ns));
	add(root, "clock", o);
}

/* The samples' data addresses: what decoding them did, and every access
 * the advisor saw (heaviest first), so that a recording advises alike. */
static json_object *data_addresses_json(const struct adv_data_addrs *d)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	add(o, "captured", json_object_new_boolean(d->captured));
	add(o, "samples", U64(d->samples));
	add(o, "skipped", U64(d->skipped));
	add(o, "lost", U64(d->lost));
	add(o, "language", json_object_new_string(d->lang));
	for (size_t i = 0; i < d->naccesses; i++) {
		const struct adv_data_access *x = &d->accesses[i];
		json_object *s = json_object_new_object();

		add(s, "tid", U64(x->tid));
		add(s, "address", U64(x->addr));
		add(s, "size", U64(x->size));
		add(s, "store", json_object_new_boolean(x->store));
		add(s, "samples", U64(x->samples));
		add(s, "data", json_object_new_string(x->data));
		add(s, "function", json_object_new_string(x->func));
		add(s, "instruction", json_object_new_string(x->insn));
		add(s, "region", U64(x->region));
		add(s, "runtime", json_object_new_boolean(x->runtime));
		json_object_array_add(a, s);
	}
	add(o, "accesses", a);
	return o;
}

/* What the advisor saw that the model does not hold. */
static json_object *advisor_input_json(const struct adv_profile *ap)
{
	json_object *o = json_object_new_object(), *a;

	add(o, "ncpus", json_object_new_int64(ap->ncpus));
	add(o, "is_jvm", json_object_new_boolean(ap->target.is_jvm));
	add(o, "runtime", json_object_new_string(adv_runtime_id(ap->target.runtime)));
	if (ap->target.python_functions[0]) {
		add(o, "python_functions", json_object_new_string(ap->target.python_functions));
		add(o, "python_read", json_object_new_boolean(ap->target.python_read));
	}
	a = json_object_new_array();
	for (size_t i = 0; i < ap->samples.ntop; i++) {
		json_object *s = json_object_new_object();

		add(s, "symbol", json_object_new_string(ap->samples.top[i].symbol));
		add(s, "count", U64(ap->samples.top[i].count));
		add(s, "writes_shared", json_object_new_boolean(ap->samples.top[i].writes_shared));
		json_object_array_add(a, s);
	}
	add(o, "samples_top", a);
	a = json_object_new_array();
	for (size_t i = 0; i < ap->nfences; i++) {
		json_object *s = json_object_new_object();

		add(s, "symbol", json_object_new_string(ap->fences[i].symbol));
		add(s, "share", json_object_new_double(ap->fences[i].share));
		json_object_array_add(a, s);
	}
	add(o, "fences", a);
	a = json_object_new_array();
	for (size_t i = 0; i < ap->nspin_loops; i++) {
		json_object *s = json_object_new_object();

		add(s, "symbol", json_object_new_string(ap->spin_loops[i].symbol));
		add(s, "hint", json_object_new_string(ap->spin_loops[i].hint));
		add(s, "samples", U64(ap->spin_loops[i].samples));
		add(s, "runtime", json_object_new_boolean(ap->spin_loops[i].runtime));
		json_object_array_add(a, s);
	}
	add(o, "spin_loops", a);
	/* Each parking word's waiter's samples, and those where it parks from
	 * (parked-lock grades by them): [address, waiter's, there]. */
	a = json_object_new_array();
	for (size_t i = 0; i < ap->nfutexes; i++) {
		const struct adv_futex *f = &ap->futexes[i];
		json_object *s;

		if (!f->waiter_samples && !f->acquire_samples)
			continue;
		s = json_object_new_array();
		json_object_array_add(s, U64(f->uaddr));
		json_object_array_add(s, U64(f->waiter_samples));
		json_object_array_add(s, U64(f->acquire_samples));
		json_object_array_add(a, s);
	}
	add(o, "parked_samples", a);
	a = json_object_new_array();
	for (__u32 n = 0; n < ap->numa.nodes && n < ADV_MAX_NODES; n++) {
		json_object *s = json_object_new_array();

		json_object_array_add(s, U64(ap->numa.pages[n]));
		json_object_array_add(s, U64(ap->numa.cpus_used[n]));
		json_object_array_add(a, s);
	}
	add(o, "numa_nodes", a);
	add(o, "data_addresses", data_addresses_json(&ap->data));
	return o;
}

/* Why each feature the kernel refused was refused: the errno its probe got. */
static json_object *kernel_errno_json(const struct kernel_features *k)
{
	json_object *o = json_object_new_object();

#define KF_ERRNO(name)								\
	if (!k->name.ok)							\
		add(o, #name, json_object_new_int(k->name.err));
	SS_KFEATURES(KF_ERRNO)
#undef KF_ERRNO
	return o;
}

json_object *recording__interval_threads(const struct ss_profile *p)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct ss_thread *t = &p->threads[i];
		json_object *row;

#define ANY_COLUMN(name) t->name ||
		if (!(SS_INTERVAL_THREAD_COLUMNS(ANY_COLUMN) 0))
			continue;
#undef ANY_COLUMN
		row = json_object_new_array();
		json_object_array_add(row, U64(t->tid));
#define ADD_COLUMN(name) json_object_array_add(row, U64(t->name));
		SS_INTERVAL_THREAD_COLUMNS(ADD_COLUMN)
#undef ADD_COLUMN
		json_object_array_add(a, row);
	}
	return a;
}

static json_object *interval_columns_json(void)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_string("tid"));
#define ADD_NAME(name) json_object_array_add(a, json_object_new_string(#name));
	SS_INTERVAL_THREAD_COLUMNS(ADD_NAME)
#undef ADD_NAME
	return a;
}

void recording__add_sections(json_object *root, const struct ss_report *r)
{
	char version[16];
	json_object *host;

	snprintf(version, sizeof(version), "%d.%d", SS_RECORDING_MAJOR, SS_RECORDING_MINOR);
	add(root, "recording", json_object_new_string(version));
	if (r->fingerprint && json_object_object_get_ex(root, "host", &host))
		add(host, "fingerprint", json_object_get(r->fingerprint));
	profile_extras(root, r);
	if (r->kernel_features)
		add(root, "kernel_features_errno", kernel_errno_json(r->kernel_features));
	add(root, "stacks", stacks_json(r->stacks));
	samples_extras(root, r);
	if (r->advisor_input)
		add(root, "advisor_input", advisor_input_json(r->advisor_input));
	if (r->calibration)
		add(root, "calibration", json_object_get(r->calibration));
	add(root, "intervals", r->intervals ? json_object_get(r->intervals) : json_object_new_array());
	add(root, "interval_thread_columns", interval_columns_json());
}

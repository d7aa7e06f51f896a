// SPDX-License-Identifier: GPL-2.0
/*
 * --pprof: the model into profile.proto messages (protobuf-c, generated
 * from user/report/profile.proto), packed and gzip-compressed with zlib.
 * Strings, functions, mappings and locations are each written once and
 * referred to by index or id, as the format wants.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "common/grow.h"
#include "common/outfile.h"
#include "pprof.h"
#include "model/releases.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__ValueType pb_value_type;

enum { V_WAIT_NS, V_WAITS, V_YIELDS, V_EVENT, V_AT_ONCE, V_RELEASES, NVALUES };
#define MAX_LABELS 3

/* Open addressing, key -> id (ids start at 1, 0 marks a free slot). */
struct idmap {
	uint64_t *keys;
	uint64_t *ids;
	size_t cap, n;
};

struct loc_rec {
	pb_location l;
	pb_line line;
	pb_line *linep;
};

struct map_rec {
	pb_mapping m;
	uint64_t lo, hi;		/* lowest and highest address seen */
};

struct sample_rec {
	pb_sample s;
	uint64_t *locs;
	int64_t values[NVALUES];
	pb_label labels[MAX_LABELS];
	pb_label *labelp[MAX_LABELS];
};

struct pp {
	pprof_resolve_fn resolve;
	void *arg;
	const struct ss_profile *prof;
	char **strs;
	size_t nstrs, cap_strs;
	struct idmap str_ids;		/* string hash -> index + 1, chained by probing */
	struct idmap fn_ids, map_ids, loc_ids;
	pb_function *fns;
	size_t nfns, cap_fns;
	struct map_rec *maps;
	size_t nmaps, cap_maps;
	struct loc_rec *locs;
	size_t nlocs, cap_locs;
	struct sample_rec *samples;
	size_t nsamples, cap_samples;
	int err;
};

/* common/grow.h's doubling (with its overflow check), the new room zeroed. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t old = *cap;
	int err = ss_grow(v, n, cap, size, 64);

	if (!err && *cap > old)
		memset((char *)*v + old * size, 0, (*cap - old) * size);
	return err;
}
#define GROW(pp, arr, n, cap) grow((void **)&(pp)->arr, &(pp)->cap, (pp)->n, sizeof(*(pp)->arr))

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static int idmap_grow(struct idmap *m)
{
	struct idmap nm = { .cap = m->cap ? m->cap * 2 : 256 };

	nm.keys = calloc(nm.cap, sizeof(*nm.keys));
	nm.ids = calloc(nm.cap, sizeof(*nm.ids));
	if (!nm.keys || !nm.ids) {
		free(nm.keys);
		free(nm.ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->ids[i])
			continue;
		for (h = mix(m->keys[i]) & (nm.cap - 1); nm.ids[h]; h = (h + 1) & (nm.cap - 1))
			;
		nm.keys[h] = m->keys[i];
		nm.ids[h] = m->ids[i];
	}
	nm.n = m->n;
	free(m->keys);
	free(m->ids);
	*m = nm;
	return 0;
}

/* The slot of key: the one holding it (ids[slot] != 0), else the free one
 * to put it in, after which match() is never called again for it. */
static size_t idmap_slot(const struct idmap *m, uint64_t key,
			 bool (*match)(const struct pp *, uint64_t id, const void *), const struct pp *pp,
			 const void *what)
{
	size_t h = mix(key) & (m->cap - 1);

	while (m->ids[h] && (m->keys[h] != key || (match && !match(pp, m->ids[h], what))))
		h = (h + 1) & (m->cap - 1);
	return h;
}

static int idmap_reserve(struct idmap *m)
{
	return (m->n + 1) * 2 > m->cap ? idmap_grow(m) : 0;
}

static bool str_match(const struct pp *pp, uint64_t id, const void *s)
{
	return !strcmp(pp->strs[id - 1], s);
}

/* The string table index of s ("" is index 0). */
static int64_t str_index(struct pp *pp, const char *s)
{
	uint64_t h = 1469598103934665603ull;
	size_t slot;

	if (!s)
		s = "";
	for (const char *c = s; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	if (idmap_reserve(&pp->str_ids) || GROW(pp, strs, nstrs, cap_strs))
		goto nomem;
	slot = idmap_slot(&pp->str_ids, h, str_match, pp, s);
	if (pp->str_ids.ids[slot])
		return (int64_t)pp->str_ids.ids[slot] - 1;
	if (!(pp->strs[pp->nstrs] = strdup(s)))
		goto nomem;
	pp->str_ids.keys[slot] = h;
	pp->str_ids.ids[slot] = ++pp->nstrs;
	pp->str_ids.n++;
	return (int64_t)pp->nstrs - 1;
nomem:
	pp->err = -ENOMEM;
	return 0;
}

/* The id of key in m, or 0 with *slot where to add it. */
static uint64_t lookup(struct pp *pp, struct idmap *m, uint64_t key, size_t *slot)
{
	if (idmap_reserve(m)) {
		pp->err = -ENOMEM;
		return 0;
	}
	*slot = idmap_slot(m, key, NULL, pp, NULL);
	return m->ids[*slot];
}

static void remember(struct idmap *m, size_t slot, uint64_t key, uint64_t id)
{
	m->keys[slot] = key;
	m->ids[slot] = id;
	m->n++;
}

static uint64_t function_id(struct pp *pp, const char *name, const char *module)
{
	int64_t n = str_index(pp, name), f = str_index(pp, module);
	uint64_t key = (uint64_t)n << 32 | (uint64_t)f, id;
	size_t slot;

	if ((id = lookup(pp, &pp->fn_ids, key, &slot)) || pp->err)
		return id;
	if (GROW(pp, fns, nfns, cap_fns)) {
		pp->err = -ENOMEM;
		return 0;
	}
	id = pp->nfns + 1;
	perftools__profiles__function__init(&pp->fns[pp->nfns]);
	pp->fns[pp->nfns].id = id;
	pp->fns[pp->nfns].name = n;
	pp->fns[pp->nfns].system_name = n;
	pp->nfns++;
	remember(&pp->fn_ids, slot, key, id);
	return id;
}

/* The mapping of module, widened to hold ip; its file offset is the one
 * of its lowest address, so that address - start + offset is the file
 * offset of every address in it. */
static uint64_t mapping_id(struct pp *pp, const struct pprof_frame *fr, uint64_t ip)
{
	int64_t file = str_index(pp, fr->module);
	struct map_rec *m;
	uint64_t id;
	size_t slot;

	if (!(id = lookup(pp, &pp->map_ids, (uint64_t)file, &slot)) && !pp->err) {
		if (GROW(pp, maps, nmaps, cap_maps)) {
			pp->err = -ENOMEM;
			return 0;
		}
		id = pp->nmaps + 1;
		m = &pp->maps[pp->nmaps++];
		perftools__profiles__mapping__init(&m->m);
		m->m.id = id;
		m->m.filename = file;
		m->m.build_id = str_index(pp, fr->build_id);
		m->m.has_functions = true;
		m->lo = m->hi = ip;
		m->m.file_offset = fr->module_offset;
		remember(&pp->map_ids, slot, (uint64_t)file, id);
	}
	if (pp->err)
		return 0;
	m = &pp->maps[id - 1];
	if (ip < m->lo) {
		m->lo = ip;
		m->m.file_offset = fr->module_offset;
	}
	if (ip > m->hi)
		m->hi = ip;
	return id;
}

static uint64_t location_id(struct pp *pp, uint64_t ip)
{
	struct pprof_frame fr = {0};
	struct loc_rec *l;
	uint64_t id;
	size_t slot;

	if ((id = lookup(pp, &pp->loc_ids, ip, &slot)) || pp->err)
		return id;
	if (GROW(pp, locs, nlocs, cap_locs)) {
		pp->err = -ENOMEM;
		return 0;
	}
	id = pp->nlocs + 1;
	l = &pp->locs[pp->nlocs++];
	perftools__profiles__location__init(&l->l);
	perftools__profiles__line__init(&l->line);
	l->l.id = id;
	l->l.address = ip;
	if (pp->resolve && pp->resolve(pp->arg, ip, &fr) == 0) {
		if (fr.module)
			l->l.mapping_id = mapping_id(pp, &fr, ip);
		if (fr.name)
			l->line.function_id = function_id(pp, fr.name, fr.module);
	}
	remember(&pp->loc_ids, slot, ip, id);
	return id;
}

static const char *thread_name(const struct ss_profile *p, __u32 tid)
{
	for (size_t i = 0; p && i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return p->threads[i].comm;
	return NULL;
}

static void add_label(struct pp *pp, struct sample_rec *s, const char *key, const char *str,
		      int64_t num)
{
	pb_label *l = &s->labels[s->s.n_label++];

	perftools__profiles__label__init(l);
	l->key = str_index(pp, key);
	if (str)
		l->str = str_index(pp, str);
	else
		l->num = num;
}

/* One sample: its stack (callers' return addresses become their call
 * instruction, ip - 1) and one value; tid 0: no thread known. */
static struct sample_rec *add_sample(struct pp *pp, const __u64 *ips, int depth, int which,
				     __u64 value, __u32 tid)
{
	struct sample_rec *s;

	if (pp->err || GROW(pp, samples, nsamples, cap_samples)) {
		pp->err = pp->err ?: -ENOMEM;
		return NULL;
	}
	s = &pp->samples[pp->nsamples++];
	perftools__profiles__sample__init(&s->s);
	s->values[which] = (int64_t)value;
	s->locs = calloc(depth > 0 ? (size_t)depth : 1, sizeof(*s->locs));
	if (!s->locs) {
		pp->err = -ENOMEM;
		return NULL;
	}
	for (int i = 0; i < depth; i++)
		s->locs[s->s.n_location_id++] = location_id(pp, i ? ips[i] - 1 : ips[i]);
	if (tid) {
		const char *comm = thread_name(pp->prof, tid);

		if (comm)
			add_label(pp, s, "thread", comm, 0);
		add_label(pp, s, "tid", NULL, tid);
	}
	return s;
}

/* A sample per (stack, thread), as the waiters map keyed them. */
static void add_futex_shares(struct pp *pp, const struct ss_report *r,
			     const struct ss_futex_rec *f, const char *addr)
{
	for (size_t k = 0; k < f->nshares && !pp->err; k++) {
		const struct ss_waiter_share *ws = &f->shares[k];
		const struct ss_stack *st = r->stacks ? stacks__find(r->stacks, ws->stack_id) : NULL;
		struct sample_rec *s = add_sample(pp, st ? st->ips : NULL, st ? st->depth : 0,
						  V_WAIT_NS, ws->wait_ns, ws->tid);

		if (!s)
			return;
		s->values[V_WAITS] = (int64_t)ws->count;
		s->values[V_AT_ONCE] = (int64_t)ws->at_once;
		add_label(pp, s, "futex", addr, 0);
	}
}

static void add_futex_samples(struct pp *pp, const struct ss_report *r)
{
	const struct ss_profile *p = r->profile;
	char addr[32];

	for (size_t i = 0; i < p->nfutexes; i++) {
		const struct ss_futex_rec *f = &p->futexes[i];
		/* Without the per-thread shares, one waiter's stacks are its own. */
		__u32 tid = f->waiters == 1 && f->tids ? f->tids[0] : 0;

		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)f->uaddr);
		if (f->shares) {
			add_futex_shares(pp, r, f, addr);
			continue;
		}
		for (size_t k = 0; k < f->nstacks; k++) {
			const struct ss_waiter_stack *ws = &f->stacks[k];
			const struct ss_stack *st = r->stacks ? stacks__find(r->stacks, ws->stack_id) : NULL;
			struct sample_rec *s = add_sample(pp, st ? st->ips : NULL, st ? st->depth : 0,
							  V_WAIT_NS, ws->wait_ns, tid);

			if (!s)
				return;
			s->values[V_WAITS] = (int64_t)ws->count;
			s->values[V_AT_ONCE] = (int64_t)ws->at_once;
			add_label(pp, s, "futex", addr, 0);
		}
	}
}

/* A lock's release records: wakes that found waiters by release stack,
 * labelled with the holder that made them (model/releases.h). */
static void add_release_samples(struct pp *pp, const struct ss_report *r)
{
	const struct ss_profile *p = r->profile;
	char addr[32];

	for (size_t i = 0; i < p->nfutexes; i++) {
		const struct ss_futex_rec *f = &p->futexes[i];

		if (!releases_word_is_lock(f))
			continue;
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)f->uaddr);
		for (size_t k = 0; k < f->nreleases; k++) {
			const struct ss_release_rec *rel = &f->releases[k];
			const struct ss_stack *st = r->stacks ? stacks__find(r->stacks, rel->stack_id) : NULL;
			struct sample_rec *s;

			if (!rel->v.wakes)
				continue;
			s = add_sample(pp, st ? st->ips : NULL, st ? st->depth : 0, V_RELEASES,
				       rel->v.wakes, rel->tid);
			if (!s)
				return;
			add_label(pp, s, "futex", addr, 0);
		}
	}
}

static void add_other_samples(struct pp *pp, const struct ss_report *r)
{
	const struct ss_profile *p = r->profile;
	const struct samples_result *sr = r->samples;

	for (size_t i = 0; i < p->nyields; i++) {
		const struct ss_stack *st = r->stacks ? stacks__find(r->stacks, p->yields[i].stack_id) : NULL;

		add_sample(pp, st ? st->ips : NULL, st ? st->depth : 0, V_YIELDS, p->yields[i].count, 0);
	}
	for (size_t i = 0; sr && sr->available && i < sr->nr_stacks; i++)
		add_sample(pp, sr->stacks[i].ips, (int)sr->stacks[i].depth, V_EVENT,
			   sr->stacks[i].count, sr->stacks[i].tid);
}

/* The kind with the most weight, what `go tool pprof` shows unless told:
 * time against time where the sampled event is a clock (the samples' time
 * on CPU against the waits' time off it); a count event outweighs the
 * waits only when there are none; yields lead only an otherwise empty
 * profile. */
static int heaviest_kind(const struct pp *pp, const struct ss_report *r)
{
	const struct samples_result *sr = r->samples;
	double tot[NVALUES] = { 0 }, ns_per_sample = 0;

	for (size_t i = 0; i < pp->nsamples; i++)
		for (int k = 0; k < NVALUES; k++)
			tot[k] += (double)pp->samples[i].values[k];
	if (sr && sr->event && strstr(sr->event, "clock"))
		ns_per_sample = sr->period ? (double)sr->period : sr->freq ? 1e9 / sr->freq : 0;
	if (tot[V_EVENT] > 0 && (ns_per_sample > 0 ? tot[V_EVENT] * ns_per_sample > tot[V_WAIT_NS] :
				 tot[V_WAIT_NS] == 0))
		return V_EVENT;
	if (tot[V_WAIT_NS] == 0 && tot[V_YIELDS] > 0)
		return V_YIELDS;
	return V_WAIT_NS;
}

/* Pointer arrays for the packer, built once nothing moves any more. */
struct pp_ptrs {
	pb_value_type types[NVALUES], period_type;
	pb_value_type *typep[NVALUES];
	pb_sample **samples;
	pb_location **locs;
	pb_function **fns;
	pb_mapping **maps;
};

static int link_messages(struct pp *pp, const struct ss_report *r, pb_profile *out,
			 struct pp_ptrs *q)
{
	static const char *const units[NVALUES] = { "nanoseconds", "count", "count", "count", "count",
						    "count" };
	const char *names[NVALUES] = { "futex_wait", "futex_waits", "sched_yield",
				       r->samples && r->samples->event ? r->samples->event : "samples",
				       "futex_at_once", "futex_releases" };
	struct timespec now;

	for (int i = 0; i < NVALUES; i++) {
		perftools__profiles__value_type__init(&q->types[i]);
		q->types[i].type = str_index(pp, names[i]);
		q->types[i].unit = str_index(pp, units[i]);
		q->typep[i] = &q->types[i];
	}
	q->period_type = q->types[V_EVENT];
	q->samples = calloc(pp->nsamples + 1, sizeof(*q->samples));
	q->locs = calloc(pp->nlocs + 1, sizeof(*q->locs));
	q->fns = calloc(pp->nfns + 1, sizeof(*q->fns));
	q->maps = calloc(pp->nmaps + 1, sizeof(*q->maps));
	if (!q->samples || !q->locs || !q->fns || !q->maps || pp->err)
		return pp->err ?: -ENOMEM;
	for (size_t i = 0; i < pp->nsamples; i++) {
		struct sample_rec *s = &pp->samples[i];

		s->s.location_id = s->locs;
		s->s.n_value = NVALUES;
		s->s.value = s->values;
		for (size_t k = 0; k < s->s.n_label; k++)
			s->labelp[k] = &s->labels[k];
		s->s.label = s->labelp;
		q->samples[i] = &s->s;
	}
	for (size_t i = 0; i < pp->nlocs; i++) {
		struct loc_rec *l = &pp->locs[i];

		l->linep = &l->line;
		l->l.n_line = l->line.function_id ? 1 : 0;
		l->l.line = &l->linep;
		q->locs[i] = &l->l;
	}
	for (size_t i = 0; i < pp->nfns; i++)
		q->fns[i] = &pp->fns[i];
	for (size_t i = 0; i < pp->nmaps; i++) {
		struct map_rec *m = &pp->maps[i];

		/* Whole pages around what was seen: the true bounds are not
		 * in the model, and readers only need every address inside. */
		m->m.memory_start = m->lo & ~0xfffull;
		m->m.file_offset &= ~0xfffull;
		m->m.memory_limit = (m->hi | 0xfffull) + 1;
		q->maps[i] = &m->m;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	*out = (pb_profile)PERFTOOLS__PROFILES__PROFILE__INIT;
	out->n_sample_type = NVALUES;
	out->sample_type = q->typep;
	out->n_sample = pp->nsamples;
	out->sample = q->samples;
	out->n_location = pp->nlocs;
	out->location = q->locs;
	out->n_function = pp->nfns;
	out->function = q->fns;
	out->n_mapping = pp->nmaps;
	out->mapping = q->maps;
	out->n_string_table = pp->nstrs;
	out->string_table = pp->strs;
	out->duration_nanos = (int64_t)r->duration_ns;
	/* When the trace began: a recording knows, else it just ended. */
	out->time_nanos = (r->end_unix_ns ? (int64_t)r->end_unix_ns :
			   (int64_t)now.tv_sec * 1000000000 + now.tv_nsec) - (int64_t)r->duration_ns;
	out->period_type = &q->period_type;
	out->period = r->samples ? (int64_t)r->samples->period : 0;
	out->default_sample_type = q->types[heaviest_kind(pp, r)].type;
	return pp->err;
}

/* gzip (RFC 1952) of in, as pprof files are. */
static int gzip_buf(const void *in, size_t len, void **out, size_t *olen)
{
	z_stream z = {0};
	uLong cap;
	int rc;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len);
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*olen = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -EIO;
	}
	return 0;
}

static void pp_free(struct pp *pp, struct pp_ptrs *q)
{
	for (size_t i = 0; i < pp->nstrs; i++)
		free(pp->strs[i]);
	for (size_t i = 0; i < pp->nsamples; i++)
		free(pp->samples[i].locs);
	free(pp->strs);
	free(pp->samples);
	free(pp->locs);
	free(pp->fns);
	free(pp->maps);
	struct idmap *maps[] = { &pp->str_ids, &pp->fn_ids, &pp->map_ids, &pp->loc_ids };
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		free(maps[i]->keys);
		free(maps[i]->ids);
	}
	free(q->samples);
	free(q->locs);
	free(q->fns);
	free(q->maps);
}

int pprof__encode(const struct ss_report *r, pprof_resolve_fn resolve, void *arg,
		  void **buf, size_t *len)
{
	struct pp pp = { .resolve = resolve, .arg = arg, .prof = r->profile };
	struct pp_ptrs q = {0};
	pb_profile prof;
	uint8_t *packed = NULL;
	size_t plen;
	int err;

	*buf = NULL;
	str_index(&pp, "");	/* string_table[0] is "" */
	add_futex_samples(&pp, r);
	add_other_samples(&pp, r);
	add_release_samples(&pp, r);
	err = link_messages(&pp, r, &prof, &q);
	if (!err) {
		plen = perftools__profiles__profile__get_packed_size(&prof);
		packed = malloc(plen ? plen : 1);
		err = packed ? 0 : -ENOMEM;
	}
	if (!err) {
		perftools__profiles__profile__pack(&prof, packed);
		err = gzip_buf(packed, plen, buf, len);
	}
	free(packed);
	pp_free(&pp, &q);
	return err;
}

int pprof__write(const char *path, const struct ss_report *r, pprof_resolve_fn resolve, void *arg,
		 char *why, size_t whylen)
{
	void *buf;
	size_t len;
	int err = pprof__encode(r, resolve, arg, &buf, &len);

	if (err)
		snprintf(why, whylen, "%s", strerror(-err));
	else
		err = outfile__save(path, buf, len, why, whylen);
	free(buf);
	return err;
}

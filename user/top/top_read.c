// SPDX-License-Identifier: GPL-2.0
/* A top recording read back, checked member by member (see top_read.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advisor/advisor.h"
#include "common/errors.h"
#include "common/grow.h"
#include "common/names.h"
#include "top_fields.h"
#include "top_read.h"

/* What a file may ask the reader to allocate: far above a real host's
 * (32k pids, a few words each), far below what would hurt. */
#define MAX_PROCS (1u << 17)
#define MAX_WORDS (1u << 20)
#define MAX_THREADS (1u << 21)

/* Where the reader is, for the one error line. */
struct cursor {
	char *why;
	size_t whylen;
	char path[96];
};

static int __attribute__((format(printf, 2, 3))) bad(struct cursor *c, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->why, c->whylen, "%s%s%s", c->path, c->path[0] ? ": " : "", what);
	return SS_EXIT_USAGE;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* A count: an integer from 0 to 2^63 - 1. */
static int get_u64(struct cursor *c, json_object *o, const char *key, uint64_t *out)
{
	json_object *v = member(o, key);
	int64_t x;

	if (!v || !json_object_is_type(v, json_type_int))
		return bad(c, "%s: expected an integer", key);
	errno = 0;
	x = json_object_get_int64(v);
	if (x < 0 || (x == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX))
		return bad(c, "%s: %s is not a count from 0 to 2^63 - 1", key,
			   json_object_to_json_string(v));
	*out = (uint64_t)x;
	return 0;
}

static int get_int(struct cursor *c, json_object *o, const char *key, int64_t lo, int64_t hi,
		   int64_t *out)
{
	json_object *v = member(o, key);

	if (!v || !json_object_is_type(v, json_type_int))
		return bad(c, "%s: expected an integer", key);
	*out = json_object_get_int64(v);
	if (*out < lo || *out > hi)
		return bad(c, "%s: %" PRId64 " is outside %" PRId64 "..%" PRId64, key, *out, lo, hi);
	return 0;
}

/* A share or a rate: finite, not negative (an int is a double too). */
static int get_double(struct cursor *c, json_object *o, const char *key, double *out)
{
	json_object *v = member(o, key);

	if (!v || !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return bad(c, "%s: expected a number", key);
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < 0)
		return bad(c, "%s: expected a finite number from 0", key);
	return 0;
}

/* A name: a string (or null where nullable), copied cleaned. */
static int get_name(struct cursor *c, json_object *o, const char *key, bool nullable, char *buf,
		    size_t size)
{
	json_object *v = member(o, key);

	buf[0] = 0;
	if (!v && nullable)
		return 0;
	if (!v || !json_object_is_type(v, json_type_string))
		return bad(c, "%s: expected a string%s", key, nullable ? " or null" : "");
	ss_name_clean(buf, size, json_object_get_string(v), (size_t)json_object_get_string_len(v));
	return 0;
}

static json_object *get_array(struct cursor *c, json_object *o, const char *key, bool optional,
			      size_t max, int *err)
{
	json_object *v = member(o, key);

	*err = 0;
	if (!v && optional)
		return NULL;
	if (!v || !json_object_is_type(v, json_type_array)) {
		*err = bad(c, "%s: expected an array", key);
		return NULL;
	}
	if (json_object_array_length(v) > max) {
		*err = bad(c, "%s: %zu entries, more than the %zu a host gives", key,
			   json_object_array_length(v), max);
		return NULL;
	}
	return v;
}

static int read_word(struct cursor *c, json_object *o, struct top_word *w)
{
	json_object *use = member(o, "use"), *addr = member(o, "uaddr");
	int64_t n;
	int err = 0;

	if (!json_object_is_type(o, json_type_object))
		return bad(c, "expected an object");
	if (!addr || !json_object_is_type(addr, json_type_string) ||
	    sscanf(json_object_get_string(addr), "0x%" SCNx64, &w->uaddr) != 1)
		return bad(c, "uaddr: expected \"0x...\"");
	if (!use || !json_object_is_type(use, json_type_string) ||
	    (strcmp(json_object_get_string(use), "lock") && strcmp(json_object_get_string(use), "event")))
		return bad(c, "use: expected \"lock\" or \"event\"");
	w->lock = !strcmp(json_object_get_string(use), "lock");
	err = err ?: get_int(c, o, "waiters", 0, UINT32_MAX, &n);
	w->waiters = (uint32_t)n;
	err = err ?: get_int(c, o, "wakers", 0, UINT32_MAX, &n);
	w->wakers = (uint32_t)n;
#define W(name) err = err ?: get_u64(c, o, #name, &w->name);
	TOP_WORD_U64(W)
#undef W
	return err;
}

static int read_thread(struct cursor *c, json_object *o, struct top_thread *t)
{
	int64_t tid;
	int err;

	if (!json_object_is_type(o, json_type_object))
		return bad(c, "expected an object");
	err = get_int(c, o, "tid", 1, INT32_MAX, &tid) ?:
	      get_name(c, o, "comm", false, t->comm, sizeof(t->comm));
	t->tid = (uint32_t)tid;
#define T(name) err = err ?: get_u64(c, o, #name, &t->name);
	TOP_THREAD_U64(T)
#undef T
	return err;
}

/* The verdict's severity as the advisor names it, or null: 0 none. */
static int read_severity(struct cursor *c, json_object *o, int *out)
{
	json_object *v = member(o, "verdict_severity");

	*out = 0;
	if (!v)
		return 0;
	for (int s = ADV_INFO; s <= ADV_CRITICAL; s++)
		if (json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), advisor__severity_name((enum adv_severity)s))) {
			*out = s + 1;
			return 0;
		}
	return bad(c, "verdict_severity: expected info, warning, critical or null");
}

/* The process's scalars: names, verdict, counts and shares. */
static int read_proc_fields(struct cursor *c, json_object *o, struct top_proc *p)
{
	json_object *full = member(o, "needs_full_trace");
	int64_t n;
	int err;

	err = get_int(c, o, "pid", 1, INT32_MAX, &n);
	p->pid = (int32_t)n;
	err = err ?: get_name(c, o, "comm", false, p->comm, sizeof(p->comm));
	err = err ?: get_name(c, o, "container", false, p->container, sizeof(p->container));
	err = err ?: get_name(c, o, "unit", false, p->unit, sizeof(p->unit));
	err = err ?: get_name(c, o, "verdict", true, p->verdict, sizeof(p->verdict));
	err = err ?: get_name(c, o, "verdict_summary", true, p->verdict_summary,
			      sizeof(p->verdict_summary));
	err = err ?: read_severity(c, o, &p->verdict_severity);
	if (!err && (!full || !json_object_is_type(full, json_type_boolean)))
		err = bad(c, "needs_full_trace: expected true or false");
	p->needs_full_trace = !err && json_object_get_boolean(full);
	err = err ?: get_int(c, o, "nthreads", 0, UINT32_MAX, &n);
	p->nthreads = (uint32_t)n;
	err = err ?: get_int(c, o, "cpus_allowed", 0, UINT32_MAX, &n);
	p->cpus_allowed = (uint32_t)n;
	err = err ?: get_double(c, o, "cpus_used", &p->cpus_used);
	err = err ?: get_double(c, o, "runnable", &p->runnable);
#define P(name) err = err ?: get_u64(c, o, #name, &p->name);
	TOP_PROC_U64(P)
#undef P
	return err;
}


struct pools {
	size_t nwords, wcap, nthreads, tcap;
};

/* The process's words and threads, appended to rec's pools; the
 * process points into them once all are read (top_read__from_json). */
static int read_proc_arrays(struct cursor *c, json_object *o, struct top_recording *rec,
			    struct pools *pl, size_t *first_word, size_t *first_thread)
{
	json_object *words, *threads;
	size_t at = strlen(c->path);
	int err;

	words = get_array(c, o, "words", false, MAX_WORDS, &err);
	threads = err ? NULL : get_array(c, o, "threads", true, MAX_THREADS, &err);
	*first_word = pl->nwords;
	*first_thread = pl->nthreads;
	for (size_t i = 0; !err && words && i < json_object_array_length(words); i++) {
		if (pl->nwords >= MAX_WORDS ||
		    ss_reserve((void **)&rec->words, &pl->wcap, pl->nwords + 1 + pl->wcap, sizeof(*rec->words)))
			return bad(c, "words: too many, or out of memory");
		snprintf(c->path + at, sizeof(c->path) - at, ".words[%zu]", i);
		memset(&rec->words[pl->nwords], 0, sizeof(rec->words[0]));
		err = read_word(c, json_object_array_get_idx(words, i), &rec->words[pl->nwords++]);
	}
	for (size_t i = 0; !err && threads && i < json_object_array_length(threads); i++) {
		if (pl->nthreads >= MAX_THREADS ||
		    ss_reserve((void **)&rec->threads, &pl->tcap, pl->nthreads + 1 + pl->tcap,
			       sizeof(*rec->threads)))
			return bad(c, "threads: too many, or out of memory");
		snprintf(c->path + at, sizeof(c->path) - at, ".threads[%zu]", i);
		memset(&rec->threads[pl->nthreads], 0, sizeof(rec->threads[0]));
		err = read_thread(c, json_object_array_get_idx(threads, i), &rec->threads[pl->nthreads++]);
	}
	c->path[at] = 0;
	return err;
}

static int read_host(struct cursor *c, json_object *doc, struct top_host *h)
{
	json_object *o = member(doc, "host");
	int64_t n;
	int err;

	snprintf(c->path, sizeof(c->path), "host");
	if (!o || !json_object_is_type(o, json_type_object))
		return bad(c, "expected an object");
	err = get_int(c, o, "ncpus", 1, 1 << 20, &n);
	h->ncpus = (uint32_t)n;
	err = err ?: get_double(c, o, "load1", &h->load1) ?: get_double(c, o, "load5", &h->load5) ?:
	      get_double(c, o, "load15", &h->load15) ?: get_double(c, o, "busy_cpus", &h->busy_cpus) ?:
	      get_double(c, o, "self_cpu", &h->self_cpu);
	err = err ?: get_int(c, o, "processes", 0, UINT32_MAX, &n);
	h->processes = (uint32_t)n;
	err = err ?: get_int(c, o, "threads", 0, UINT32_MAX, &n);
	h->threads = (uint32_t)n;
#define H(name) err = err ?: get_u64(c, o, #name, &h->name);
	TOP_HOST_U64(H)
#undef H
	return err;
}

bool top_read__is_top(json_object *doc)
{
	json_object *kind = member(doc, "kind");

	return kind && json_object_is_type(kind, json_type_string) &&
	       !strcmp(json_object_get_string(kind), TOP_DOC_KIND);
}

/* The document's head: schema, interval, wall clock, sampling, sort. */
static int read_head(struct cursor *c, json_object *doc, struct top_recording *rec)
{
	json_object *sampling = member(doc, "sampling"), *sort = member(doc, "sort");
	int64_t schema;
	int err, k;

	err = get_int(c, doc, "schema", 1, INT32_MAX, &schema);
	if (!err && schema > TOP_DOC_SCHEMA)
		err = bad(c, "schema: %" PRId64 " is newer than this spinscope reads (%d): update spinscope",
			  schema, TOP_DOC_SCHEMA);
	err = err ?: get_u64(c, doc, "interval_ns", &rec->snap.interval_ns) ?:
	      get_u64(c, doc, "wall_ns", &rec->snap.wall_ns);
	if (!err && !rec->snap.interval_ns)
		err = bad(c, "interval_ns: 0, a recording of no time");
	if (!err && (!sampling || !json_object_is_type(sampling, json_type_boolean)))
		err = bad(c, "sampling: expected true or false");
	rec->snap.sampling = !err && json_object_get_boolean(sampling);
	k = sort && json_object_is_type(sort, json_type_string) ? top_sort_parse(json_object_get_string(sort)) : -1;
	if (!err && k < 0)
		err = bad(c, "sort: expected one of %s", top_sort_names());
	rec->sort = k < 0 ? TOP_SORT_LOCK_WAIT : (enum top_sort_key)k;
	return err;
}

int top_read__from_json(json_object *doc, struct top_recording *rec, char *why, size_t whylen)
{
	struct cursor c = { .why = why, .whylen = whylen };
	struct pools pl = { 0 };
	json_object *procs;
	size_t *firsts = NULL;
	int err;

	memset(rec, 0, sizeof(*rec));
	rec->doc = doc;
	if (!json_object_is_type(doc, json_type_object) || !top_read__is_top(doc))
		return bad(&c, "not a recording of spinscope top");
	err = read_head(&c, doc, rec) ?: read_host(&c, doc, &rec->snap.host);
	c.path[0] = 0;
	procs = err ? NULL : get_array(&c, doc, "processes", false, MAX_PROCS, &err);
	if (!err && procs) {
		size_t n = json_object_array_length(procs);

		rec->snap.procs = calloc(n ? n : 1, sizeof(*rec->snap.procs));
		firsts = calloc(2 * (n ? n : 1), sizeof(*firsts));
		if (!rec->snap.procs || !firsts)
			err = bad(&c, "out of memory");
		for (size_t i = 0; !err && i < n; i++) {
			json_object *o = json_object_array_get_idx(procs, i);
			struct top_proc *p = &rec->snap.procs[i];

			snprintf(c.path, sizeof(c.path), "processes[%zu]", i);
			if (!json_object_is_type(o, json_type_object))
				err = bad(&c, "expected an object");
			err = err ?: read_proc_fields(&c, o, p) ?:
			      read_proc_arrays(&c, o, rec, &pl, &firsts[2 * i], &firsts[2 * i + 1]);
			p->nwords = pl.nwords - firsts[2 * i];
			p->nthreads_detail = pl.nthreads - firsts[2 * i + 1];
			rec->snap.nprocs = i + 1;
		}
		/* The pools are final only now: point into them. */
		for (size_t i = 0; !err && i < rec->snap.nprocs; i++) {
			rec->snap.procs[i].words = rec->snap.procs[i].nwords ? rec->words + firsts[2 * i] : NULL;
			rec->snap.procs[i].threads = rec->snap.procs[i].nthreads_detail ?
						     rec->threads + firsts[2 * i + 1] : NULL;
		}
	}
	free(firsts);
	return err;
}

void top_read__free(struct top_recording *rec)
{
	json_object_put(rec->doc);
	free(rec->snap.procs);
	free(rec->words);
	free(rec->threads);
	memset(rec, 0, sizeof(*rec));
}

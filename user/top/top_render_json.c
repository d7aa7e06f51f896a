// SPDX-License-Identifier: GPL-2.0
/*
 * One JSON document per snapshot: the interval, the host and tracing
 * cost, the finding ids top cannot back (`-p` can), and a `processes`
 * array sorted as the text is. Field lists are tables: a field added to
 * the model is one line here.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <json-c/json.h>
#include "advisor/advisor.h"
#include "top_fields.h"
#include "top_render.h"
#include "top_verdict.h"

#define ADD_U64(obj, src, name) json_object_object_add(obj, #name, json_object_new_uint64((src)->name));

static json_object *str_or_null(const char *s)
{
	return s[0] ? json_object_new_string(s) : NULL;
}

static json_object *thread_json(const struct top_thread *t)
{
	json_object *o = json_object_new_object();

#define T(name) ADD_U64(o, t, name)
	json_object_object_add(o, "tid", json_object_new_int64(t->tid));
	json_object_object_add(o, "comm", json_object_new_string(t->comm));
	TOP_THREAD_U64(T)
#undef T
	return o;
}

static json_object *word_json(const struct top_word *w)
{
	json_object *o = json_object_new_object();
	char addr[24];

	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)w->uaddr);
	json_object_object_add(o, "uaddr", json_object_new_string(addr));
	json_object_object_add(o, "use", json_object_new_string(w->lock ? "lock" : "event"));
	json_object_object_add(o, "waiters", json_object_new_int64(w->waiters));
	json_object_object_add(o, "wakers", json_object_new_int64(w->wakers));
#define W(name) ADD_U64(o, w, name)
	TOP_WORD_U64(W)
#undef W
	return o;
}

static json_object *proc_json(const struct top_proc *p)
{
	json_object *o = json_object_new_object(), *arr;

	json_object_object_add(o, "pid", json_object_new_int64(p->pid));
	json_object_object_add(o, "comm", json_object_new_string(p->comm));
	json_object_object_add(o, "container", json_object_new_string(p->container));
	json_object_object_add(o, "unit", json_object_new_string(p->unit));
	json_object_object_add(o, "verdict", str_or_null(p->verdict));
	json_object_object_add(o, "verdict_summary", str_or_null(p->verdict_summary));
	json_object_object_add(o, "verdict_severity",
			       p->verdict_severity ? json_object_new_string(advisor__severity_name(
							     (enum adv_severity)(p->verdict_severity - 1)))
						   : NULL);
	json_object_object_add(o, "needs_full_trace", json_object_new_boolean(p->needs_full_trace));
	json_object_object_add(o, "nthreads", json_object_new_int64(p->nthreads));
	json_object_object_add(o, "cpus_allowed", json_object_new_int64(p->cpus_allowed));
	json_object_object_add(o, "cpus_used", json_object_new_double(p->cpus_used));
	json_object_object_add(o, "runnable", json_object_new_double(p->runnable));
#define P(name) ADD_U64(o, p, name)
	TOP_PROC_U64(P)
#undef P
	arr = json_object_new_array();
	for (size_t i = 0; i < p->nwords; i++)
		json_object_array_add(arr, word_json(&p->words[i]));
	json_object_object_add(o, "words", arr);
	if (p->threads) {
		arr = json_object_new_array();
		for (size_t i = 0; i < p->nthreads_detail; i++)
			json_object_array_add(arr, thread_json(&p->threads[i]));
		json_object_object_add(o, "threads", arr);
	}
	return o;
}

static json_object *host_json(const struct top_snapshot *s)
{
	const struct top_host *h = &s->host;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ncpus", json_object_new_int64(h->ncpus));
	json_object_object_add(o, "load1", json_object_new_double(h->load1));
	json_object_object_add(o, "load5", json_object_new_double(h->load5));
	json_object_object_add(o, "load15", json_object_new_double(h->load15));
	json_object_object_add(o, "busy_cpus", json_object_new_double(h->busy_cpus));
	json_object_object_add(o, "self_cpu", json_object_new_double(h->self_cpu));
	json_object_object_add(o, "processes", json_object_new_int64(h->processes));
	json_object_object_add(o, "threads", json_object_new_int64(h->threads));
#define H(name) ADD_U64(o, h, name)
	TOP_HOST_U64(H)
#undef H
	return o;
}

static json_object *doc_json(const struct top_snapshot *s, const struct top_render_opts *o,
			     const struct top_proc **order, size_t n)
{
	json_object *doc = json_object_new_object(), *arr = json_object_new_array();
	const char *const *ids;
	size_t nids;

	json_object_object_add(doc, "kind", json_object_new_string(TOP_DOC_KIND));
	json_object_object_add(doc, "schema", json_object_new_int(TOP_DOC_SCHEMA));
	json_object_object_add(doc, "wall_ns", json_object_new_uint64(s->wall_ns));
	json_object_object_add(doc, "interval_ns", json_object_new_uint64(s->interval_ns));
	json_object_object_add(doc, "sampling", json_object_new_boolean(s->sampling));
	json_object_object_add(doc, "sort", json_object_new_string(top_sort_name(o->sort)));
	json_object_object_add(doc, "host", host_json(s));
	ids = top_verdict_trace_only(&nids);
	for (size_t i = 0; i < nids; i++)
		json_object_array_add(arr, json_object_new_string(ids[i]));
	json_object_object_add(doc, "findings_need_full_trace", arr);
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, proc_json(order[i]));
	json_object_object_add(doc, "processes", arr);
	return doc;
}

int top_render_doc(const struct top_snapshot *s, const struct top_render_opts *o, json_object **doc)
{
	const struct top_proc **order = calloc(s->nprocs ? s->nprocs : 1, sizeof(*order));
	size_t n = o->rows && o->rows < s->nprocs ? o->rows : s->nprocs;

	*doc = NULL;
	if (!order)
		return -ENOMEM;
	top_sort_procs(s->procs, s->nprocs, o->sort, order);
	*doc = doc_json(s, o, order, n);
	free(order);
	return *doc ? 0 : -ENOMEM;
}

int top_render_json(FILE *f, const struct top_snapshot *s, const struct top_render_opts *o)
{
	json_object *doc;
	int err = top_render_doc(s, o, &doc);

	if (err)
		return err;
	fprintf(f, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	return 0;
}

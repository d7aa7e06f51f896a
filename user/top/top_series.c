// SPDX-License-Identifier: GPL-2.0
/* The agent's bounded, monotonic series and their text (see top_series.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advisor/advisor.h"
#include "common/sort.h"
#include "common/grow.h"
#include "common/names.h"
#include "report/metrics_text.h"
#include "top_series.h"

/* The processes of one refresh that share a label set, summed. */
struct top_group {
	const struct top_proc *first;	/* its labels */
	uint64_t d[TOP_NCOUNTERS];
	double runnable;
	uint32_t cpus_allowed, threads, processes;
	const char *verdict;
	int severity;
	bool chosen;			/* in a top N this refresh */
};

static const double counter_scale[TOP_NCOUNTERS] = {
#define TOP_COUNTER_SCALE(field, name, scale, help) scale,
	TOP_SERIES_COUNTERS(TOP_COUNTER_SCALE)
#undef TOP_COUNTER_SCALE
};

static void proc_counters(const struct top_proc *p, uint64_t d[TOP_NCOUNTERS])
{
#define TOP_COUNTER_READ(field, name, scale, help) d[TOP_C_##field] = p->field;
	TOP_SERIES_COUNTERS(TOP_COUNTER_READ)
#undef TOP_COUNTER_READ
}

void top_series_init(struct top_series_set *s, unsigned int top_n)
{
	*s = (struct top_series_set){ .top_n = top_n ? top_n : TOP_SERIES_DEFAULT_N };
}

static int cmp_labels(const char *ca, const char *ka, const char *ua, const char *cb,
		      const char *kb, const char *ub)
{
	int d = strcmp(ca, cb);

	if (!d)
		d = strcmp(ka, kb);
	return d ? d : strcmp(ua, ub);
}

static int cmp_procs(const void *a, const void *b)
{
	const struct top_proc *x = *(const struct top_proc *const *)a;
	const struct top_proc *y = *(const struct top_proc *const *)b;

	return cmp_labels(x->comm, x->container, x->unit, y->comm, y->container, y->unit);
}

static int cmp_series(const void *a, const void *b)
{
	const struct top_series *x = a, *y = b;

	return cmp_labels(x->comm, x->container, x->unit, y->comm, y->container, y->unit);
}

/* A group's key against a series, for bsearch. */
static int cmp_group_series(const void *key, const void *elem)
{
	const struct top_proc *p = ((const struct top_group *)key)->first;
	const struct top_series *s = elem;

	return cmp_labels(p->comm, p->container, p->unit, s->comm, s->container, s->unit);
}

static uint64_t spin_of(const struct top_group *g)
{
	return g->d[TOP_C_yields] + g->d[TOP_C_spin_samples];
}

static int by_lock_wait(const void *a, const void *b)
{
	uint64_t x = ((const struct top_group *)a)->d[TOP_C_lock_wait_ns];
	uint64_t y = ((const struct top_group *)b)->d[TOP_C_lock_wait_ns];

	return (x < y) - (x > y);
}

static int by_spin(const void *a, const void *b)
{
	uint64_t x = spin_of(a), y = spin_of(b);

	return (x < y) - (x > y);
}

static int by_runq(const void *a, const void *b)
{
	uint64_t x = ((const struct top_group *)a)->d[TOP_C_runq_ns];
	uint64_t y = ((const struct top_group *)b)->d[TOP_C_runq_ns];

	return (x < y) - (x > y);
}

static void add_proc(struct top_group *g, const struct top_proc *p)
{
	uint64_t d[TOP_NCOUNTERS];

	proc_counters(p, d);
	for (int c = 0; c < TOP_NCOUNTERS; c++)
		g->d[c] += d[c];
	g->runnable += p->runnable;
	g->cpus_allowed += p->cpus_allowed;
	g->threads += p->nthreads;
	g->processes++;
	if (*p->verdict && (!g->verdict || p->verdict_severity > g->severity)) {
		g->verdict = p->verdict;
		g->severity = p->verdict_severity;
	}
}

/* The rankings: each marks its top N chosen (only those with some of it:
 * an idle one is never labelled for being first among nothing). */
static const struct {
	int (*cmp)(const void *a, const void *b);
	int counter;		/* what it ranks by; -1: yields + spin samples */
} rankings[] = {
	{ by_lock_wait, TOP_C_lock_wait_ns },
	{ by_spin, -1 },
	{ by_runq, TOP_C_runq_ns },
};

/* The snapshot's label sets, each summed, the top N of each ranking
 * chosen. */
static void group_procs(struct top_series_set *s, const struct top_snapshot *snap)
{
	size_t n = 0;

	for (size_t i = 0; i < snap->nprocs; i++)
		s->order[i] = &snap->procs[i];
	ss_sort(s->order, snap->nprocs, sizeof(*s->order), cmp_procs);
	for (size_t i = 0; i < snap->nprocs; i++) {
		if (!n || cmp_procs(&s->order[i], &s->groups[n - 1].first))
			s->groups[n++] = (struct top_group){ .first = s->order[i] };
		add_proc(&s->groups[n - 1], s->order[i]);
	}
	s->ngroups = n;
	for (size_t r = 0; r < sizeof(rankings) / sizeof(rankings[0]); r++) {
		ss_sort(s->groups, n, sizeof(*s->groups), rankings[r].cmp);
		for (size_t i = 0; i < n && i < s->top_n; i++) {
			const struct top_group *g = &s->groups[i];

			if (!(rankings[r].counter < 0 ? spin_of(g) : g->d[rankings[r].counter]))
				break;
			s->groups[i].chosen = true;
		}
	}
}

/* The series of a chosen group, made when it has none: in a free place,
 * else in place of the one longest out of the top N (never one chosen
 * this refresh: at most 3N are, and 5N are kept). */
static void label_chosen(struct top_series_set *s, const struct top_group *g)
{
	const struct top_proc *p = g->first;
	struct top_series *t = NULL;

	for (size_t i = 0; i < s->n; i++)
		if (!cmp_group_series(g, &s->v[i])) {
			s->v[i].last_top = s->refreshes;
			return;
		}
	if (s->n < TOP_SERIES_MAX(s->top_n)) {
		t = &s->v[s->n++];
	} else {
		t = &s->v[0];
		for (size_t i = 1; i < s->n; i++)
			if (s->v[i].last_top < t->last_top)
				t = &s->v[i];
		s->dropped_series++;
	}
	memset(t, 0, sizeof(*t));
	snprintf(t->comm, sizeof(t->comm), "%s", p->comm);
	snprintf(t->container, sizeof(t->container), "%s", p->container);
	snprintf(t->unit, sizeof(t->unit), "%s", p->unit);
	t->last_top = s->refreshes;
}

static void add_group(struct top_series *t, const struct top_group *g)
{
	for (int c = 0; c < TOP_NCOUNTERS; c++)
		t->total[c] += g->d[c];
	t->runnable += g->runnable;
	t->cpus_allowed += g->cpus_allowed;
	t->threads += g->threads;
	t->processes += g->processes;
	if (g->verdict && (!*t->verdict || g->severity > t->severity)) {
		snprintf(t->verdict, sizeof(t->verdict), "%s", g->verdict);
		t->severity = g->severity;
	}
}

static void clear_gauges(struct top_series *t)
{
	t->runnable = 0;
	t->cpus_allowed = t->threads = t->processes = 0;
	t->verdict[0] = 0;
	t->severity = 0;
}

/* Series out of the top N for longer than the grace go. */
static void drop_expired(struct top_series_set *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->refreshes - s->v[i].last_top > TOP_SERIES_GRACE) {
			s->dropped_series++;
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
}

static void add_host(struct top_series_set *s, const struct top_snapshot *snap)
{
	const struct top_host *h = &snap->host;

	s->tracing_ns += h->bpf_run_ns;
	s->self_cpu_ns += (uint64_t)(h->self_cpu * (double)snap->interval_ns);
	s->drops += h->drops;
	s->self_rss_kib = h->self_rss_kib;
	s->host_cpus = h->ncpus;
	s->host_processes = h->processes;
	s->host_threads = h->threads;
}

int top_series_update(struct top_series_set *s, const struct top_snapshot *snap)
{
	if (ss_reserve((void **)&s->order, &s->ocap, snap->nprocs, sizeof(*s->order)) ||
	    ss_reserve((void **)&s->groups, &s->gcap, snap->nprocs, sizeof(*s->groups)))
		return -ENOMEM;
	if (!s->v && !(s->v = calloc(TOP_SERIES_MAX(s->top_n), sizeof(*s->v))))
		return -ENOMEM;
	s->cap = TOP_SERIES_MAX(s->top_n);
	s->refreshes++;
	group_procs(s, snap);
	for (size_t i = 0; i < s->n; i++)
		clear_gauges(&s->v[i]);
	clear_gauges(&s->other);
	for (size_t i = 0; i < s->ngroups; i++)
		if (s->groups[i].chosen)
			label_chosen(s, &s->groups[i]);
	ss_sort(s->v, s->n, sizeof(*s->v), cmp_series);
	for (size_t i = 0; i < s->ngroups; i++) {
		struct top_series *t = s->n ? bsearch(&s->groups[i], s->v, s->n, sizeof(*s->v),
						      cmp_group_series) : NULL;

		add_group(t ? t : &s->other, &s->groups[i]);
	}
	drop_expired(s);
	add_host(s, snap);
	return 0;
}

/* ,name="value": cleaned once more (the model's names are clean already;
 * a label value reaches every dashboard), then escaped. */
static void put_label(FILE *f, const char *name, const char *value, bool first)
{
	char clean[TOP_SUMMARY_LEN];

	ss_name_clean(clean, sizeof(clean), value, strlen(value));
	fprintf(f, "%s%s=\"", first ? "{" : ",", name);
	metrics_text__label_value(f, clean);
	fputc('"', f);
}

/* {comm="..",container="..",unit=".." and no closing brace. */
static void put_series_labels(FILE *f, const struct top_series *t)
{
	put_label(f, "comm", t->comm, true);
	put_label(f, "container", t->container, false);
	put_label(f, "unit", t->unit, false);
}

static void put_labels(FILE *f, const struct top_series *t, const struct top_series_set *s)
{
	if (t == &s->other) {
		fputs("{other=\"true\"}", f);
		return;
	}
	put_series_labels(f, t);
	fputc('}', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One family over every series, "other" last. */
static void per_series(FILE *f, const struct top_series_set *s, const char *name, const char *type,
		       const char *help, double (*value)(const struct top_series *t, int arg), int arg)
{
	family(f, name, type, help);
	for (size_t i = 0; i <= s->n; i++) {
		const struct top_series *t = i < s->n ? &s->v[i] : &s->other;

		fputs(name, f);
		put_labels(f, t, s);
		fprintf(f, " %.17g\n", value(t, arg));
	}
}

static double counter_value(const struct top_series *t, int c)
{
	return (double)t->total[c] * counter_scale[c];
}

enum gauge { G_RUNNABLE, G_ALLOWED, G_THREADS, G_PROCESSES };

static double gauge_value(const struct top_series *t, int g)
{
	return g == G_RUNNABLE ? t->runnable : g == G_ALLOWED ? t->cpus_allowed :
	       g == G_THREADS ? t->threads : t->processes;
}

static void series_families(FILE *f, const struct top_series_set *s)
{
	static const char *const names[TOP_NCOUNTERS] = {
#define TOP_COUNTER_NAME(field, name, scale, help) name,
		TOP_SERIES_COUNTERS(TOP_COUNTER_NAME)
#undef TOP_COUNTER_NAME
	};
	static const char *const helps[TOP_NCOUNTERS] = {
#define TOP_COUNTER_HELP(field, name, scale, help) help,
		TOP_SERIES_COUNTERS(TOP_COUNTER_HELP)
#undef TOP_COUNTER_HELP
	};

	for (int c = 0; c < TOP_NCOUNTERS; c++)
		per_series(f, s, names[c], "counter", helps[c], counter_value, c);
	per_series(f, s, "spinscope_top_runnable_threads", "gauge",
		   "Threads on a CPU or waiting for one, averaged over the last refresh.", gauge_value,
		   G_RUNNABLE);
	per_series(f, s, "spinscope_top_cpus_allowed", "gauge",
		   "CPUs the processes' affinity lets them use, summed over the processes.",
		   gauge_value, G_ALLOWED);
	per_series(f, s, "spinscope_top_threads", "gauge",
		   "Threads seen in the last refresh.", gauge_value, G_THREADS);
	per_series(f, s, "spinscope_top_processes", "gauge",
		   "Processes with these labels in the last refresh.", gauge_value, G_PROCESSES);
}

static void verdicts(FILE *f, const struct top_series_set *s)
{
	family(f, "spinscope_top_verdict", "gauge",
	       "1 for the most severe finding the scheduler data supports (spinscope -p finds more).");
	for (size_t i = 0; i < s->n; i++) {
		const struct top_series *t = &s->v[i];

		if (!*t->verdict)
			continue;
		fputs("spinscope_top_verdict", f);
		put_series_labels(f, t);
		put_label(f, "verdict", t->verdict, false);
		put_label(f, "severity", advisor__severity_name((enum adv_severity)t->severity), false);
		fputs("} 1\n", f);
	}
}

static void host(FILE *f, const struct top_series_set *s)
{
	const struct { const char *name, *type, *help; double v; } rows[] = {
		{ "spinscope_top_tracing_cpu_seconds_total", "counter",
		  "CPU time the BPF programs ran, measured over each interval's last eighth and scaled: what tracing costs the host.",
		  s->tracing_ns * 1e-9 },
		{ "spinscope_top_self_cpu_seconds_total", "counter", "spinscope's own CPU time.",
		  s->self_cpu_ns * 1e-9 },
		{ "spinscope_top_self_rss_bytes", "gauge", "spinscope's resident memory.",
		  s->self_rss_kib * 1024.0 },
		{ "spinscope_top_drops_total", "counter",
		  "Events the BPF side could not record (maps full).", (double)s->drops },
		{ "spinscope_top_series_dropped_total", "counter",
		  "Labelled series dropped after leaving the top N (their counters restart if they return).",
		  (double)s->dropped_series },
		{ "spinscope_top_refreshes_total", "counter", "Refreshes added.", (double)s->refreshes },
		{ "spinscope_top_other_processes", "gauge",
		  "Processes summed into the other=\"true\" series in the last refresh.",
		  (double)s->other.processes },
		{ "spinscope_top_host_cpus", "gauge", "CPUs of the host.", s->host_cpus },
		{ "spinscope_top_host_processes", "gauge", "Processes on the host.", s->host_processes },
		{ "spinscope_top_host_threads", "gauge", "Threads on the host.", s->host_threads },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		family(f, rows[i].name, rows[i].type, rows[i].help);
		fprintf(f, "%s %.17g\n", rows[i].name, rows[i].v);
	}
}

int top_series_render(const struct top_series_set *s, char **buf, size_t *len)
{
	FILE *f;
	int err = 0;

	*buf = NULL;
	f = open_memstream(buf, len);
	if (!f)
		return -errno;
	series_families(f, s);
	verdicts(f, s);
	host(f, s);
	if (ferror(f))
		err = -ENOMEM;
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

void top_series_free(struct top_series_set *s)
{
	free(s->v);
	free(s->groups);
	free(s->order);
	*s = (struct top_series_set){ 0 };
}

// SPDX-License-Identifier: GPL-2.0
/* Two recordings compared (see recording_diff.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/sort.h"
#include "common/grow.h"
#include "advice.h"
#include "recording_diff.h"

#define MAX_METRICS 4

/* What each section compares; noise is the totals' counter it varies with. */
struct metric {
	const char *name;
	enum diff_unit unit;
	const char *noise;
};

static const struct metric metrics[DIFF_SECTIONS][MAX_METRICS] = {
	[DIFF_TOTALS] = {
		{ "futex_wait_ns", DIFF_NS, "futex_wait_ns" },
		{ "futex_wait", DIFF_COUNT, "futex_wait" },
		{ "sched_yield", DIFF_COUNT, "sched_yield" },
		{ "runq_ns", DIFF_NS, "runq_ns" },
	},
	[DIFF_LOCKS] = {
		{ "wait_ns", DIFF_NS, "futex_wait_ns" },
		{ "waits", DIFF_COUNT, "futex_wait" },
	},
	[DIFF_YIELD_SITES] = {
		{ "calls", DIFF_COUNT, "sched_yield" },
	},
	[DIFF_THREAD_GROUPS] = {
		{ "futex_wait_ns", DIFF_NS, "futex_wait_ns" },
		{ "sched_yield", DIFF_COUNT, "sched_yield" },
		{ "oncpu_ns", DIFF_NS, "oncpu_ns" },
	},
};

struct keyed {
	char name[160];
	double v[MAX_METRICS];
};

struct keyed_list {
	struct keyed *v;
	size_t n, cap;
};

static struct keyed *keyed_get(struct keyed_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	if (ss_grow((void **)&l->v, l->n, &l->cap, sizeof(*l->v), 16))
		return NULL;
	memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
	snprintf(l->v[l->n].name, sizeof(l->v[l->n].name), "%s", name);
	return &l->v[l->n++];
}

void diff__site_name(const char *frame, char *buf, size_t len)
{
	const char *plus = strstr(frame, "+0x"), *paren = strstr(frame, " (");

	if (plus && paren && plus < paren)
		snprintf(buf, len, "%.*s%s", (int)(plus - frame), frame, paren);
	else
		snprintf(buf, len, "%s", frame);
}

void diff__group_name(const char *comm, char *buf, size_t len)
{
	size_t o = 0;

	/* Runs of digits become one '#': "worker-12" and "worker-3" meet. */
	for (const char *c = comm; *c && o + 1 < len; c++) {
		if (isdigit((unsigned char)*c)) {
			if (o == 0 || buf[o - 1] != '#')
				buf[o++] = '#';
		} else {
			buf[o++] = *c;
		}
	}
	buf[o] = 0;
}

static const char *lock_name(const struct ss_recording *rec, const struct ss_futex_rec *r,
			     char *buf, size_t len)
{
	struct advice_stack_name sn;

	/* As the advisor names it; the unnamed ones of a run are one. */
	snprintf(buf, len, "%s", advice__lock_name(r, &rec->stacks, &sn) ? sn.name : "[unnamed lock]");
	return buf;
}

/* The raw sums of one side, by section and name. */
static int collect(const struct ss_recording *rec, struct keyed_list *l)
{
	const struct ss_profile *p = &rec->prof;
	struct keyed *k = keyed_get(&l[DIFF_TOTALS], "");
	char name[160];

	if (!k)
		return -ENOMEM;
	k->v[0] = p->totals.futex_wait_ns;
	k->v[1] = p->totals.futex_wait;
	k->v[2] = p->totals.sched_yield;
	k->v[3] = p->totals.runq_ns;
	for (size_t i = 0; i < p->nfutexes; i++) {
		if (!(k = keyed_get(&l[DIFF_LOCKS], lock_name(rec, &p->futexes[i], name, sizeof(name)))))
			return -ENOMEM;
		k->v[0] += p->futexes[i].f.wait_ns;
		k->v[1] += p->futexes[i].f.waits;
	}
	for (size_t i = 0; i < p->nyields; i++) {
		const struct ss_stack *st = stacks__find(&rec->stacks, p->yields[i].stack_id);

		/* The first frame outside the syscall wrapper is the call site. */
		if (st && st->frames && st->depth)
			diff__site_name(st->frames[st->depth > 1 ? 1 : 0], name, sizeof(name));
		else
			snprintf(name, sizeof(name), "[unknown site]");
		if (!(k = keyed_get(&l[DIFF_YIELD_SITES], name)))
			return -ENOMEM;
		k->v[0] += p->yields[i].count;
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		diff__group_name(p->threads[i].comm, name, sizeof(name));
		if (!(k = keyed_get(&l[DIFF_THREAD_GROUPS], name)))
			return -ENOMEM;
		k->v[0] += p->threads[i].futex_wait_ns;
		k->v[1] += p->threads[i].sched_yield;
		k->v[2] += p->threads[i].oncpu_ns;
	}
	return 0;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_is_type(o, json_type_object) &&
	       json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Stdev of a totals counter's per-second rate over the -i series; the
 * number of intervals (under 2: no estimate). */
static size_t interval_spread(const struct ss_recording *rec, const char *key, double *sd)
{
	size_t n = 0, len = rec->intervals ? json_object_array_length(rec->intervals) : 0;
	double sum = 0, sq = 0;

	*sd = -1;
	for (size_t i = 0; i < len && i < SS_RECORDING_MAX_ITEMS; i++) {
		json_object *iv = json_object_array_get_idx(rec->intervals, i);
		double dur = json_object_get_double(member(iv, "duration_ns")) / 1e9;
		double x;

		if (dur <= 0)
			continue;
		x = json_object_get_double(member(member(iv, "totals"), key)) / dur;
		sum += x;
		sq += x * x;
		n++;
	}
	if (n >= 2) {
		double mean = sum / n, var = (sq - n * mean * mean) / (n - 1);

		*sd = var > 0 ? sqrt(var) : 0;
	}
	return n;
}

/* The index of key in the recording's per-thread interval rows, or -1
 * (a recording before 1.1 has none). */
static int thread_column(const struct ss_recording *rec, const char *key)
{
	json_object *cols = member(rec->doc, "interval_thread_columns");

	if (!cols || !json_object_is_type(cols, json_type_array))
		return -1;
	for (size_t i = 0; i < json_object_array_length(cols) && i < 64; i++) {
		const char *c = json_object_get_string(json_object_array_get_idx(cols, i));

		if (c && !strcmp(c, key))
			return (int)i;
	}
	return -1;
}

struct tid_group {
	__u32 tid;
	bool in;			/* the thread belongs to the group */
};

static int tid_cmp(const void *a, const void *b)
{
	const struct tid_group *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The group's value of column col in one interval's rows. */
static double group_value(json_object *rows, const struct tid_group *tids, size_t n, int col)
{
	size_t len = rows && json_object_is_type(rows, json_type_array) ?
		     json_object_array_length(rows) : 0;
	double v = 0;

	for (size_t r = 0; r < len && r < SS_RECORDING_MAX_ITEMS; r++) {
		json_object *row = json_object_array_get_idx(rows, r);
		struct tid_group key, *hit;

		if (!json_object_is_type(row, json_type_array) ||
		    json_object_array_length(row) <= (size_t)col)
			continue;
		key.tid = (__u32)json_object_get_int64(json_object_array_get_idx(row, 0));
		hit = n ? bsearch(&key, tids, n, sizeof(*tids), tid_cmp) : NULL;
		if (hit && hit->in)
			v += json_object_get_double(json_object_array_get_idx(row, (size_t)col));
	}
	return v;
}

/* Stdev of a thread group's per-second rate of key over the -i series'
 * per-thread rows; without them (before 1.1), the totals' as a bound. */
static size_t group_spread(const struct ss_recording *rec, const char *group, const char *key,
			   double *sd)
{
	size_t len = rec->intervals ? json_object_array_length(rec->intervals) : 0, n = 0;
	int col = thread_column(rec, key);
	struct tid_group *tids;
	double sum = 0, sq = 0;
	char name[160];

	/* Series written before 1.1 (even if read back and rewritten since)
	 * have no rows. */
	if (col < 1 || !len ||
	    !json_object_is_type(member(json_object_array_get_idx(rec->intervals, 0), "thread_rows"),
				 json_type_array))
		return interval_spread(rec, key, sd);
	*sd = -1;
	tids = calloc(rec->prof.nthreads + 1, sizeof(*tids));
	if (!tids)
		return 0;
	for (size_t i = 0; i < rec->prof.nthreads; i++) {
		diff__group_name(rec->prof.threads[i].comm, name, sizeof(name));
		tids[i] = (struct tid_group){ .tid = rec->prof.threads[i].tid, .in = !strcmp(name, group) };
	}
	ss_sort(tids, rec->prof.nthreads, sizeof(*tids), tid_cmp);
	for (size_t i = 0; i < len && i < SS_RECORDING_MAX_ITEMS; i++) {
		json_object *iv = json_object_array_get_idx(rec->intervals, i);
		double dur = json_object_get_double(member(iv, "duration_ns")) / 1e9, x;

		if (dur <= 0)
			continue;
		x = group_value(member(iv, "thread_rows"), tids, rec->prof.nthreads, col) / dur;
		sum += x;
		sq += x * x;
		n++;
	}
	free(tids);
	if (n >= 2) {
		double mean = sum / n, var = (sq - n * mean * mean) / (n - 1);

		*sd = var > 0 ? sqrt(var) : 0;
	}
	return n;
}

static enum diff_sig judge(double before, double after, double noise)
{
	double delta = fabs(after - before), big = before > after ? before : after;

	if (noise < 0)
		return DIFF_SIG_UNKNOWN;
	return delta > DIFF_NOISE_SPREADS * noise && delta > DIFF_MIN_SHARE * big ? DIFF_SIG_YES :
	       DIFF_SIG_NO;
}

static int add_row(struct recording_diff *d, size_t *cap, const struct diff_row *row)
{
	if (ss_grow((void **)&d->rows, d->nrows, cap, sizeof(*d->rows), 32))
		return -ENOMEM;
	d->rows[d->nrows++] = *row;
	d->significant += row->significant == DIFF_SIG_YES;
	return 0;
}

/* One section's rows: every name either side has, before's order first. */
static int section_rows(struct recording_diff *d, size_t *cap, enum diff_section s,
			const struct keyed_list *b, const struct keyed_list *a, const double dur[2],
			const struct ss_recording *rb, const struct ss_recording *ra)
{
	for (int side = 0; side < 2; side++) {
		const struct keyed_list *l = side ? a : b, *other = side ? b : a;

		for (size_t i = 0; i < l->n; i++) {
			const struct keyed *k = &l->v[i], *o = NULL;

			for (size_t j = 0; j < other->n && !o; j++)
				if (!strcmp(other->v[j].name, k->name))
					o = &other->v[j];
			if (side && o)
				continue;	/* already paired from before's side */
			for (int m = 0; m < MAX_METRICS && metrics[s][m].name; m++) {
				const struct keyed *kb = side ? o : k, *ka = side ? k : o;
				struct diff_row row = { .section = s, .metric = metrics[s][m].name,
							.unit = metrics[s][m].unit };
				double sb, sa;

				snprintf(row.name, sizeof(row.name), "%s", k->name);
				row.before = kb ? kb->v[m] / dur[0] : 0;
				row.after = ka ? ka->v[m] / dur[1] : 0;
				if (s == DIFF_THREAD_GROUPS) {
					group_spread(rb, k->name, metrics[s][m].noise, &sb);
					group_spread(ra, k->name, metrics[s][m].noise, &sa);
				} else {
					interval_spread(rb, metrics[s][m].noise, &sb);
					interval_spread(ra, metrics[s][m].noise, &sa);
				}
				row.noise = sb < 0 || sa < 0 ? -1 : sqrt((sb * sb + sa * sa) / 2);
				row.significant = judge(row.before, row.after, row.noise);
				if (add_row(d, cap, &row))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

static int severity_rank(const char *s)
{
	return !s ? -1 : !strcmp(s, "critical") ? 2 : !strcmp(s, "warning") ? 1 : 0;
}

static struct diff_finding *finding_get(struct recording_diff *d, const char *id)
{
	struct diff_finding *v;

	for (size_t i = 0; i < d->nfindings; i++)
		if (!strcmp(d->findings[i].id, id))
			return &d->findings[i];
	v = realloc(d->findings, (d->nfindings + 1) * sizeof(*v));
	if (!v)
		return NULL;
	d->findings = v;
	memset(&v[d->nfindings], 0, sizeof(*v));
	snprintf(v[d->nfindings].id, sizeof(v->id), "%s", id);
	return &v[d->nfindings++];
}

/* The findings each recording's advice holds, by id. */
static int compare_findings(struct recording_diff *d, const struct ss_recording *b,
			    const struct ss_recording *a)
{
	for (int side = 0; side < 2; side++) {
		json_object *adv = member((side ? a : b)->doc, "advice");
		size_t n = adv && json_object_is_type(adv, json_type_array) ?
			   json_object_array_length(adv) : 0;

		for (size_t i = 0; i < n && i < ADV_MAX_FINDINGS * 4; i++) {
			json_object *f = json_object_array_get_idx(adv, i);
			const char *id = json_object_get_string(member(f, "id"));
			const char *sev = json_object_get_string(member(f, "severity"));
			const char *title = json_object_get_string(member(f, "title"));
			struct diff_finding *df;

			if (!id || !sev || severity_rank(sev) < 0)
				continue;
			if (!(df = finding_get(d, id)))
				return -ENOMEM;
			*(side ? &df->after : &df->before) = sev;
			if (title && (side || !df->title[0]))
				snprintf(df->title, sizeof(df->title), "%s", title);
		}
	}
	for (size_t i = 0; i < d->nfindings; i++) {
		struct diff_finding *f = &d->findings[i];
		int rb = severity_rank(f->before), ra = severity_rank(f->after);

		f->change = rb < 0 ? DIFF_APPEARED : ra < 0 ? DIFF_DISAPPEARED :
			    ra > rb ? DIFF_WORSE : ra < rb ? DIFF_BETTER : DIFF_SAME;
	}
	return 0;
}

int recording_diff__compute(const struct ss_recording *before, const struct ss_recording *after,
			    struct recording_diff *out)
{
	struct keyed_list lb[DIFF_SECTIONS] = { 0 }, la[DIFF_SECTIONS] = { 0 };
	double dur[2] = { before->rep.duration_ns / 1e9, after->rep.duration_ns / 1e9 }, sd;
	size_t cap = 0;
	int err;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 2; i++)
		if (dur[i] <= 0)
			dur[i] = 1;	/* an empty trace: its sums are 0 anyway */
	out->intervals_before = interval_spread(before, "futex_wait_ns", &sd);
	out->intervals_after = interval_spread(after, "futex_wait_ns", &sd);
	err = collect(before, lb) ?: collect(after, la);
	for (int s = 0; s < DIFF_SECTIONS && !err; s++)
		err = section_rows(out, &cap, s, &lb[s], &la[s], dur, before, after);
	err = err ?: compare_findings(out, before, after);
	for (int s = 0; s < DIFF_SECTIONS; s++) {
		free(lb[s].v);
		free(la[s].v);
	}
	if (err)
		recording_diff__free(out);
	return err;
}

void recording_diff__free(struct recording_diff *d)
{
	free(d->rows);
	free(d->findings);
	memset(d, 0, sizeof(*d));
}

const char *diff__section_name(enum diff_section s)
{
	static const char *const names[DIFF_SECTIONS] = {
		"totals", "locks", "yield_sites", "thread_groups",
	};

	return s < DIFF_SECTIONS ? names[s] : "?";
}

const char *diff__change_name(enum diff_change c)
{
	static const char *const names[] = { "same", "appeared", "disappeared", "worse", "better" };

	return c <= DIFF_BETTER ? names[c] : "?";
}

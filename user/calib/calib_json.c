// SPDX-License-Identifier: GPL-2.0
/*
 * JSON form and table cells of the calibration figures (see calib_json.h).
 */
#include <stdio.h>
#include <string.h>
#include "calib_json.h"
#include "calib/kern/calib_distance.h"
#include "calib/kern/calib_stat.h"

json_object *calib_stats__json(const struct calib_stats *st, double cv_limit,
			       const struct calib_busy *busy)
{
	json_object *o = json_object_new_object();
	char warn[256] = "";
	size_t len = 0;

	if (!o)
		return NULL;
	json_object_object_add(o, "median", json_object_new_double(st->median));
	json_object_object_add(o, "min", json_object_new_double(st->min));
	json_object_object_add(o, "max", json_object_new_double(st->max));
	json_object_object_add(o, "cv", json_object_new_double(st->cv));
	json_object_object_add(o, "ci_lo", json_object_new_double(st->ci_lo));
	json_object_object_add(o, "ci_hi", json_object_new_double(st->ci_hi));
	json_object_object_add(o, "mad", json_object_new_double(st->mad));
	json_object_object_add(o, "n", json_object_new_int(st->n));
	if (st->n < 3)
		len += (size_t)snprintf(warn + len, sizeof(warn) - len,
				"only %d sample%s", st->n, st->n == 1 ? "" : "s");
	else if (st->cv > cv_limit)
		len += (size_t)snprintf(warn + len, sizeof(warn) - len,
				"wide spread: cv %.0f%% (limit %.0f%%)",
				st->cv * 100, cv_limit * 100);
	if (busy && busy->busy && len < sizeof(warn))
		snprintf(warn + len, sizeof(warn) - len, "%shost busy: %s",
			 len ? "; " : "", busy->why);
	if (warn[0])
		json_object_object_add(o, "warning", json_object_new_string(warn));
	return o;
}

void calib_json__goal(json_object *fig, const struct calib_stats *st, double goal)
{
	double rel = calib_ci__rel(st->median, st->ci_lo, st->ci_hi);

	if (!fig)
		return;
	json_object_object_add(fig, "rel_ci", json_object_new_double(rel));
	json_object_object_add(fig, "rel_ci_goal", json_object_new_double(goal));
	json_object_object_add(fig, "goal_met", json_object_new_boolean(rel <= goal));
}

bool calib_stats__from_json(const json_object *obj, const char *key,
			    struct calib_stats *st, const char **warning)
{
	json_object *f, *v;

	if (warning)
		*warning = NULL;
	memset(st, 0, sizeof(*st));
	if (!obj || !json_object_object_get_ex(obj, key, &f) ||
	    !json_object_is_type(f, json_type_object) ||
	    !json_object_object_get_ex(f, "median", &v))
		return false;
	st->median = json_object_get_double(v);
	st->min = calib_json__double(f, "min", st->median);
	st->max = calib_json__double(f, "max", st->median);
	st->cv = calib_json__double(f, "cv", 0);
	/* Files from before the interval was kept: the range stands in. */
	st->ci_lo = calib_json__double(f, "ci_lo", st->min);
	st->ci_hi = calib_json__double(f, "ci_hi", st->max);
	st->n = (int)calib_json__double(f, "n", 0);
	/* Files from before it was kept: 0, the region rule then links by
	 * its fixed distance alone. */
	st->mad = calib_json__double(f, "mad", 0);
	if (warning && json_object_object_get_ex(f, "warning", &v))
		*warning = json_object_get_string(v);
	return true;
}

json_object *calib_busy__json(const struct calib_busy *b)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "load1", json_object_new_double(b->load1));
	json_object_object_add(o, "load1_end", json_object_new_double(b->load1_end));
	json_object_object_add(o, "others_cpu_share",
			       b->others_share >= 0 ? json_object_new_double(b->others_share) : NULL);
	json_object_object_add(o, "steal_frac", json_object_new_double(b->steal_frac));
	json_object_object_add(o, "cpu_mhz", b->cpu_mhz > 0 ? json_object_new_double(b->cpu_mhz) : NULL);
	if (b->mhz_source && b->mhz_source[0])
		json_object_object_add(o, "cpu_mhz_source", json_object_new_string(b->mhz_source));
	json_object_object_add(o, "busy", json_object_new_boolean(b->busy));
	json_object_object_add(o, "why", json_object_new_string(b->why));
	return o;
}

json_object *calib_team__json(const struct calib_team_result *r)
{
	json_object *o = json_object_new_object(), *cpus;
	char warn[128];

	if (!o)
		return NULL;
	cpus = json_object_new_array();
	for (int i = 0; i < r->nthreads && r->members; i++)
		json_object_array_add(cpus, json_object_new_int(r->members[i].cpu));
	json_object_object_add(o, "threads", json_object_new_int(r->nthreads));
	json_object_object_add(o, "overlap", json_object_new_double(r->overlap));
	json_object_object_add(o, "wall_ns", json_object_new_int64((int64_t)r->wall_ns));
	json_object_object_add(o, "cpus", cpus);
	if (r->overlap < CALIB_OVERLAP_OK) {
		snprintf(warn, sizeof(warn),
			 "threads ran at once only %.0f%% of the time", r->overlap * 100);
		json_object_object_add(o, "warning", json_object_new_string(warn));
	}
	return o;
}

void calib_json__skip(json_object *result, const char *reason)
{
	json_object_object_add(result, "skipped", json_object_new_boolean(1));
	json_object_object_add(result, "reason", json_object_new_string(reason));
}

double calib_json__double(const json_object *obj, const char *key, double dflt)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v))
		return dflt;
	return json_object_get_double(v);
}

double calib_json__distance_ns(const json_object *cpu_distance)
{
	json_object *rts = json_object_object_get(cpu_distance, "round_trip_ns");
	double v[CALIB_DISTANCE_MAX];
	struct calib_stats st;
	int n = 0;

	for (size_t i = 0; i < calib_json__len(rts) && n < CALIB_DISTANCE_MAX; i++)
		if ((v[n] = json_object_get_double(calib_json__at(rts, i))) > 0)
			n++;
	if (!n)
		return 0;
	calib_stats__compute(&st, v, n);
	return st.median;
}

const char *calib_json__string(const json_object *obj, const char *key, const char *dflt)
{
	json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return dflt;
	return json_object_get_string(v);
}

bool calib_json__full_run(const json_object *family)
{
	return !strcmp(calib_json__string(family, "mode", "quick"), "full");
}

const char *calib_json__cell(const json_object *obj, const char *key,
			     const char *fmt, char *buf, size_t len)
{
	struct calib_stats st;
	const char *warning;
	int n;

	if (!calib_stats__from_json(obj, key, &st, &warning)) {
		snprintf(buf, len, "-");
		return buf;
	}
	n = snprintf(buf, len, fmt, st.median);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " ±%.0f%%%s", st.cv * 100,
			 warning ? "!" : "");
	return buf;
}

/* Spread warnings are many and already marked "!" in the tables. */
static bool is_spread(const char *w)
{
	return !strncmp(w, "wide spread", 11) || !strncmp(w, "only ", 5);
}

/* A person's name for an array element: "2 threads, atomic", its label,
 * or its position ("#2") when it says nothing of itself. */
static void element_name(const json_object *el, size_t i, char *buf, size_t len)
{
	const char *label = calib_json__string(el, "label", NULL);
	const char *kind = calib_json__string(el, "kind", NULL);
	json_object *threads;

	if (label) {
		snprintf(buf, len, "%s", label);
	} else if (json_object_object_get_ex(el, "threads", &threads)) {
		snprintf(buf, len, "%d thread%s%s%s", json_object_get_int(threads),
			 json_object_get_int(threads) == 1 ? "" : "s", kind ? ", " : "", kind ? kind : "");
	} else {
		snprintf(buf, len, "#%zu", i + 1);
	}
}

/* Appends a path segment in words: "shared_counter" reads "shared counter". */
static void push_segment(char *path, size_t plen, size_t base, const char *seg)
{
	size_t n = base;

	n += (size_t)snprintf(path + n, n < plen ? plen - n : 0, "%s", base ? ", " : "");
	for (const char *c = seg; *c && n + 1 < plen; c++)
		path[n++] = *c == '_' ? ' ' : *c;
	if (n < plen)
		path[n] = '\0';
}

static void walk_warnings(json_object *obj, char *path, size_t plen, FILE *out, int *shown,
			  int *spread)
{
	size_t base = strlen(path);
	char seg[96];

	if (json_object_is_type(obj, json_type_array)) {
		for (size_t i = 0; i < calib_json__len(obj); i++) {
			json_object *el = calib_json__at(obj, i);

			element_name(el, i, seg, sizeof(seg));
			push_segment(path, plen, base, seg);
			walk_warnings(el, path, plen, out, shown, spread);
		}
	} else if (json_object_is_type(obj, json_type_object)) {
		json_object_object_foreach(obj, key, val) {
			if (!strcmp(key, "warning") && json_object_is_type(val, json_type_string)) {
				const char *w = json_object_get_string(val);

				path[base] = '\0';
				/* A busy host is said once, by the family's own
				 * warning; repeating it per figure drowns the rest. */
				if (is_spread(w) || (base && !strncmp(w, "host busy", 9))) {
					(*spread)++;
				} else if (base) {
					fprintf(out, "  warning: %s: %s\n", path, w);
					(*shown)++;
				} else {
					fprintf(out, "  warning: %s\n", w);
					(*shown)++;
				}
				continue;
			}
			push_segment(path, plen, base, key);
			walk_warnings(val, path, plen, out, shown, spread);
		}
	}
	path[base] = '\0';
}

int calib_json__print_warnings(const json_object *obj, FILE *out)
{
	char path[512] = "";
	int shown = 0, spread = 0;

	walk_warnings((json_object *)obj, path, sizeof(path), out, &shown, &spread);
	/* After --full, "with --full" would send the reader round. */
	if (spread)
		fprintf(out, "  warning: %d figure%s marked ! %s a wide spread, too few samples or a busy host: "
			"rerun on an idle host%s\n", spread, spread == 1 ? "" : "s",
			spread == 1 ? "has" : "have",
			calib_json__full_run(obj) ? " (--cpus on idle CPUs)" : " or with --full");
	return shown + spread;
}

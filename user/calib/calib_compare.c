// SPDX-License-Identifier: GPL-2.0
/*
 * Two calibrations side by side (see calib_compare.h).
 */
#include <stdlib.h>
#include <string.h>
#include "advisor/hostcal.h"
#include "calib_compare.h"
#include "calib_host.h"
#include "calib_json.h"

const struct calib_headline calib_headlines[] = {
	{ "spin_hint", "ns_per_hint.pause", NULL, "PAUSE", 1, "ns" },
	{ "spin_hint", "ns_per_hint.isb", NULL, "ISB", 1, "ns" },
	{ "spin_hint", "ns_per_hint.sb", NULL, "SB", 1, "ns" },
	{ "spin_hint", "ns_per_hint.yield", NULL, "YIELD", 1, "ns" },
	{ "spin_hint", "ns_per_hint.nop", NULL, "NOP", 1, "ns" },
	{ "memory_order", "uncontended.store_release", NULL, "release store", 1, "ns" },
	{ "memory_order", "uncontended.store_seq_cst", NULL, "seq_cst store", 1, "ns" },
	{ "memory_order", "uncontended.store_fence", NULL, "store + full fence", 1, "ns" },
	{ "memory_order", "uncontended.cas_seq_cst", NULL, "CAS seq_cst", 1, "ns" },
	{ "false_sharing", "ratio_stats", "ratio_unpadded_padded", "unpadded/padded", 1, "x" },
	{ "spin_threshold", "contention.light.region.pick.acq_per_s_stats",
	  "contention.light.best.acq_per_s", "best lock, light contention", 1e6, "M acq/s" },
	{ "spin_threshold", "contention.light.mutex_acq_per_s_stats",
	  "contention.light.mutex_acq_per_s", "pthread_mutex, light", 1e6, "M acq/s" },
	{ "spin_threshold", "contention.heavy.region.pick.acq_per_s_stats",
	  "contention.heavy.best.acq_per_s", "best lock, heavy contention", 1e6, "M acq/s" },
	{ "host_costs", "futex_handoff.same_cpu.ns", NULL, "futex handoff, one CPU", 1e3, "us" },
	{ "host_costs", "futex_handoff.cross_cpu.ns", NULL, "futex handoff, across CPUs", 1e3, "us" },
	{ "host_costs", "sched_yield.alone.ns", NULL, "sched_yield alone", 1, "ns" },
	{ "host_costs", "c2c.pairs.0.round_trip_ns", NULL, "cache-line round trip", 1, "ns" },
	{ "host_costs", "tracing.ns_per_event", NULL, "spinscope per traced event", 1, "ns" },
};
const int calib_nheadlines = sizeof(calib_headlines) / sizeof(calib_headlines[0]);

/* results.family.a.b.0.c: numeric segments index arrays. */
static json_object *walk(const json_object *doc, const char *family, const char *path)
{
	json_object *v = NULL;
	char buf[160], *save = NULL;

	if (!json_object_object_get_ex(doc, "results", &v) ||
	    !json_object_object_get_ex(v, family, &v))
		return NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *seg = strtok_r(buf, ".", &save); seg && v; seg = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(v, json_type_array)) {
			char *end;
			long i = strtol(seg, &end, 10);

			v = *end || i < 0 || (size_t)i >= calib_json__len(v) ? NULL :
			    calib_json__at(v, (size_t)i);
		} else if (!json_object_is_type(v, json_type_object) ||
			   !json_object_object_get_ex(v, seg, &v)) {
			v = NULL;
		}
	}
	return v;
}

bool calib_compare__figure(const json_object *doc, const struct calib_headline *h,
			   struct calib_figure *out)
{
	json_object *v = walk(doc, h->family, h->path), *m;
	struct calib_stats st;

	memset(out, 0, sizeof(*out));
	if (!v && h->fallback)
		v = walk(doc, h->family, h->fallback);
	if (!v || json_object_is_type(v, json_type_null))
		return false;
	out->have = true;
	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
		out->median = out->ci_lo = out->ci_hi = json_object_get_double(v);
		return true;
	}
	m = json_object_new_object();
	json_object_object_add(m, "f", json_object_get(v));
	if (!calib_stats__from_json(m, "f", &st, NULL)) {
		json_object_put(m);
		out->have = false;
		return false;
	}
	json_object_put(m);
	out->median = st.median;
	out->ci_lo = st.ci_lo;
	out->ci_hi = st.ci_hi;
	out->noise_known = st.n >= 2;
	if (json_object_object_get_ex(v, "modes", &m) && json_object_is_type(m, json_type_array) &&
	    calib_json__len(m) == 2) {
		out->bimodal = true;
		for (int i = 0; i < 2; i++) {
			out->mode[i] = calib_json__double(calib_json__at(m, (size_t)i),
							  "median", 0);
			out->share[i] = calib_json__double(calib_json__at(m, (size_t)i),
							   "share", 0);
		}
	}
	return true;
}

/* "differs beyond noise", "within noise", "noise unknown", "bimodal" */
static const char *verdict(const struct calib_figure *a, const struct calib_figure *b)
{
	if (a->bimodal || b->bimodal)
		return "bimodal";
	if (!a->noise_known || !b->noise_known)
		return "noise unknown";
	if (a->ci_hi < b->ci_lo || b->ci_hi < a->ci_lo)
		return "differs beyond noise";
	return "within noise";
}

/* A cell: "13.21 ±2%" (half the interval, relative), or "-". */
static const char *cell(const struct calib_figure *f, const struct calib_headline *h,
			char *buf, size_t len)
{
	if (!f->have)
		snprintf(buf, len, "-");
	else if (!f->noise_known)
		snprintf(buf, len, "%.3g", f->median / h->scale);
	else
		snprintf(buf, len, "%.3g ±%.0f%%", f->median / h->scale,
			 f->median ? 50 * (f->ci_hi - f->ci_lo) / f->median : 0);
	return buf;
}

/* The advisor's view of a document, as -p would read it. */
static struct adv_host *host_of(const json_object *doc)
{
	struct adv_host *h = calloc(1, sizeof(*h));
	json_object *res, *host;

	if (!h)
		return NULL;
	json_object_object_get_ex(doc, "results", &res);
	json_object_object_get_ex(doc, "host", &host);
	calib_host__fill(res, calib_json__string(host, "arch", ""), h);
	return h;
}

/* "spin_then_park 7-255", "spin_then_park 31 (unseparated)", "-". */
static void best_text(const struct adv_best *b, const struct adv_region *g, char *buf, size_t len)
{
	if (!b || !b->strategy[0])
		snprintf(buf, len, "-");
	else if (g->size && g->n_max > g->n_min)
		snprintf(buf, len, "%s %u-%u%s", b->strategy, g->n_min, g->n_max,
			 g->separated ? "" : " (unseparated)");
	else
		snprintf(buf, len, "%s %u%s", b->strategy, b->n,
			 g->size && !g->separated ? " (unseparated)" : "");
}

static void region_text(const struct adv_host *h, bool heavy, char *buf, size_t len)
{
	best_text(adv_cal__best(h, heavy), heavy ? &h->spin_threshold.heavy_region :
						   &h->spin_threshold.light_region, buf, len);
}

/* "62 ns spin_then_park 7-255, 352 ns spin_then_park 15-63: both 15-63"
 * (", both spin_then_yield 0-7" where the shared configurations are of
 * neither state's own strategy, or ": none in both"): the verdict of each CPU-distance state a level
 * met, as the advisor compares them; "-" for a level with one verdict. */
static void states_text(const struct adv_host *h, bool heavy, char *buf, size_t len)
{
	struct adv_lock_choice c;
	char near[64], far[64], both[64];

	if (!adv_cal__lock_choice(h, heavy, &c) || c.states == ADV_LOCK_ONE_VERDICT) {
		snprintf(buf, len, "-");
		return;
	}
	best_text(&c.near->best, &c.near->region, near, sizeof(near));
	best_text(&c.far->best, &c.far->region, far, sizeof(far));
	/* The shared configuration's strategy is named where it is neither
	 * state's own (regions that share members of another strategy). */
	bool own = !strcmp(c.strategy, c.near->best.strategy) && !strcmp(c.strategy, c.far->best.strategy);

	if (c.states == ADV_LOCK_STATES_DIFFER)
		snprintf(both, sizeof(both), "none in both");
	else if (c.n_max > c.n_min)
		snprintf(both, sizeof(both), "both %s%s%u-%u", own ? "" : c.strategy, own ? "" : " ",
			 c.n_min, c.n_max);
	else
		snprintf(both, sizeof(both), "both %s%s%u", own ? "" : c.strategy, own ? "" : " ", c.n);
	snprintf(buf, len, "%.0f ns %s, %.0f ns %s: %s", c.near->round_trip_ns, near,
		 c.far->round_trip_ns, far, both);
}

struct verdicts {
	char interference[32], light[64], heavy[64], hint[32];
	char light_states[176], heavy_states[176];
};

static void verdicts_of(const json_object *doc, struct verdicts *v)
{
	struct adv_host *h = host_of(doc);
	const struct adv_hint *hint;

	memset(v, 0, sizeof(*v));
	if (!h)
		return;
	if (!adv_cal__usable(h, ADV_FAM_FALSE_SHARING))
		snprintf(v->interference, sizeof(v->interference), "-");
	else if (h->false_sharing.interference_bytes)
		snprintf(v->interference, sizeof(v->interference), "%u B",
			 h->false_sharing.interference_bytes);
	else
		snprintf(v->interference, sizeof(v->interference), "none claimed");
	region_text(h, false, v->light, sizeof(v->light));
	region_text(h, true, v->heavy, sizeof(v->heavy));
	states_text(h, false, v->light_states, sizeof(v->light_states));
	states_text(h, true, v->heavy_states, sizeof(v->heavy_states));
	hint = adv_cal__hint(h);
	snprintf(v->hint, sizeof(v->hint), "%s", hint ? hint->name : "-");
	free(h);
}

static void describe(const json_object *doc, const char *name, const char *tag, FILE *out)
{
	json_object *host = NULL;

	json_object_object_get_ex(doc, "host", &host);
	fprintf(out, "%s: %s: %s (%s), kernel %s, saved %s\n", tag, name,
		calib_json__string(host, "model_name", "?"), calib_json__string(host, "arch", "?"),
		calib_json__string(host, "kernel", "?"), calib_json__string(doc, "created", "?"));
}

static json_object *figure_json(const struct calib_figure *f)
{
	json_object *o;

	if (!f->have)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "median", json_object_new_double(f->median));
	if (f->noise_known) {
		json_object_object_add(o, "ci_lo", json_object_new_double(f->ci_lo));
		json_object_object_add(o, "ci_hi", json_object_new_double(f->ci_hi));
	}
	json_object_object_add(o, "bimodal", json_object_new_boolean(f->bimodal));
	return o;
}

static void print_json(const json_object *a, const char *a_name, const json_object *b,
		       const char *b_name, FILE *out)
{
	json_object *doc = json_object_new_object(), *figs = json_object_new_array(), *ver;
	struct verdicts va, vb;

	json_object_object_add(doc, "a", json_object_new_string(a_name));
	json_object_object_add(doc, "b", json_object_new_string(b_name));
	for (int i = 0; i < calib_nheadlines; i++) {
		const struct calib_headline *h = &calib_headlines[i];
		struct calib_figure fa, fb;
		json_object *o;

		calib_compare__figure(a, h, &fa);
		calib_compare__figure(b, h, &fb);
		if (!fa.have && !fb.have)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "family", json_object_new_string(h->family));
		json_object_object_add(o, "figure", json_object_new_string(h->label));
		json_object_object_add(o, "a", figure_json(&fa));
		json_object_object_add(o, "b", figure_json(&fb));
		json_object_object_add(o, "ratio", fa.have && fb.have && fa.median ?
				       json_object_new_double(fb.median / fa.median) : NULL);
		json_object_object_add(o, "verdict", fa.have && fb.have ?
				       json_object_new_string(verdict(&fa, &fb)) : NULL);
		json_object_array_add(figs, o);
	}
	json_object_object_add(doc, "figures", figs);
	verdicts_of(a, &va);
	verdicts_of(b, &vb);
	ver = json_object_new_object();
	json_object_object_add(ver, "interference_size",
			       json_object_new_string(va.interference));
	json_object_object_add(ver, "interference_size_b", json_object_new_string(vb.interference));
	json_object_object_add(ver, "light", json_object_new_string(va.light));
	json_object_object_add(ver, "light_b", json_object_new_string(vb.light));
	json_object_object_add(ver, "heavy", json_object_new_string(va.heavy));
	json_object_object_add(ver, "heavy_b", json_object_new_string(vb.heavy));
	json_object_object_add(ver, "light_by_distance", json_object_new_string(va.light_states));
	json_object_object_add(ver, "light_by_distance_b", json_object_new_string(vb.light_states));
	json_object_object_add(ver, "heavy_by_distance", json_object_new_string(va.heavy_states));
	json_object_object_add(ver, "heavy_by_distance_b", json_object_new_string(vb.heavy_states));
	json_object_object_add(ver, "cheapest_fit_hint", json_object_new_string(va.hint));
	json_object_object_add(ver, "cheapest_fit_hint_b", json_object_new_string(vb.hint));
	json_object_object_add(doc, "verdicts", ver);
	fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

int calib_compare__print(const json_object *a, const char *a_name, const json_object *b,
			 const char *b_name, bool json, FILE *out)
{
	struct verdicts va, vb;
	char ca[40], cb[40], label[64];
	int differ = 0;

	if (json) {
		print_json(a, a_name, b, b_name, out);
		return 0;
	}
	describe(a, a_name, "A", out);
	describe(b, b_name, "B", out);
	fprintf(out, "\n%-38s %16s %16s %8s  %s\n", "figure (median ±half its 95% interval)", "A",
		"B", "B/A", "difference");
	for (int i = 0; i < calib_nheadlines; i++) {
		const struct calib_headline *h = &calib_headlines[i];
		struct calib_figure fa, fb;
		char ratio[16] = "-";

		calib_compare__figure(a, h, &fa);
		calib_compare__figure(b, h, &fb);
		if (!fa.have && !fb.have)
			continue;
		if (fa.have && fb.have && fa.median)
			snprintf(ratio, sizeof(ratio), "%.2fx", fb.median / fa.median);
		snprintf(label, sizeof(label), "%s, %s", h->label, h->unit);
		fprintf(out, "%-38s %16s %16s %8s  %s", label, cell(&fa, h, ca, sizeof(ca)),
			cell(&fb, h, cb, sizeof(cb)), ratio,
			fa.have && fb.have ? verdict(&fa, &fb) : "measured on one only");
		for (int k = 0; k < 2; k++) {
			const struct calib_figure *f = k ? &fb : &fa;

			if (f->bimodal)
				fprintf(out, "; %s: modes %.3g (%.0f%%) and %.3g (%.0f%%)", k ? "B" : "A",
					f->mode[0] / h->scale, f->share[0] * 100,
					f->mode[1] / h->scale, f->share[1] * 100);
		}
		fputc('\n', out);
		differ += fa.have && fb.have && !strcmp(verdict(&fa, &fb), "differs beyond noise");
	}
	verdicts_of(a, &va);
	verdicts_of(b, &vb);
	fprintf(out, "\n%-38s %16s %16s\n", "verdict", "A", "B");
	fprintf(out, "%-38s %16s %16s\n", "destructive interference size", va.interference,
		vb.interference);
	fprintf(out, "%-38s %16s %16s\n", "cheapest fit spin hint", va.hint, vb.hint);
	fprintf(out, "%-38s %s | %s\n", "lock, light contention (region)", va.light, vb.light);
	fprintf(out, "%-38s %s | %s\n", "lock, heavy contention (region)", va.heavy, vb.heavy);
	/* Only where a level met two CPU distances: older files print as before. */
	if (strcmp(va.light_states, "-") || strcmp(vb.light_states, "-"))
		fprintf(out, "%-38s %s | %s\n", "lock, light, by CPU distance", va.light_states,
			vb.light_states);
	if (strcmp(va.heavy_states, "-") || strcmp(vb.heavy_states, "-"))
		fprintf(out, "%-38s %s | %s\n", "lock, heavy, by CPU distance", va.heavy_states,
			vb.heavy_states);
	fprintf(out, "\n%d figure%s differ%s beyond the noise both runs measured (95%% intervals "
		"of the median do not overlap)\n", differ, differ == 1 ? "" : "s",
		differ == 1 ? "s" : "");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Family false_sharing: what padding per-thread counters buys on this host.
 * Precedent: padding a JVM's per-thread counter to its own cache line gained
 * 3-10% on SPECjbb2015 on a 4-socket Xeon. Threads increment counters 8,
 * 64, 128 and 256 bytes apart (plain and atomic); the spacing beyond which
 * the time stops falling is this host's destructive interference size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib.h"
#include "calib_json.h"
#include "calib/kern/calib_distance.h"
#include "calib/kern/calib_kern.h"
#include "calib/kern/calib_stat.h"
#include "calib/kern/calib_util.h"
#include "calib/kern/fingerprint.h"

static const size_t spacings[] = { 8, 64, 128, 256 };
#define NSPACING (int)(sizeof(spacings) / sizeof(spacings[0]))
#define UNPADDED 0	/* index of 8 */
#define PADDED 1	/* index of 64: one common cache line */
#define PADDED2 2	/* index of 128: an adjacent-line prefetch pair */
/* A spacing "gains nothing" over the next when within this factor. */
#define FS_NEAR_ONE 1.10

static const char *const kinds[] = { "plain", "atomic" };

struct fs_cfg {
	int reps;
	double run_ns;		/* target time of one run at spacing 8 */
	uint64_t retry_budget_ns;	/* time box of one row, retries included */
	/* The first two CPUs' distance, read before every repetition: the
	 * unpadded/padded ratio is a cross-CPU figure, threefold apart
	 * between a VM's two distance states (calib_distance.h). */
	struct calib_distance dist;
};

/* row.cpu_distance {"cpus", "round_trip_ns": [one per repetition],
 * "changed", "states": [{"round_trip_ns", "share", "ratio_8_64"}] (near
 * first, only when changed)}: which state each repetition met, and the
 * ratio of each where they met two (calib_distance__split()). */
static void fs_distance_json(const struct calib_distance *d, const double *rt, const double *r1,
			     int n, json_object *row)
{
	json_object *o, *arr, *states, *cpus;
	struct calib_mode modes[2];
	struct calib_stats st;
	double cut = 0, v[64];
	bool changed;

	if (d->a < 0 || !d->run_trips)
		return;
	o = json_object_new_object();
	arr = json_object_new_array();
	cpus = json_object_new_array();
	json_object_array_add(cpus, json_object_new_int(d->a));
	json_object_array_add(cpus, json_object_new_int(d->b));
	json_object_object_add(o, "cpus", cpus);
	for (int i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_double(rt[i]));
	json_object_object_add(o, "round_trip_ns", arr);
	changed = calib_distance__split(rt, n, modes, &cut) == 2;
	json_object_object_add(o, "changed", json_object_new_boolean(changed));
	json_object_object_add(row, "cpu_distance", o);
	if (!changed)
		return;
	states = json_object_new_array();
	for (int far = 0; far < 2; far++) {
		json_object *sj = json_object_new_object();
		int k = 0;

		for (int i = 0; i < n; i++)
			if (rt[i] > 0 && (rt[i] >= cut) == far)
				v[k++] = r1[i];
		calib_stats__compute(&st, v, k);
		json_object_object_add(sj, "round_trip_ns", json_object_new_double(modes[far].median));
		json_object_object_add(sj, "share", json_object_new_double(modes[far].share));
		json_object_object_add(sj, "ratio_8_64", calib_stats__json(&st, CALIB_CV_CONTENTION, NULL));
		json_object_array_add(states, sj);
	}
	json_object_object_add(o, "states", states);
}

/* One thread count, one kind: every spacing, reps times, interleaved so
 * drift in the host's load hits every spacing alike. */
static int fs_measure(const struct calib_ctx *ctx, const struct fs_cfg *cfg, int threads,
		      bool atomic, json_object *out, double *ratio_med, double *ratio2_med,
		      double *tail_ratio, double *overlap)
{
	double ns[NSPACING][64], r1[64], r2[64], tail[NSPACING][64], ov[64], rt[64];
	struct calib_fs_result res;
	struct calib_stats st;
	uint64_t iters, deadline;
	int err, n = 0, dropped = 0;
	char key[16];

	/* Pilot at the slowest spacing decides the run length. */
	if ((err = calib_fs__run(&ctx->cpus, threads, spacings[UNPADDED], atomic, 20000, &res)))
		return err;
	iters = calib__iters_for(cfg->run_ns, res.ns_per_inc, 20000, 50000000);
	deadline = calib__now_ns() + cfg->retry_budget_ns;
	/* A repetition whose threads did not all run at once measures time
	 * slicing, not false sharing: it is dropped and taken again, up to as
	 * many extra tries as repetitions within the time box, so that a moment of load elsewhere
	 * does not decide the verdict (the count dropped is kept). */
	for (int tries = 0; n < cfg->reps && tries < 2 * cfg->reps && !calib__stopped(ctx);
	     tries++) {
		ov[n] = 1;
		rt[n] = calib_distance__once(&cfg->dist);
		for (int s = 0; s < NSPACING; s++) {
			if ((err = calib_fs__run(&ctx->cpus, threads, spacings[s], atomic, iters, &res)))
				return err;
			if (res.total != (uint64_t)threads * iters)
				return -EIO;	/* a lost increment: the kernel is broken */
			ns[s][n] = res.ns_per_inc;
			ov[n] = res.overlap < ov[n] ? res.overlap : ov[n];
		}
		if (ov[n] < CALIB_OVERLAP_OK && threads <= ctx->ncpus &&
		    calib__now_ns() < deadline && tries + 1 < 2 * cfg->reps) {
			dropped++;
			continue;
		}
		r1[n] = ns[UNPADDED][n] / ns[PADDED][n];
		r2[n] = ns[PADDED][n] / ns[PADDED2][n];
		for (int s = 0; s < NSPACING; s++)
			tail[s][n] = ns[s][n] / ns[NSPACING - 1][n];
		n++;
	}
	if (n == 0)
		return -EINTR;
	for (int s = 0; s < NSPACING; s++) {
		calib_stats__compute(&st, ns[s], n);
		snprintf(key, sizeof(key), "ns_%zu", spacings[s]);
		json_object_object_add(out, key, calib_stats__json(&st, CALIB_CV_CONTENTION, NULL));
		calib_stats__compute(&st, tail[s], n);
		tail_ratio[s] = st.median;
	}
	calib_stats__compute(&st, r1, n);
	*ratio_med = st.median;
	json_object_object_add(out, "ratio_8_64", calib_stats__json(&st, CALIB_CV_CONTENTION, NULL));
	calib_stats__compute(&st, r2, n);
	*ratio2_med = st.median;
	json_object_object_add(out, "ratio_64_128", calib_stats__json(&st, CALIB_CV_CONTENTION, NULL));
	/* The typical run, not the worst: one preempted run among many
	 * shows in the spread already. */
	calib_stats__compute(&st, ov, n);
	*overlap = st.median;
	json_object_object_add(out, "overlap", calib_stats__json(&st, 1.0, NULL));
	json_object_object_add(out, "iters", json_object_new_int64((int64_t)iters));
	json_object_object_add(out, "dropped_not_concurrent", json_object_new_int(dropped));
	fs_distance_json(&cfg->dist, rt, r1, n, out);
	return 0;
}

/* The smallest spacing from which on every wider one is within
 * FS_NEAR_ONE of the widest: past it, more padding buys nothing. */
static size_t interference_size(const double *tail_ratio)
{
	size_t size = spacings[NSPACING - 1];

	for (int s = NSPACING - 2; s >= 0 && tail_ratio[s] <= FS_NEAR_ONE; s--)
		size = spacings[s];
	return size;
}

/* The row the headline reports: atomic increments at the most threads,
 * the case a per-thread stats counter has. */
struct fs_headline {
	double ratio, ratio2;		/* unpadded/padded, 64/128 bytes */
	double tail[NSPACING];
	double overlap;			/* share of the time threads ran at once */
	int threads;			/* 0: no row measured */
	json_object *row;
};

/* Thread counts to measure: 2 up to every allowed CPU (quick: 2 and all). */
static int thread_counts(const struct calib_ctx *ctx, int counts[16])
{
	int ncounts = 0;

	for (int t = 2; t <= ctx->ncpus && ncounts < 15; t *= 2)
		if (!ctx->quick || t == 2)
			counts[ncounts++] = t;
	if (ncounts == 0 || counts[ncounts - 1] != (ctx->ncpus < 2 ? 2 : ctx->ncpus))
		counts[ncounts++] = ctx->ncpus < 2 ? 2 : ctx->ncpus;
	return ncounts;
}

/*
 * The headline row's CPU distance as result.cpu_distance_ns (the median of
 * its readings) and cpu_distance_changed, and its clause in buf: " (CPUs
 * 62 ns apart)", or, where the repetitions met two states, each state's
 * ratio ("; the CPUs' distance changed during it: 5.3x with CPUs 62 ns
 * apart (60%), 2.1x with 330 ns (40%)"); "" without readings.
 */
static void fs_distance_clause(const json_object *row, json_object *result, char *buf, size_t len)
{
	json_object *d = json_object_object_get(row, "cpu_distance"), *states;
	double ns = calib_json__distance_ns(d);

	buf[0] = 0;
	if (ns <= 0)
		return;
	json_object_object_add(result, "cpu_distance_ns", json_object_new_double(ns));
	json_object_object_add(result, "cpu_distance_changed",
			       json_object_new_boolean(json_object_object_get_ex(d, "states", &states)));
	if (!json_object_object_get_ex(d, "states", &states) || calib_json__len(states) != 2) {
		snprintf(buf, len, " (CPUs %.0f ns apart)", ns);
		return;
	}
	json_object *near = calib_json__at(states, 0), *far = calib_json__at(states, 1);
	json_object *rn = json_object_object_get(near, "ratio_8_64");
	json_object *rf = json_object_object_get(far, "ratio_8_64");

	snprintf(buf, len, "; the CPUs' distance changed during it: %.1fx with CPUs %.0f ns apart (%.0f%%), "
		 "%.1fx with %.0f ns (%.0f%%)",
		 calib_json__double(rn, "median", 0), calib_json__double(near, "round_trip_ns", 0),
		 100 * calib_json__double(near, "share", 0), calib_json__double(rf, "median", 0),
		 calib_json__double(far, "round_trip_ns", 0), 100 * calib_json__double(far, "share", 0));
}

/* result's summary keys and "headline" sentence, from the headline row. */
static void fs_summarize(const struct fs_headline *h, json_object *result)
{
	struct ss_fingerprint fp;
	char text[768], dist[192];

	fingerprint__read(NULL, &fp);
	fs_distance_clause(h->row, result, dist, sizeof(dist));
	json_object_object_add(result, "cache_line_sysfs", json_object_new_int(fp.cache_line));
	/* Noise is not a result: without true overlap the spacing figures
	 * measure time slicing, so no interference size is claimed. */
	bool reliable = h->overlap >= CALIB_OVERLAP_OK;
	size_t dis = interference_size(h->tail);
	json_object_object_add(result, "destructive_interference",
			       reliable ? json_object_new_int((int)dis) : NULL);
	json_object_object_add(result, "ratio_unpadded_padded", json_object_new_double(h->ratio));
	/* The headline row's ratio with its interval, for --compare. */
	json_object_object_add(result, "ratio_stats",
			       json_object_get(json_object_object_get(h->row, "ratio_8_64")));
	json_object_object_add(result, "ratio_64_128", json_object_new_double(h->ratio2));
	json_object_object_add(result, "headline_threads", json_object_new_int(h->threads));

	/* The states' ratios follow the whole sentence; one distance fits
	 * beside the thread count. */
	bool changed = dist[0] == ';';
	int len = snprintf(text, sizeof(text), "unpadded/padded: %.1fx at %d threads%s; ",
			   h->ratio, h->threads, changed ? "" : dist);
	if (h->ratio2 <= FS_NEAR_ONE)
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				"128-byte padding gains nothing over 64 here");
	else
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				"128-byte padding gains %.2fx over 64 here: pad hot counters to 128",
				h->ratio2);
	if (reliable)
		snprintf(text + len, sizeof(text) - (size_t)len,
			 ". Destructive interference size: %zu bytes (sysfs cache line: %d)", dis,
			 fp.cache_line);
	else
		snprintf(text + len, sizeof(text) - (size_t)len,
			 ". Unreliable: threads ran at once only %.0f%% of the time, so the real "
			 "cost is higher and no interference size is claimed (sysfs cache line: %d)",
			 h->overlap * 100, fp.cache_line);
	if (changed)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s", dist);
	json_object_object_add(result, "headline", json_object_new_string(text));
}

static int fs_run(const struct calib_ctx *ctx, json_object *result)
{
	struct fs_cfg cfg = ctx->quick ? (struct fs_cfg){ .reps = 9, .run_ns = 10e6,
							  .retry_budget_ns = 700000000ull } :
					 (struct fs_cfg){ .reps = 25, .run_ns = 30e6,
							  .retry_budget_ns = 15000000000ull };
	json_object *rows = json_object_new_array();
	int counts[16], ncounts = thread_counts(ctx, counts), done = 0, err = 0;
	struct fs_headline h = { .overlap = 1 };
	char text[512];

	json_object_object_add(result, "rows", rows);
	cfg.dist.a = -1;
	if (ctx->ncpus >= 2)
		calib_distance__plan(&cfg.dist, calib__nth_cpu(&ctx->cpus, 0), calib__nth_cpu(&ctx->cpus, 1));
	for (int i = 0; i < ncounts && !calib__stopped(ctx); i++) {
		for (int k = 0; k < 2 && !calib__stopped(ctx); k++) {
			json_object *row = json_object_new_object();
			double ratio, ratio2, t[NSPACING], ov;

			json_object_object_add(row, "threads", json_object_new_int(counts[i]));
			json_object_object_add(row, "kind", json_object_new_string(kinds[k]));
			err = fs_measure(ctx, &cfg, counts[i], k == 1, row, &ratio, &ratio2, t, &ov);
			if (err) {
				json_object_put(row);
				if (err == -EINTR)
					break;
				return err;
			}
			if (ov < CALIB_OVERLAP_OK) {
				snprintf(text, sizeof(text), "threads ran at once only %.0f%% of the time: "
					 "this understates false sharing", ov * 100);
				json_object_object_add(row, "warning", json_object_new_string(text));
			}
			json_object_array_add(rows, row);
			if (k == 1) {
				h.ratio = ratio;
				h.ratio2 = ratio2;
				h.threads = counts[i];
				h.row = row;
				memcpy(h.tail, t, sizeof(h.tail));
				h.overlap = ov;
			}
			calib__progress(ctx, (double)++done / (ncounts * 2));
		}
	}
	if (!h.threads)
		return calib__stopped(ctx) ? 0 : -EIO;
	fs_summarize(&h, result);
	return 0;
}

static void fs_print(const json_object *result, FILE *out)
{
	json_object *rows;
	char c[NSPACING + 2][40];

	fprintf(out, "  %s\n", calib_json__string(result, "headline", "(no headline)"));
	if (!json_object_object_get_ex(result, "rows", &rows))
		return;
	fprintf(out, "  %-7s %-6s %14s %14s %14s %14s %12s %12s\n", "threads", "kind",
		"ns/inc @8B", "@64B", "@128B", "@256B", "8B/64B", "64B/128B");
	for (size_t i = 0; i < calib_json__len(rows); i++) {
		json_object *row = calib_json__at(rows, i);

		calib_json__cell(row, "ns_8", "%.2f", c[0], sizeof(c[0]));
		calib_json__cell(row, "ns_64", "%.2f", c[1], sizeof(c[1]));
		calib_json__cell(row, "ns_128", "%.2f", c[2], sizeof(c[2]));
		calib_json__cell(row, "ns_256", "%.2f", c[3], sizeof(c[3]));
		calib_json__cell(row, "ratio_8_64", "%.2fx", c[4], sizeof(c[4]));
		calib_json__cell(row, "ratio_64_128", "%.2fx", c[5], sizeof(c[5]));
		fprintf(out, "  %-7d %-6s %14s %14s %14s %14s %12s %12s\n",
			(int)calib_json__double(row, "threads", 0),
			calib_json__string(row, "kind", "?"), c[0], c[1], c[2], c[3], c[4], c[5]);
	}
}

const struct calib_family calib_false_sharing = {
	.key = "false_sharing",
	.title = "False sharing and padding",
	.quick_seconds = 1,
	.full_seconds = 5,
	.run = fs_run,
	.print = fs_print,
};

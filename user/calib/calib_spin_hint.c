// SPDX-License-Identifier: GPL-2.0
/*
 * Family spin_hint: what each spin-wait hint instruction costs here, and
 * which one a contended CAS loop should back off with. Precedent: on
 * Neoverse-V2 a Thread.onSpinWait built on SB took 6.9 ns against 11.9 ns
 * with ISB, and a shared-counter benchmark ran 30-84% faster.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "calib.h"
#include "calib_json.h"
#include "calib/kern/calib_kern.h"
#include "calib/kern/calib_stat.h"
#include "calib/kern/calib_util.h"

#define SH_MAX_REPS 32
#define SH_MAX_T 16

struct sh_cfg {
	int reps;		/* repetitions of each figure */
	int samples;		/* short samples per repetition (min taken) */
	double sample_ns;	/* target length of one sample */
	uint64_t target;	/* shared-counter increments per run */
	uint64_t budget_ns;	/* time box of the adaptive hint-cost repetitions */
};

static bool is_here(int h)
{
#if defined(__aarch64__)
	return h == CALIB_HINT_NONE || calib_hints__arch(h) == CALIB_ARCH_ARM64;
#else
	return h == CALIB_HINT_NONE || calib_hints__arch(h) == CALIB_ARCH_X86_64;
#endif
}

static int sh_hint_costs(const struct calib_ctx *ctx, const struct sh_cfg *cfg, uint32_t avail,
			 json_object *out, double *cost)
{
	double samples[CALIB_HINT__COUNT][SH_MAX_REPS];
	uint64_t per[CALIB_HINT__COUNT];
	struct calib_stats st;
	int n = 0, err;

	for (int h = 1; h < CALIB_HINT__COUNT; h++) {
		double est;

		if (!(avail & CALIB_HINT_BIT(h)))
			continue;
		if ((err = calib_sh__hint_cost(h, 3, 64, &est)))
			return err;
		per[h] = calib__iters_for(cfg->sample_ns, est, 16, 1 << 20);
	}
	/* Pinned to one allowed CPU so migrations do not split a sample;
	 * the caller's affinity comes back afterwards. */
	cpu_set_t before;
	sched_getaffinity(0, sizeof(before), &before);
	calib__pin_self(calib__nth_cpu(&ctx->cpus, 0));
	/* Adaptive: at least cfg->reps, then on until every hint's interval
	 * meets its goal or the time box is spent (calib_stat.h). */
	uint64_t deadline = calib__now_ns() + cfg->budget_ns;
	for (err = 0; n < SH_MAX_REPS && !calib__stopped(ctx) && !err; n++) {
		bool met = true;

		if (n >= cfg->reps) {
			for (int h = 1; h < CALIB_HINT__COUNT; h++)
				if ((avail & CALIB_HINT_BIT(h)) &&
				    calib_ci__rel_of(samples[h], n) > CALIB_GOAL_INSTR)
					met = false;
			if (met || calib__now_ns() > deadline)
				break;
		}
		for (int h = 1; h < CALIB_HINT__COUNT && !err; h++)
			if (avail & CALIB_HINT_BIT(h))
				err = calib_sh__hint_cost(h, cfg->samples, per[h], &samples[h][n]);
	}
	sched_setaffinity(0, sizeof(before), &before);
	if (err)
		return err;
	if (n == 0)
		return -EINTR;
	for (int h = 1; h < CALIB_HINT__COUNT; h++) {
		if (!(avail & CALIB_HINT_BIT(h)))
			continue;
		calib_stats__compute(&st, samples[h], n);
		cost[h] = st.median;
		json_object *fig = calib_stats__json(&st, CALIB_CV_INSTR, NULL);
		calib_json__goal(fig, &st, CALIB_GOAL_INSTR);
		json_object_object_add(fig, "per_sample", json_object_new_int64((int64_t)per[h]));
		json_object_object_add(out, calib_hints__name(h), fig);
	}
	return 0;
}

/* cfg->reps runs of the shared counter with t threads per available hint:
 * ms[h][i] the ms per million increments of run i, ov[h][i] the share of
 * it the threads ran at once; *n the runs made (fewer when stopped). */
static int sample_counter(const struct calib_ctx *ctx, const struct sh_cfg *cfg, uint32_t avail,
			  int t, double ms[][SH_MAX_REPS], double ov[][SH_MAX_REPS], int *n)
{
	for (*n = 0; *n < cfg->reps && !calib__stopped(ctx); (*n)++)
		for (int h = 0; h < CALIB_HINT__COUNT; h++) {
			struct calib_sh_counter c;
			int err;

			if (!(avail & CALIB_HINT_BIT(h)))
				continue;
			if ((err = calib_sh__shared_counter(&ctx->cpus, t, h, cfg->target, &c)))
				return err;
			if (c.final != cfg->target || c.successes != cfg->target)
				return -EIO;
			ms[h][*n] = c.ns_per_million / 1e6;
			ov[h][*n] = c.overlap;
		}
	return 0;
}

static int sh_counter(const struct calib_ctx *ctx, const struct sh_cfg *cfg, uint32_t avail,
		      json_object *rows, int *best_at2, double *gain_at2)
{
	double ms[CALIB_HINT__COUNT][SH_MAX_REPS], ov[CALIB_HINT__COUNT][SH_MAX_REPS];
	int counts[SH_MAX_T], ncounts = 0, err;

	for (int t = 1; t <= 2 * ctx->ncpus && ncounts < SH_MAX_T; t *= 2)
		counts[ncounts++] = t;
	if (counts[ncounts - 1] != 2 * ctx->ncpus && ncounts < SH_MAX_T)
		counts[ncounts++] = 2 * ctx->ncpus;
	*best_at2 = -1;
	for (int i = 0; i < ncounts && !calib__stopped(ctx); i++) {
		json_object *row = json_object_new_object(), *hints = json_object_new_object();
		int t = counts[i], n;
		double best = 0, none = 0;
		int best_h = -1;

		err = sample_counter(ctx, cfg, avail, t, ms, ov, &n);
		if (err) {
			json_object_put(row);
			json_object_put(hints);
			return err;
		}
		if (n == 0) {
			json_object_put(row);
			json_object_put(hints);
			break;
		}
		for (int h = 0; h < CALIB_HINT__COUNT; h++) {
			struct calib_stats st, so;

			if (!(avail & CALIB_HINT_BIT(h)))
				continue;
			calib_stats__compute(&st, ms[h], n);
			calib_stats__compute(&so, ov[h], n);
			json_object *fig = calib_stats__json(&st, CALIB_CV_CONTENTION, NULL);
			/* More threads than CPUs cannot all run at once;
			 * expect at most ncpus / t there. */
			double expect = t > ctx->ncpus ? (double)ctx->ncpus / t : 1.0;
			if (t > 1 && so.median < CALIB_OVERLAP_OK * expect) {
				char w[128];

				snprintf(w, sizeof(w), "threads ran at once only %.0f%% of the time",
					 so.median * 100);
				json_object_object_add(fig, "warning", json_object_new_string(w));
			}
			json_object_object_add(fig, "overlap", json_object_new_double(so.median));
			json_object_object_add(hints, calib_hints__name(h), fig);
			if (h == CALIB_HINT_NONE)
				none = st.median;
			/* Only a steady figure from threads that ran at once
			 * can win; otherwise the row names no winner. */
			bool steady = st.cv <= CALIB_CV_CONTENTION &&
				      (t == 1 || so.median >= CALIB_OVERLAP_OK * expect);
			if (steady && (best_h < 0 || st.median < best)) {
				best = st.median;
				best_h = h;
			}
		}
		json_object_object_add(row, "threads", json_object_new_int(t));
		json_object_object_add(row, "oversubscribed", json_object_new_boolean(t > ctx->ncpus));
		json_object_object_add(row, "ms_per_million", hints);
		json_object_object_add(row, "best", best_h < 0 ? NULL :
				       json_object_new_string(calib_hints__name(best_h)));
		json_object_array_add(rows, row);
		if (t == 2 || (*best_at2 < 0 && i == ncounts - 1)) {
			*best_at2 = best_h;
			*gain_at2 = best > 0 ? none / best : 1;
		}
		calib__progress(ctx, 0.3 + 0.7 * (i + 1) / ncounts);
	}
	return 0;
}

static int sh_run(const struct calib_ctx *ctx, json_object *result)
{
	struct sh_cfg cfg = ctx->quick ? (struct sh_cfg){ 5, 15, 20e3, 100000, 300000000ull }
				       : (struct sh_cfg){ 15, 50, 20e3, 1000000, 10000000000ull };
	uint32_t avail = calib_hints__available();
	json_object *costs = json_object_new_object(), *absent = json_object_new_array();
	json_object *rows = json_object_new_array();
	double cost[CALIB_HINT__COUNT] = { 0 }, gain = 1;
	int best = -1, err, len;
	char text[512];

	json_object_object_add(result, "ns_per_hint", costs);
	json_object_object_add(result, "unavailable", absent);
	json_object_object_add(result, "shared_counter", rows);
	for (int h = 1; h < CALIB_HINT__COUNT; h++)
		if (is_here(h) && !(avail & CALIB_HINT_BIT(h))) {
			json_object *a = json_object_new_object();

			json_object_object_add(a, "hint", json_object_new_string(calib_hints__name(h)));
			json_object_object_add(a, "reason",
					       json_object_new_string(calib_hints__why_absent(h)));
			json_object_array_add(absent, a);
		}
	if ((err = sh_hint_costs(ctx, &cfg, avail, costs, cost)))
		return err == -EINTR ? 0 : err;
	calib__progress(ctx, 0.3);
	if ((err = sh_counter(ctx, &cfg, avail, rows, &best, &gain)))
		return err;

	len = snprintf(text, sizeof(text), "per hint:");
	for (int h = 1; h < CALIB_HINT__COUNT; h++)
		if (avail & CALIB_HINT_BIT(h))
			len += snprintf(text + len, sizeof(text) - (size_t)len, " %s %.1f ns,",
					calib_hints__name(h), cost[h]);
	text[len - 1] = ';';
	if (best < 0)
		snprintf(text + len, sizeof(text) - (size_t)len,
			 " no hint wins the contended CAS loop reliably here (spread too wide or "
			 "threads did not run at once)");
	else
		snprintf(text + len, sizeof(text) - (size_t)len,
			 best == CALIB_HINT_NONE ?
			 " a contended CAS loop runs fastest with no hint (%s), %.2fx" :
			 " a contended CAS loop backs off best with %s: %.2fx faster than no hint",
			 calib_hints__name(best), gain);
	json_object_object_add(result, "headline", json_object_new_string(text));
	return 0;
}

static void sh_print(const json_object *result, FILE *out)
{
	json_object *costs, *rows, *absent;
	char cell[48];

	fprintf(out, "  %s\n", calib_json__string(result, "headline", "(no headline)"));
	if (json_object_object_get_ex(result, "ns_per_hint", &costs)) {
		fprintf(out, "  %-8s %16s\n", "hint", "ns per hint");
		json_object_object_foreach(costs, name, fig) {
			(void)fig;
			fprintf(out, "  %-8s %16s\n", name,
				calib_json__cell(costs, name, "%.2f", cell, sizeof(cell)));
		}
	}
	if (json_object_object_get_ex(result, "unavailable", &absent))
		for (size_t i = 0; i < calib_json__len(absent); i++) {
			json_object *a = calib_json__at(absent, i);

			fprintf(out, "  %-8s %16s  (%s)\n", calib_json__string(a, "hint", "?"),
				"unavailable", calib_json__string(a, "reason", ""));
		}
	if (!json_object_object_get_ex(result, "shared_counter", &rows))
		return;
	fprintf(out, "  shared counter, ms per million CAS increments:\n  %-7s", "threads");
	json_object *first = calib_json__at(rows, 0), *hints;
	if (!first || !json_object_object_get_ex(first, "ms_per_million", &hints))
		return;
	json_object_object_foreach(hints, hname, hv) {
		(void)hv;
		fprintf(out, " %14s", hname);
	}
	fprintf(out, "  best\n");
	for (size_t i = 0; i < calib_json__len(rows); i++) {
		json_object *row = calib_json__at(rows, i), *h;

		if (!json_object_object_get_ex(row, "ms_per_million", &h))
			continue;
		fprintf(out, "  %-7d", (int)calib_json__double(row, "threads", 0));
		json_object_object_foreach(h, name, fig) {
			(void)fig;
			fprintf(out, " %14s", calib_json__cell(h, name, "%.2f", cell, sizeof(cell)));
		}
		fprintf(out, "  %s\n", calib_json__string(row, "best", "(unclear)"));
	}
}

const struct calib_family calib_spin_hint = {
	.key = "spin_hint",
	.title = "Spin-wait hint instructions",
	.quick_seconds = 0.5,
	.full_seconds = 3,
	.run = sh_run,
	.print = sh_print,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Family memory_order: what stronger memory ordering costs per store and
 * per CAS, alone on a line and with threads sharing it. Precedent: a GC's
 * load barrier healed references with a full-fence CAS; release ordering
 * was enough and shortened its concurrent phases.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "calib.h"
#include "calib_json.h"
#include "calib/kern/calib_kern.h"
#include "calib/kern/calib_util.h"

#define MO_MAX_REPS 32
/* A stronger ordering "buys nothing" when within this factor. */
#define MO_NEAR_ONE 1.10

struct mo_cfg {
	int reps;
	double sample_ns;	/* one uncontended sample */
	double run_ns;		/* one contended run */
};

/* Per-rep ratio of two ops' figures, as a JSON figure; *med its median. */
static json_object *ratio_fig(double (*v)[MO_MAX_REPS], int a, int b, int n, double cv, double *med)
{
	double r[MO_MAX_REPS];
	struct calib_stats st;

	for (int i = 0; i < n; i++)
		r[i] = v[b][i] > 0 ? v[a][i] / v[b][i] : 0;
	calib_stats__compute(&st, r, n);
	*med = st.median;
	return calib_stats__json(&st, cv, NULL);
}

static int mo_uncontended(const struct calib_ctx *ctx, const struct mo_cfg *cfg,
			  json_object *out, double *ns_med, double *r_store, double *r_cas)
{
	double ns[CALIB_MO__COUNT][MO_MAX_REPS];
	uint64_t per[CALIB_MO__COUNT], final;
	struct calib_stats st;
	cpu_set_t before;
	int n = 0;

	for (int op = 0; op < CALIB_MO__COUNT; op++)
		per[op] = calib__iters_for(cfg->sample_ns, calib_mo__uncontended(op, 4096, NULL),
					   1024, 1 << 24);
	sched_getaffinity(0, sizeof(before), &before);
	calib__pin_self(calib__nth_cpu(&ctx->cpus, 0));
	for (; n < cfg->reps && !calib__stopped(ctx); n++)
		for (int op = 0; op < CALIB_MO__COUNT; op++) {
			/* Minimum of three short samples: preemption only adds. */
			ns[op][n] = 0;
			for (int s = 0; s < 3; s++) {
				double v = calib_mo__uncontended(op, per[op], &final);

				if (final != per[op]) {
					sched_setaffinity(0, sizeof(before), &before);
					return -EIO;
				}
				if (s == 0 || v < ns[op][n])
					ns[op][n] = v;
			}
		}
	sched_setaffinity(0, sizeof(before), &before);
	if (n == 0)
		return -EINTR;
	for (int op = 0; op < CALIB_MO__COUNT; op++) {
		calib_stats__compute(&st, ns[op], n);
		ns_med[op] = st.median;
		json_object_object_add(out, calib_mo__name(op), calib_stats__json(&st, CALIB_CV_INSTR, NULL));
	}
	json_object_object_add(out, "ratio_store_seq_cst_release",
			       ratio_fig(ns, CALIB_MO_STORE_SEQ_CST, CALIB_MO_STORE_RELEASE, n,
					 CALIB_CV_INSTR, r_store));
	json_object_object_add(out, "ratio_cas_seq_cst_release",
			       ratio_fig(ns, CALIB_MO_CAS_SEQ_CST, CALIB_MO_CAS_RELEASE, n,
					 CALIB_CV_INSTR, r_cas));
	return 0;
}

static int mo_contended(const struct calib_ctx *ctx, const struct mo_cfg *cfg, int threads,
			json_object *out, double *r_cas, bool *reliable)
{
	double ns[CALIB_MO__COUNT][MO_MAX_REPS], ov[CALIB_MO__COUNT * MO_MAX_REPS], dummy;
	uint64_t per[CALIB_MO__COUNT];
	struct calib_mo_result r;
	struct calib_stats st;
	int n = 0, nov = 0, err;

	for (int op = 0; op < CALIB_MO__COUNT; op++) {
		if ((err = calib_mo__contended(&ctx->cpus, threads, op, 10000, &r)))
			return err;
		per[op] = calib__iters_for(cfg->run_ns, r.ns_per_op, 10000, 1 << 24);
	}
	for (; n < cfg->reps && !calib__stopped(ctx); n++)
		for (int op = 0; op < CALIB_MO__COUNT; op++) {
			if ((err = calib_mo__contended(&ctx->cpus, threads, op, per[op], &r)))
				return err;
			if (calib_mo__is_cas(op) && r.final != (uint64_t)threads * per[op])
				return -EIO;
			ns[op][n] = r.ns_per_op;
			ov[nov++] = r.overlap;
		}
	if (n == 0)
		return -EINTR;
	json_object_object_add(out, "threads", json_object_new_int(threads));
	for (int op = 0; op < CALIB_MO__COUNT; op++) {
		calib_stats__compute(&st, ns[op], n);
		json_object_object_add(out, calib_mo__name(op),
				       calib_stats__json(&st, CALIB_CV_CONTENTION, NULL));
	}
	json_object_object_add(out, "ratio_cas_seq_cst_release",
			       ratio_fig(ns, CALIB_MO_CAS_SEQ_CST, CALIB_MO_CAS_RELEASE, n,
					 CALIB_CV_CONTENTION, r_cas));
	json_object_object_add(out, "ratio_store_seq_cst_release",
			       ratio_fig(ns, CALIB_MO_STORE_SEQ_CST, CALIB_MO_STORE_RELEASE, n,
					 CALIB_CV_CONTENTION, &dummy));
	/* The typical run's overlap: one preempted run shows in the spread. */
	calib_stats__compute(&st, ov, nov);
	json_object_object_add(out, "overlap", json_object_new_double(st.median));
	*reliable = st.median >= CALIB_OVERLAP_OK;
	if (st.median < CALIB_OVERLAP_OK) {
		char w[128];

		snprintf(w, sizeof(w), "threads ran at once only %.0f%% of the time: "
			 "contended figures understate the cost", st.median * 100);
		json_object_object_add(out, "warning", json_object_new_string(w));
	}
	return 0;
}

static int mo_run(const struct calib_ctx *ctx, json_object *result)
{
	struct mo_cfg cfg = ctx->quick ? (struct mo_cfg){ 9, 50e3, 4e6 }
				       : (struct mo_cfg){ 21, 200e3, 20e6 };
	json_object *alone = json_object_new_object(), *shared = json_object_new_array();
	double ns[CALIB_MO__COUNT], r_store = 0, r_cas = 0, r_cas_shared = 0;
	bool shared_ok = false;
	int counts[8], ncounts = 0, err, len;
	char text[512];

	json_object_object_add(result, "uncontended", alone);
	json_object_object_add(result, "contended", shared);
	if ((err = mo_uncontended(ctx, &cfg, alone, ns, &r_store, &r_cas)))
		return err == -EINTR ? 0 : err;
	calib__progress(ctx, 0.3);
	counts[ncounts++] = 2;
	for (int t = 4; !ctx->quick && t <= ctx->ncpus && ncounts < 7; t *= 2)
		counts[ncounts++] = t;
	if (!ctx->quick && ctx->ncpus > counts[ncounts - 1])
		counts[ncounts++] = ctx->ncpus;
	for (int i = 0; i < ncounts && !calib__stopped(ctx); i++) {
		json_object *row = json_object_new_object();
		double r;
		bool ok;

		if ((err = mo_contended(ctx, &cfg, counts[i], row, &r, &ok))) {
			json_object_put(row);
			if (err == -EINTR)
				break;
			return err;
		}
		if (i == 0) {
			r_cas_shared = r;
			shared_ok = ok;
		}
		json_object_array_add(shared, row);
		calib__progress(ctx, 0.3 + 0.7 * (i + 1) / ncounts);
	}

	len = snprintf(text, sizeof(text),
		       "store: release %.2f ns, seq_cst %.2f ns (%.1fx), store+fence %.2f ns",
		       ns[CALIB_MO_STORE_RELEASE], ns[CALIB_MO_STORE_SEQ_CST], r_store,
		       ns[CALIB_MO_STORE_FENCE]);
	len += snprintf(text + len, sizeof(text) - (size_t)len, r_store > MO_NEAR_ONE ?
			": publish with release stores where ordering allows" :
			": seq_cst stores cost no more here");
	len += snprintf(text + len, sizeof(text) - (size_t)len,
			". CAS seq_cst/release: %.2fx alone", r_cas);
	if (r_cas_shared > 0 && shared_ok)
		len += snprintf(text + len, sizeof(text) - (size_t)len, ", %.2fx on a shared line",
				r_cas_shared);
	else if (r_cas_shared > 0)
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				" (shared-line figure unreliable: threads did not run at once)");
	else
		shared_ok = false;
	snprintf(text + len, sizeof(text) - (size_t)len,
		 r_cas > MO_NEAR_ONE || (shared_ok && r_cas_shared > MO_NEAR_ONE) ?
		 ": use release/acq_rel CAS where it is enough" :
		 ": a weaker CAS ordering buys nothing here");
	json_object_object_add(result, "headline", json_object_new_string(text));
	return 0;
}

static void mo_print(const json_object *result, FILE *out)
{
	json_object *alone = NULL, *shared = NULL;
	char a[40], b[40];

	fprintf(out, "  %s\n", calib_json__string(result, "headline", "(no headline)"));
	json_object_object_get_ex(result, "uncontended", &alone);
	json_object_object_get_ex(result, "contended", &shared);
	fprintf(out, "  %-14s %16s", "op (ns/op)", "alone");
	for (size_t i = 0; shared && i < calib_json__len(shared); i++)
		fprintf(out, " %13d thr", (int)calib_json__double(calib_json__at(shared, i),
								 "threads", 0));
	fprintf(out, "\n");
	for (int op = 0; op < CALIB_MO__COUNT; op++) {
		fprintf(out, "  %-14s %16s", calib_mo__name(op),
			calib_json__cell(alone, calib_mo__name(op), "%.2f", a, sizeof(a)));
		for (size_t i = 0; shared && i < calib_json__len(shared); i++)
			fprintf(out, " %17s", calib_json__cell(calib_json__at(shared, i),
							       calib_mo__name(op), "%.2f", b, sizeof(b)));
		fprintf(out, "\n");
	}
}

const struct calib_family calib_memory_order = {
	.key = "memory_order",
	.title = "Memory ordering",
	.quick_seconds = 1,
	.full_seconds = 4,
	.run = mo_run,
	.print = mo_print,
};

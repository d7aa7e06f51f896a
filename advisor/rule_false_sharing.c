// SPDX-License-Identifier: GPL-2.0
/*
 * rule_false_sharing.c: threads writing different data on the same cache
 * line. With a PMU, cache-miss samples land in the code that writes shared
 * data (the caller flags such symbols); this host's padded/unpadded ratio
 * says what padding would gain here, and its measured destructive
 * interference size says how far to pad. Without a PMU nothing here can
 * show cache lines bouncing: the finding then says what cannot be
 * concluded and how to get the evidence, and stays informational.
 */
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* Thresholds (thresholds.h). ADV_FS_MISS_SHARE, ADV_FS_CRIT_SHARE,
 * ADV_FS_CRIT_RATIO: a flagged symbol with a tenth of the cache-miss samples
 * is a hot spot worth padding (warning); with 40% of them, and padding
 * measured here to at least halve the cost, it dominates the target's misses
 * (critical). */
/* ADV_FS_TIME_SHARE: cpu-clock samples cannot show misses, but a tenth of
 * the on-CPU time in code known to write shared data is worth naming. */

/* Events that count cache misses or coherence traffic, as opposed to time
 * (cpu-clock, task-clock) or work (cycles, instructions). */
static bool miss_event(const char *ev)
{
	return strstr(ev, "miss") || strstr(ev, "hitm") || strstr(ev, "c2c");
}

static const struct adv_sample_sym *flagged(const struct adv_samples *s, double *share)
{
	for (size_t i = 0; s->top && i < s->ntop; i++)
		/* Runtime code (a glibc mutex's atomics) is not the user's to pad. */
		if (s->top[i].writes_shared && !s->top[i].runtime) {
			*share = s->total ? (double)s->top[i].count / (double)s->total : 0;
			return &s->top[i];
		}
	*share = 0;
	return NULL;
}

static void host_evidence(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;

	if (!adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING))
		return;
	adv_finding__evidence(f, ADV_SRC_HOST, "unpadded/padded here", "%s at 2 threads",
			      adv_fmt_ratio(fs->ratio_2t).s);
	/* 0: the calibration could not settle on a size (noise, or threads
	 * that never ran at once). */
	if (fs->interference_bytes)
		adv_finding__evidence(f, ADV_SRC_HOST, "destructive interference", "%s (cache line %s per sysfs)",
				      adv_fmt_bytes(fs->interference_bytes).s,
				      adv_fmt_bytes(fs->cache_line_bytes).s);
	else
		adv_finding__evidence(f, ADV_SRC_HOST, "destructive interference",
				      "not determined (cache line %s per sysfs)",
				      adv_fmt_bytes(fs->cache_line_bytes).s);
	if (!fs->concurrent)
		adv_finding__evidence(f, ADV_SRC_HOST, "calibration caveat",
				      "its threads did not run at once: the ratio may understate the cost");
}

static void recommend_padding(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;
	unsigned n = adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING) ? fs->interference_bytes : 0;

	if (n)
		adv_finding__recommend(f, "Pad data that different threads write to %u bytes, this host's measured destructive interference size: `struct { _Alignas(%u) long v; }` in C, alignas(%u) in C++.",
				       n, n, n);
	else
		adv_finding__recommend(f, "Pad data that different threads write to its own lines: 128 bytes covers the adjacent-line prefetch of current x86 and most AArch64 cores (`_Alignas(128)` in C, alignas(128) in C++), but this host's interference size is not measured.");
	if (ctx->p->target.is_jvm)
		adv_finding__recommend(f, "JVM: @jdk.internal.vm.annotation.Contended on the written fields (needs -XX:-RestrictContended outside the JDK) with -XX:ContendedPaddingWidth=%u, or LongAdder for counters.",
				       n ? n : 128);
}

static bool with_pmu(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_samples *s = &ctx->p->samples;
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;
	bool host = adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING);
	const struct adv_sample_sym *sym;
	double share;

	sym = flagged(s, &share);	/* there, and share >= ADV_FS_MISS_SHARE: the gate */
	adv_finding__init(f, share >= ADV_FS_CRIT_SHARE && host && fs->ratio_2t >= ADV_FS_CRIT_RATIO ?
			  ADV_CRITICAL : ADV_WARNING,
			  "False sharing: %s of %s samples in %.80s, which writes shared data",
			  adv_fmt_pct(share).s, s->event, sym->symbol);
	adv_finding__evidence(f, ADV_SRC_TARGET, "cache-miss hot spot", "%.100s: %s of %s %s samples",
			      sym->symbol, adv_fmt_pct(share).s, adv_fmt_count((double)s->total).s, s->event);
	adv_finding__evidence(f, ADV_SRC_TARGET, "busy threads", "%.0f on a CPU at least %s of the time",
			      ctx->m.busy, adv_fmt_pct(ADV_BUSY_SHARE).s);
	host_evidence(ctx, f);
	recommend_padding(ctx, f);
	adv_finding__recommend(f, "`perf c2c record -p %d` then `perf c2c report` names the exact cache lines and the code that writes them.",
			       ctx->p->target.pid);
	/* Misses in code that writes shared data are strong but indirect:
	 * they could be true sharing. */
	f->confidence = (0.5 + 0.4 * (share >= ADV_FS_CRIT_SHARE ? 1 : share / ADV_FS_CRIT_SHARE)) *
			(host && !fs->concurrent ? 0.8 : 1.0) *
			adv_cal__note(f, ctx->h, ADV_FAM_FALSE_SHARING, 0.3);
	return true;
}

static bool without_pmu(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_samples *s = &ctx->p->samples;
	const struct adv_sample_sym *sym = NULL;
	double share = 0;

	if (s->available)
		sym = flagged(s, &share);
	if (sym && share < ADV_FS_TIME_SHARE)
		sym = NULL;
	if (sym)
		adv_finding__init(f, ADV_INFO, "False sharing possible: %s of on-CPU time in %.80s, which writes shared data; no PMU to confirm",
				  adv_fmt_pct(share).s, sym->symbol);
	else
		adv_finding__init(f, ADV_INFO, "False sharing can be neither confirmed nor ruled out: no cache-miss samples");
	if (s->available)
		adv_finding__evidence(f, ADV_SRC_TARGET, "samples", "%s counts time, not cache misses",
				      s->event[0] ? s->event : "this event");
	else
		adv_finding__evidence(f, ADV_SRC_TARGET, "cache-miss samples", "not available: %.120s",
				      s->reason[0] ? s->reason : "no PMU");
	adv_finding__evidence(f, ADV_SRC_TARGET, "busy threads", "%.0f on a CPU at least %s of the time",
			      ctx->m.busy, adv_fmt_pct(ADV_BUSY_SHARE).s);
	if (sym)
		adv_finding__evidence(f, ADV_SRC_TARGET, "on-CPU time", "%.100s: %s of %s %s samples",
				      sym->symbol, adv_fmt_pct(share).s,
				      adv_fmt_count((double)s->total).s, s->event);
	host_evidence(ctx, f);
	adv_finding__recommend(f, "Without hardware cache events it cannot be seen here whether threads bounce cache lines. On bare metal with a PMU, `perf c2c record -p %d` then `perf c2c report` shows contended lines (HITM) and the code writing them; `spinscope -p %d --event cache-misses` there points at the hot code.",
			       ctx->p->target.pid, ctx->p->target.pid);
	recommend_padding(ctx, f);
	/* Busy threads only make false sharing possible; time spent in code
	 * that writes shared data makes it plausible. */
	f->confidence = (sym ? 0.35 : 0.2) * adv_cal__note(f, ctx->h, ADV_FAM_FALSE_SHARING, 0.3);
	return true;
}

/* With cache-miss samples: a flagged symbol with enough of them. Without:
 * false sharing needs two threads writing at the same time. On a busy host
 * a thread runnable nearly all the time would be busy without the other
 * processes: the possibility is the target's, not theirs. */
bool adv_gate_false_sharing(const struct adv_ctx *ctx)
{
	const struct adv_samples *s = &ctx->p->samples;
	double share;

	if (s->available && miss_event(s->event))
		return flagged(s, &share) && share >= ADV_FS_MISS_SHARE;
	return ctx->m.busy >= 2 || (ctx->m.host_busy && ctx->m.saturated >= 2);
}

bool adv_rule_false_sharing(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_samples *s = &ctx->p->samples;

	if (!adv_gate_false_sharing(ctx))
		return false;
	if (s->available && miss_event(s->event))
		return with_pmu(ctx, f);
	return without_pmu(ctx, f);
}

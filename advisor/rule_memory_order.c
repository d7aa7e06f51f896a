// SPDX-License-Identifier: GPL-2.0
/*
 * rule_memory_order.c: hot spots that execute full fences or seq_cst
 * atomics, against what those cost here compared with release ordering.
 * Where an algorithm only publishes data (a flag, a pointer, a healed
 * reference), release ordering is enough and cheaper. The evidence is
 * indirect (samples in code, not a count of fences), so the finding is
 * informational unless the possible saving is large.
 */
#include <math.h>
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* Thresholds (thresholds.h). ADV_FENCE_MIN_SHARE: fence-heavy code under 5%
 * of on-CPU samples cannot save more than 5%: not worth a finding. */
/* ADV_FENCE_WARN_SAVING: share of on-CPU time release ordering could save at
 * most (hot share x the cost saved per operation here): a tenth is a
 * warning. */

/* The hottest fence spot of the target's own code, and in *total the share
 * of all of them (at most 1). */
static const struct adv_fence_spot *top_fence(const struct adv_profile *p, double *total)
{
	const struct adv_fence_spot *top = NULL;

	*total = 0;
	for (size_t i = 0; p->fences && i < p->nfences; i++) {
		/* Fences inside libc or the JVM (a mutex's unlock, a GC barrier)
		 * are not the user's to reorder: never the subject here. */
		if (p->fences[i].runtime)
			continue;
		*total += p->fences[i].share;
		if (!top || p->fences[i].share > top->share)
			top = &p->fences[i];
	}
	*total = fmin(*total, 1.0);
	return top;
}

bool adv_gate_memory_order(const struct adv_ctx *ctx)
{
	double total;

	return top_fence(ctx->p, &total) && total >= ADV_FENCE_MIN_SHARE;
}

bool adv_rule_memory_order(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_profile *p = ctx->p;
	const struct adv_host_memory_order *mo = &ctx->h->memory_order;
	bool host = adv_cal__usable(ctx->h, ADV_FAM_MEMORY_ORDER);
	const struct adv_fence_spot *top;
	double total = 0, store_saving = 0, cas_saving = 0, saving = 0;

	if (!adv_gate_memory_order(ctx))
		return false;
	top = top_fence(p, &total);
	if (host) {
		double full = fmax(mo->seq_cst_store_ns, mo->store_fence_ns);

		if (full > 0)
			store_saving = fmax(0, 1 - mo->release_store_ns / full);
		if (mo->cas_seq_cst_ns > 0)
			cas_saving = fmax(0, 1 - mo->cas_release_ns / mo->cas_seq_cst_ns);
		saving = total * fmax(store_saving, cas_saving);
	}
	adv_finding__init(f, saving >= ADV_FENCE_WARN_SAVING ? ADV_WARNING : ADV_INFO,
			  "Memory ordering: %s of on-CPU time in fence-heavy code (%.80s)",
			  adv_fmt_pct(total).s, top->symbol);
	adv_finding__evidence(f, ADV_SRC_TARGET, "fence-heavy hot spot", "%.100s: %s of on-CPU samples",
			      top->symbol, adv_fmt_pct(top->share).s);
	if (p->nfences > 1)
		adv_finding__evidence(f, ADV_SRC_TARGET, "all such spots", "%s of on-CPU samples in the user's code",
				      adv_fmt_pct(total).s);
	if (host) {
		adv_finding__evidence(f, ADV_SRC_HOST, "stores", "release %s, seq_cst %s, store+fence %s, relaxed %s",
				      adv_fmt_ns(mo->release_store_ns).s, adv_fmt_ns(mo->seq_cst_store_ns).s,
				      adv_fmt_ns(mo->store_fence_ns).s, adv_fmt_ns(mo->relaxed_store_ns).s);
		adv_finding__evidence(f, ADV_SRC_HOST, "CAS", "seq_cst %s, release %s",
				      adv_fmt_ns(mo->cas_seq_cst_ns).s, adv_fmt_ns(mo->cas_release_ns).s);
		adv_finding__evidence(f, ADV_SRC_TARGET, "possible saving", "up to %s of on-CPU time",
				      adv_fmt_pct(saving).s);
	}
	adv_finding__recommend(f, "Use release ordering where %.80s only publishes data (a flag, a pointer): atomic_store_explicit(..., memory_order_release) and release (or acq_rel) compare-exchange instead of seq_cst or a full fence.",
			       top->symbol);
	if (host && cas_saving < 0.1 && store_saving >= 0.1)
		adv_finding__evidence(f, ADV_SRC_HOST, "CAS ordering", "costs the same whatever its ordering here (a locked instruction is a full barrier): only the stores gain");
	if (p->target.is_jvm)
		adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "VarHandle setRelease and compareAndExchangeRelease instead of volatile writes and compareAndSet");
	/* Samples in fence-heavy code do not prove the fences are the cost. */
	f->confidence = (top->share >= 0.2 ? 0.6 : 0.4) * adv_cal__note(f, ctx->h, ADV_FAM_MEMORY_ORDER, 0.5);
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * advisor.c: the driver. Derives the shared figures and the spin-vs-park
 * correlation once, runs every rule, and ranks what they found: most severe
 * first, then most confident, then in the rules' table order so that the
 * output is stable.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "hostcal.h"
#include "rules.h"

/*
 * gate: the rule's first test, for the rules whose findings rest on a
 * calibration family; NULL for the others, and for numa-placement: only
 * its warnings ask for the numa family, and without that family measured
 * it reports at ADV_INFO, so there is nothing to measure before it runs.
 */
static const struct {
	const char *id;
	bool (*run)(const struct adv_ctx *ctx, struct adv_finding *f);
	bool (*gate)(const struct adv_ctx *ctx);
} rules[] = {
	{ "spin-yield", adv_rule_spin_yield, adv_gate_spin_yield },
	{ "spin-loop", adv_rule_spin_loop, NULL },
	{ "futex-contention", adv_rule_futex_contention, adv_gate_futex_contention },
	{ "parked-lock", adv_rule_parked_lock, NULL },
	{ "blocking-under-lock", adv_rule_lock_blocking, NULL },
	{ "wake-herd", adv_rule_wake_herd, NULL },
	{ "barrier-imbalance", adv_rule_barrier, NULL },
	{ "serialization", adv_rule_serialization, NULL },
	{ "oversubscription", adv_rule_oversubscription, adv_gate_oversubscription },
	{ "false-sharing", adv_rule_false_sharing, adv_gate_false_sharing },
	{ "true-sharing", adv_rule_true_sharing, NULL },
	{ "spin-hint", adv_rule_spin_hint, adv_gate_spin_hint },
	{ "numa-placement", adv_rule_numa_placement, NULL },
	{ "memory-order", adv_rule_memory_order, adv_gate_memory_order },
	{ "jvm-runtime", adv_rule_jvm, NULL },
	{ "host-busy", adv_rule_host_busy, NULL },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))
_Static_assert(NRULES <= ADV_MAX_FINDINGS, "one finding per rule must fit the report");

/* Insertion sort: a handful of findings, and it keeps equal ones in table
 * order (qsort is not stable). */
static void rank(struct adv_report *r)
{
	for (size_t i = 1; i < r->n; i++) {
		struct adv_finding f = r->findings[i];
		size_t j = i;

		while (j > 0 && (r->findings[j - 1].severity < f.severity ||
				 (r->findings[j - 1].severity == f.severity &&
				  r->findings[j - 1].confidence < f.confidence))) {
			r->findings[j] = r->findings[j - 1];
			j--;
		}
		r->findings[j] = f;
	}
}

/* What every rule sees: the inputs and the figures derived from them. */
static void ctx_init(struct adv_ctx *ctx, const struct adv_profile *p, const struct adv_host *h)
{
	ctx->p = p;
	ctx->h = h;
	adv_metrics__compute(p, adv_cal__futex_call_ns(h), &ctx->m);
	adv_breakeven__compute(ctx, &ctx->be);
}

size_t advisor__will_find(const struct adv_profile *p, const struct adv_host *h,
			  const char *ids[], size_t max)
{
	struct adv_ctx ctx;
	size_t n = 0;

	if (!p || !h || !p->duration_ns)
		return 0;
	ctx_init(&ctx, p, h);
	for (size_t i = 0; i < NRULES && n < max; i++)
		if (rules[i].gate && rules[i].gate(&ctx))
			ids[n++] = rules[i].id;
	return n;
}

int advisor__run(const struct adv_profile *p, const struct adv_host *h, struct adv_report *out)
{
	struct adv_ctx ctx;

	if (!p || !h || !out || !p->duration_ns)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ctx_init(&ctx, p, h);
	out->breakeven = ctx.be;
	for (size_t i = 0; i < NRULES; i++) {
		struct adv_finding *f = &out->findings[out->n];

		memset(f, 0, sizeof(*f));
		if (!rules[i].run(&ctx, f))
			continue;
		snprintf(f->id, sizeof(f->id), "%s", rules[i].id);
		f->confidence = adv_clamp01(f->confidence);
		/* false-sharing's text is rewritten on its own branch (issue
		 * 31): bounded once that lands. */
		if (strcmp(f->id, "false-sharing"))
			adv_finding__bound(f);
		adv_verdict__fill(&ctx, f);
		out->n++;
	}
	rank(out);
	return 0;
}

const char *advisor__severity_name(enum adv_severity s)
{
	switch (s) {
	case ADV_INFO: return "info";
	case ADV_WARNING: return "warning";
	case ADV_CRITICAL: return "critical";
	}
	return "unknown";
}

const char *advisor__source_name(enum adv_source s)
{
	return s == ADV_SRC_HOST ? "host" : "target";
}

const struct adv_finding *advisor__find(const struct adv_report *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->findings[i].id, id))
			return &r->findings[i];
	return NULL;
}

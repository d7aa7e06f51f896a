/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every rule sees (the inputs, the derived figures and the spin-vs-park
 * correlation) and the rules themselves, one file each (rule_<id>.c). A rule
 * fills *f and returns true when it has something to say, false otherwise;
 * f arrives zeroed.
 */
#ifndef SPINSCOPE_ADV_RULES_H
#define SPINSCOPE_ADV_RULES_H

#include <stdbool.h>
#include "advisor.h"
#include "metrics.h"

struct adv_ctx {
	const struct adv_profile *p;
	const struct adv_host *h;
	struct adv_metrics m;
	struct adv_breakeven be;
};

/* correlate.c: the spin-vs-park break-even, from ctx->p, ->h and ->m. */
void adv_breakeven__compute(const struct adv_ctx *ctx, struct adv_breakeven *be);

/* A rule's gate: whether it reports a finding (its first test, which uses
 * ctx's figures, never a finding); the rules that a calibration family
 * serves have one, for advisor__will_find(). */
bool adv_gate_spin_yield(const struct adv_ctx *ctx);
bool adv_gate_futex_contention(const struct adv_ctx *ctx);
bool adv_gate_oversubscription(const struct adv_ctx *ctx);
bool adv_gate_false_sharing(const struct adv_ctx *ctx);
bool adv_gate_spin_hint(const struct adv_ctx *ctx);
bool adv_gate_memory_order(const struct adv_ctx *ctx);

bool adv_rule_spin_yield(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_futex_contention(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_false_sharing(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_true_sharing(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_spin_hint(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_numa_placement(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_memory_order(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_oversubscription(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_spin_loop(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_host_busy(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_jvm(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_wake_herd(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_barrier(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_lock_blocking(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_serialization(const struct adv_ctx *ctx, struct adv_finding *f);
bool adv_rule_parked_lock(const struct adv_ctx *ctx, struct adv_finding *f);

/* verdict.c: fills f->what, ->where and ->cost once the rule has built f. */
void adv_verdict__fill(const struct adv_ctx *ctx, struct adv_finding *f);

/* Confidence clamped to 0..1. */
static inline double adv_clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * rule_spin_hint.c: the instruction a spin loop executes while it waits.
 * Its cost decides how long "N spins" lasts, and it differs several-fold
 * between CPUs: PAUSE takes about ten times longer on Intel cores since
 * Skylake than on earlier ones, and on AArch64 SB (where present) is
 * cheaper than ISB, while YIELD is a NOP on most cores. The rule names the
 * cheapest hint fit for spinning on this host, turns the spin budget (one
 * futex handoff) into a count, and links it to the target's spinning code.
 * Informational: the hint is a tuning step, not the cause of an incident.
 */
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* ADV_GLIBC_SPIN_DEFAULT (thresholds.h): glibc's default
 * glibc.pthread.mutex_spin_count, the spin count most C
 * code on Linux inherits without anyone having tuned it for this CPU. */

static const struct adv_hint *hint_named(const struct adv_host *h, const char *name)
{
	for (size_t i = 0; i < h->spin_hint.nhints && i < ADV_MAX_HINTS; i++)
		if (!strcmp(h->spin_hint.hints[i].name, name) && h->spin_hint.hints[i].available)
			return &h->spin_hint.hints[i];
	return NULL;
}

/* "sb 6.9 ns, isb 11.9 ns, yield 0.4 ns": every hint this CPU has. */
static void hint_list(const struct adv_host *h, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < h->spin_hint.nhints && i < ADV_MAX_HINTS; i++) {
		const struct adv_hint *x = &h->spin_hint.hints[i];
		int n;

		if (!x->available)
			continue;
		n = snprintf(buf + len, size - len, "%s%s %s", len ? ", " : "", x->name,
			     adv_fmt_ns(x->ns).s);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += n;
	}
}

static void target_evidence(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;

	if (m->top_site)
		adv_finding__evidence(f, ADV_SRC_TARGET, "spinning code", "%.100s (yields there: %s)",
				      m->top_site->frame, adv_fmt_count((double)m->top_site->count).s);
	if (m->spinners > 0)
		adv_finding__evidence(f, ADV_SRC_TARGET, "yield-spinning threads", "%.0f", m->spinners);
	if (m->spin_loop)
		adv_finding__evidence(f, ADV_SRC_TARGET, "spin loop", "%.100s, with %s",
				      m->spin_loop->symbol, m->spin_loop->hint);
	if (ctx->be.side == ADV_SIDE_SPIN)
		adv_finding__evidence(f, ADV_SRC_TARGET, "lock waits", "median %s: short enough to spin through",
				      adv_fmt_ns(ctx->be.wait_median_ns).s);
}

static void recommend_x86(const struct adv_ctx *ctx, struct adv_finding *f, const struct adv_hint *hint)
{
	adv_finding__evidence(f, ADV_SRC_HOST, "glibc's default spin", "%.0f x %s = %s",
			      ADV_GLIBC_SPIN_DEFAULT, hint->name,
			      adv_fmt_ns(ADV_GLIBC_SPIN_DEFAULT * hint->ns).s);
	adv_finding__recommend(f, "Size spins in time, not iterations: PAUSE costs %s here and about tenfold more or less on other x86 generations.",
			       adv_fmt_ns(hint->ns).s);
}

static void recommend_arm(const struct adv_ctx *ctx, struct adv_finding *f, const struct adv_hint *hint)
{
	const struct adv_hint *isb = hint_named(ctx->h, "isb");
	bool jvm = ctx->p->target.is_jvm;

	if (!strcmp(hint->name, "sb")) {
		if (isb)
			adv_finding__evidence(f, ADV_SRC_HOST, "SB vs ISB", "%s vs %s: ISB costs %s SB",
					      adv_fmt_ns(hint->ns).s, adv_fmt_ns(isb->ns).s,
					      adv_fmt_ratio(isb->ns / hint->ns).s);
		adv_finding__recommend(f, "Spin with SB on this CPU (check getauxval(AT_HWCAP) & HWCAP_SB, fall back to ISB elsewhere); YIELD is a NOP on most cores and does not back off.");
		if (jvm)
			adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "-XX:+UnlockDiagnosticVMOptions -XX:OnSpinWaitInst=sb on JDKs that accept sb (older ones: isb)");
	} else {
		adv_finding__recommend(f, "Spin with ISB on this CPU (SB is %s); YIELD is a NOP on most cores and does not back off.",
				       hint_named(ctx->h, "sb") ? "dearer here" : "absent");
		if (jvm)
			adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "-XX:+UnlockDiagnosticVMOptions -XX:OnSpinWaitInst=isb");
	}
}

bool adv_gate_spin_hint(const struct adv_ctx *ctx)
{
	return ctx->m.spinners > 0 || ctx->m.spin_loop || ctx->be.side == ADV_SIDE_SPIN;
}

bool adv_rule_spin_hint(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_breakeven *be = &ctx->be;
	const struct adv_hint *hint;
	char list[ADV_VALUE_LEN];
	double conf;

	if (!adv_gate_spin_hint(ctx))
		return false;
	hint = adv_cal__hint(ctx->h);
	/* The target surely spins when it yields; a lock whose waits are short
	 * enough to spin through only should. */
	conf = ctx->m.spinners > 0 || ctx->m.spin_loop ? 0.7 : 0.5;
	if (!hint) {
		bool measured = adv_cal__usable(ctx->h, ADV_FAM_SPIN_HINT);

		adv_finding__init(f, ADV_INFO, measured ?
				  "Spin-wait hint: no hint on this CPU backs off in a spin loop" :
				  "Spin-wait hint: costs not measured on this host, so spin counts cannot be sized");
		target_evidence(ctx, f);
		if (measured) {
			hint_list(ctx->h, list, sizeof(list));
			adv_finding__evidence(f, ADV_SRC_HOST, "hints here", "%s", list[0] ? list : "none available");
			adv_finding__recommend(f, "No hint on this CPU backs off in a spin loop: keep spins short and park early.");
		}
		f->confidence = conf * adv_cal__note(f, ctx->h, ADV_FAM_SPIN_HINT, 0.7);
		return true;
	}
	adv_finding__init(f, ADV_INFO, "Spin-wait hint: %s at %s is the cheapest fit hint here",
			  hint->name, adv_fmt_ns(hint->ns).s);
	target_evidence(ctx, f);
	hint_list(ctx->h, list, sizeof(list));
	adv_finding__evidence(f, ADV_SRC_HOST, "hints here", "%s", list);
	if (!strcmp(hint->name, "pause"))
		recommend_x86(ctx, f, hint);
	else
		recommend_arm(ctx, f, hint);
	if (be->handoff_ns > 0) {
		int32_t n = be->spin_n >= 0 && be->side == ADV_SIDE_SPIN ? be->spin_n : -1;

		adv_finding__evidence(f, ADV_SRC_HOST, "spin budget", "one futex handoff, %s = %.0f x %s",
				      adv_fmt_ns(be->handoff_ns).s, be->handoff_ns / hint->ns, hint->name);
		if (n >= 0)
			adv_finding__recommend(f, "Spin at most %s iterations of %s before parking (one futex handoff's worth here).",
					       adv_fmt_spins(n).s, hint->name);
		else
			adv_finding__recommend(f, "A spin longer than %.0f x %s (%s) costs more than parking would here.",
					       be->handoff_ns / hint->ns, hint->name, adv_fmt_ns(be->handoff_ns).s);
	}
	f->confidence = conf * adv_cal__note(f, ctx->h, ADV_FAM_SPIN_HINT | ADV_FAM_HOST_COSTS, 0.3);
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rule_spin_loop.c: threads that wait by spinning in a loop of their own,
 * with a spin-wait hint (PAUSE, ISB, SB, YIELD, WFE) and no system call.
 * Nothing of that reaches the tracepoints: the evidence is where the
 * samples land (the bridge finds the hint in the sampled code). A spin
 * that outlasts a futex handoff costs more than parking would; with more
 * threads than CPUs it spins against a lock holder that is not even
 * running.
 */
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* The calibrated cost of the hint the loop uses; NULL when not measured. */
static const struct adv_hint *loop_hint(const struct adv_ctx *ctx, const char *name)
{
	const struct adv_host_spin_hint *sh = &ctx->h->spin_hint;

	if (!adv_cal__usable(ctx->h, ADV_FAM_SPIN_HINT))
		return NULL;
	for (size_t i = 0; i < sh->nhints && i < ADV_MAX_HINTS; i++)
		if (!strcmp(sh->hints[i].name, name) && sh->hints[i].available && sh->hints[i].ns > 0)
			return &sh->hints[i];
	return NULL;
}

static void evidence(const struct adv_ctx *ctx, struct adv_finding *f, bool crowded)
{
	const struct adv_metrics *m = &ctx->m;
	const struct adv_spin_loop *l = m->spin_loop;
	const struct adv_hint *hint = loop_hint(ctx, l->hint);
	struct adv_lock_choice c;
	bool lock = adv_cal__lock_choice(ctx->h, adv_metrics__heavy(m), &c);

	adv_finding__evidence(f, ADV_SRC_TARGET, "spinning function", "%.120s%s", l->symbol,
			      l->runtime ? " (in the runtime)" : "");
	adv_finding__evidence(f, ADV_SRC_TARGET, "spin-wait hint", "%s in the sampled loop", l->hint);
	adv_finding__evidence(f, ADV_SRC_TARGET, "samples in the loop", "%s of %s %s samples",
			      adv_fmt_pct(m->spin_loop_share).s, adv_fmt_count((double)ctx->p->samples.total).s,
			      ctx->p->samples.event);
	adv_finding__evidence(f, ADV_SRC_TARGET, "CPU spent spinning", "about %.2f CPUs of %u",
			      m->spin_loop_share * m->cpu_used, m->ncpus);
	adv_finding__evidence(f, ADV_SRC_TARGET, "threads and CPUs", "%.0f runnable most of the time on %u CPU%s%s",
			      m->runnable, m->ncpus, m->ncpus == 1 ? "" : "s",
			      crowded ? ": spinners outnumber the CPUs" : "");
	if (hint)
		adv_finding__evidence(f, ADV_SRC_HOST, "hint cost", "%s per %s here", adv_fmt_ns(hint->ns).s,
				      hint->name);
	if (ctx->be.handoff_ns > 0)
		adv_finding__evidence(f, ADV_SRC_HOST, "futex handoff", "%s: spinning longer than that costs more than parking",
				      adv_fmt_ns(ctx->be.handoff_ns).s);
	if (lock && c.states == ADV_LOCK_STATES_DIFFER)
		adv_finding__evidence(f, ADV_SRC_HOST, "best lock strategy here",
				      "depends on the CPUs' distance: %.24s, N=%s with CPUs %s apart; %.24s, N=%s with CPUs %s apart (spin-threshold sweep)",
				      c.near->best.strategy, adv_fmt_spins(c.near->best.n).s,
				      adv_fmt_ns(c.near->round_trip_ns).s, c.far->best.strategy,
				      adv_fmt_spins(c.far->best.n).s, adv_fmt_ns(c.far->round_trip_ns).s);
	else if (lock)
		adv_finding__evidence(f, ADV_SRC_HOST, "best lock strategy here", "%.24s, N=%s (spin-threshold sweep%s)",
				      c.strategy, adv_fmt_spins(c.n).s,
				      c.states == ADV_LOCK_STATES_AGREE ? ", good in both CPU-distance states" : "");
}

static void recommend(const struct adv_ctx *ctx, struct adv_finding *f, bool crowded)
{
	const struct adv_spin_loop *l = ctx->m.spin_loop;
	const struct adv_hint *hint = loop_hint(ctx, l->hint);
	double handoff = ctx->be.handoff_ns;

	if (l->runtime)
		adv_finding__recommend(f, "Wait less often in %.80s from the program's own code: the loop is in the runtime, not code to change.",
				       l->symbol);
	else if (hint && handoff > 0)
		adv_finding__recommend(f, "Bound the spin in %.80s to %.0f x %s (one futex handoff, %s here), then block (futex, mutex or condition variable) so that the thread it waits for gets the CPU.",
				       l->symbol, handoff / hint->ns, hint->name, adv_fmt_ns(handoff).s);
	else
		adv_finding__recommend(f, "Bound the spin in %.80s to about one futex handoff, then block (futex, mutex or condition variable) so that the thread it waits for gets the CPU.",
				       l->symbol);
	if (crowded)
		adv_finding__recommend(f, "With more spinners than CPUs, spin briefly at most, or not at all.");
	if (crowded)
		adv_finding__evidence(f, ADV_SRC_TARGET, "crowded", "more spinning threads than CPUs: a spinner often spins while the thread it waits for is preempted");
	if (ctx->p->target.is_jvm)
		adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "Thread.onSpinWait() loops belong in java.util.concurrent; prefer its locks, which park after a short spin");
}

bool adv_rule_spin_loop(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;
	bool crowded = m->runnable > m->ncpus;
	double spin_cpu;

	if (!m->spin_loop)
		return false;
	spin_cpu = m->spin_loop_share * m->cpu_used;
	adv_finding__init(f, crowded && spin_cpu >= ADV_SPIN_CPU_CRITICAL * m->ncpus ? ADV_CRITICAL : ADV_WARNING,
			  "Spin loop: %s of the samples in %.80s, spinning on %s without a system call",
			  adv_fmt_pct(m->spin_loop_share).s, m->spin_loop->symbol, m->spin_loop->hint);
	evidence(ctx, f, crowded);
	recommend(ctx, f, crowded);
	/* The hint in the hot loop is direct evidence of waiting; what the
	 * samples cannot say is whether the wait is short by design. */
	f->confidence = (m->spin_loop_share >= 0.8 ? 0.85 : 0.7) *
			adv_cal__note(f, ctx->h, ADV_FAM_SPIN_HINT | ADV_FAM_HOST_COSTS, 0.2);
	return true;
}

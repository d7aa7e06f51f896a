// SPDX-License-Identifier: GPL-2.0
/*
 * rule_wake_herd.c: a thundering herd. A word woken with broadcasts (each
 * wake woke several waiters) whose woken threads mostly waited again before
 * they had run (SS_REBLOCK_NS): they were woken for work one of them took.
 * Each such wake-up costs a switch in and out per woken thread, and they
 * then queue on the lock that guards the work (the condition variable's
 * mutex), which is often what shows as contention.
 */
#include <math.h>
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "rules.h"
#include "runtime.h"

bool adv_rule_wake_herd(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;
	const struct adv_futex *worst = NULL;
	struct adv_wakers w = { 0 }, ww;
	double worst_wasted = 0;
	char why[ADV_VALUE_LEN], name[ADV_NAME_LEN];
	struct adv_lock_words lw;
	double share, rate;

	for (size_t i = 0; ctx->p->futexes && i < ctx->p->nfutexes; i++) {
		const struct adv_futex *fx = &ctx->p->futexes[i];

		/* A JVM's own workers (GC, compiler) wait in libjvm: its
		 * rule speaks of them, never as code the user can change. */
		if (ctx->p->target.is_jvm && !fx->user_named)
			continue;
		if (adv_futex_use(fx, why, sizeof(why)) != ADV_WORD_HERD)
			continue;
		adv_futex_wakers(fx, &ww);
		if ((double)fx->reblocked > worst_wasted) {
			worst = fx;
			worst_wasted = (double)fx->reblocked;
			w = ww;
		}
	}
	rate = worst_wasted / m->dur_s;
	if (!worst || worst_wasted < ADV_FUTEX_MIN_WAITS || rate < ADV_FUTEX_MIN_RATE)
		return false;
	share = adv_word_wait_share(worst, m);
	adv_word_name(ctx->p, worst, name, sizeof(name));
	adv_finding__init(f, share >= ADV_HERD_WARN_SHARE ? ADV_WARNING : ADV_INFO,
			  "Thundering herd: each wake of %.90s wakes %.1f threads, %s of which wait again at once",
			  name, w.fanout, adv_fmt_pct(w.reblocked).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "word", "%.140s", name);
	adv_finding__evidence(f, ADV_SRC_TARGET, "wakes", "%s that found waiters, %s waiters woken (%.1f per wake)",
			      adv_fmt_count(w.wakes).s, adv_fmt_count(w.woken).s, w.fanout);
	adv_finding__evidence(f, ADV_SRC_TARGET, "woken for nothing", "%s (%s): waited again within %s of CPU",
			      adv_fmt_count(worst_wasted).s, adv_fmt_rate(rate, "").s,
			      adv_fmt_ns((double)SS_REBLOCK_NS).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "waiters' time on it", "%s of %u waiters' time",
			      adv_fmt_pct(share).s, worst->waiters);
	if (w.top && w.top->comm[0])
		adv_finding__evidence(f, ADV_SRC_TARGET, "woken by", "%u thread%s, most by %u (%s)", w.threads,
				      w.threads == 1 ? "" : "s", w.top->tid, w.top->comm);
	if (m->nhot)
		adv_finding__evidence(f, ADV_SRC_TARGET, "then queue on", "%.120s (see futex-contention)",
				      m->hot[0].fx->name[0] ? m->hot[0].fx->name : "the contended lock");
	adv_word_words(ctx->p, worst, &lw);
	if (lw.herd_fix) {
		adv_finding__recommend(f, "%s", lw.herd_fix);
		adv_finding__recommend(f, "%s", lw.fix);
	} else {
		adv_finding__recommend(f, "Wake one waiter per item: signal instead of broadcast (pthread_cond_signal, notify_one, Condvar::notify_one), or give each consumer its own condition; broadcast only when every waiter has work.");
	}
	f->confidence = adv_clamp01(0.6 + 0.3 * w.reblocked);
	return true;
}

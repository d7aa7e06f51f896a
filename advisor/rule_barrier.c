// SPDX-License-Identifier: GPL-2.0
/*
 * rule_barrier.c: barrier imbalance. A word used in rounds (each wake woke
 * most of its other waiters, made by threads that wait on it too: a
 * barrier, a latch, a join-all) where the waiters spend a large part of
 * their time waiting for the round to end: the work of a round is uneven,
 * and the threads that finish first wait for the last. The last to arrive
 * is the one that wakes the others, so the thread that woke it most is the
 * one they wait for.
 */
#include <math.h>
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "rules.h"

/* The member that computes most: the barrier's members are its wakers
 * (each wakes the others when it arrives last); the one whose CPU time is
 * ADV_BARRIER_WORK_RATIO times the median of the others' is the one they
 * wait for, whoever the scheduler let arrive last. *ratio: that ratio. */
static const struct adv_thread *heaviest_member(const struct adv_profile *p, const struct adv_futex *fx,
						double *ratio)
{
	const struct adv_thread *best = NULL;
	double others[64], t;
	size_t n = 0;

	*ratio = 0;
	for (size_t i = 0; fx->holders && i < fx->nholders; i++)
		for (size_t k = 0; p->threads && k < p->nthreads; k++)
			if (p->threads[k].tid == fx->holders[i].tid &&
			    (!best || p->threads[k].c.oncpu_ns > best->c.oncpu_ns))
				best = &p->threads[k];
	if (!best)
		return NULL;
	for (size_t i = 0; fx->holders && i < fx->nholders && n < 64; i++)
		for (size_t k = 0; p->threads && k < p->nthreads; k++)
			if (p->threads[k].tid == fx->holders[i].tid && &p->threads[k] != best)
				others[n++] = (double)p->threads[k].c.oncpu_ns;
	if (!n)
		return NULL;
	/* the median of the others, by insertion sort: a handful */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && others[j - 1] > others[j]; j--) {
			t = others[j];
			others[j] = others[j - 1];
			others[j - 1] = t;
		}
	t = n % 2 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
	*ratio = (double)best->c.oncpu_ns / fmax(1, t);
	return *ratio >= ADV_BARRIER_WORK_RATIO ? best : NULL;
}

bool adv_rule_barrier(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;
	const struct adv_futex *worst = NULL;
	double worst_share = 0, last_share, work_ratio;
	const struct adv_thread *heavy;
	char why[ADV_VALUE_LEN], name[ADV_NAME_LEN];
	struct adv_wakers w;

	for (size_t i = 0; ctx->p->futexes && i < ctx->p->nfutexes; i++) {
		const struct adv_futex *fx = &ctx->p->futexes[i];
		double share = adv_word_wait_share(fx, m);

		/* A JVM's own workers (GC, compiler) wait in libjvm: its
		 * rule speaks of them, never as code the user can change. */
		if (ctx->p->target.is_jvm && !fx->user_named)
			continue;
		if (fx->blocked < ADV_FUTEX_MIN_WAITS || share <= worst_share ||
		    adv_futex_use(fx, why, sizeof(why)) != ADV_WORD_BARRIER)
			continue;
		worst = fx;
		worst_share = share;
	}
	if (!worst || worst_share < ADV_FUTEX_MIN_SHARE)
		return false;
	adv_futex_wakers(worst, &w);
	adv_word_name(ctx->p, worst, name, sizeof(name));
	last_share = w.top && w.wakes > 0 ? (double)w.top->releases / w.wakes : 0;
	heavy = heaviest_member(ctx->p, worst, &work_ratio);
	if (heavy)
		adv_finding__init(f, worst_share >= ADV_BARRIER_WARN_SHARE ? ADV_WARNING : ADV_INFO,
				  "Barrier imbalance: threads wait %s of their time for thread %u (%s), which computes %s the others' CPU time",
				  adv_fmt_pct(worst_share).s, heavy->tid, heavy->comm,
				  adv_fmt_ratio(work_ratio).s);
	else if (w.top && last_share >= ADV_BARRIER_LAST_SHARE)
		adv_finding__init(f, worst_share >= ADV_BARRIER_WARN_SHARE ? ADV_WARNING : ADV_INFO,
				  "Barrier imbalance: threads wait %s of their time for thread %u (%s), last in %s of rounds",
				  adv_fmt_pct(worst_share).s, w.top->tid, w.top->comm,
				  adv_fmt_pct(last_share).s);
	else
		adv_finding__init(f, worst_share >= ADV_BARRIER_WARN_SHARE ? ADV_WARNING : ADV_INFO,
				  "Barrier waits: threads wait %s of their time at %.100s for the slowest of each round",
				  adv_fmt_pct(worst_share).s, name);
	adv_finding__evidence(f, ADV_SRC_TARGET, "barrier", "%.140s", name);
	adv_finding__evidence(f, ADV_SRC_TARGET, "rounds", "%s (%s), each waking %.1f of its %u waiters",
			      adv_fmt_count(w.wakes).s, adv_fmt_rate(w.wakes / m->dur_s, "").s, w.fanout,
			      worst->waiters);
	adv_finding__evidence(f, ADV_SRC_TARGET, "waiting for the round", "%s of the waiters' time, median wait %s",
			      adv_fmt_pct(worst_share).s,
			      adv_fmt_ns(adv_hist_quantile(worst->hist, SS_HIST_SLOTS, 0.5)).s);
	if (w.top)
		adv_finding__evidence(f, ADV_SRC_TARGET, "last to arrive", "thread %u (%s) in %s of rounds%s",
				      w.top->tid, w.top->comm, adv_fmt_pct(last_share).s,
				      w.top->also_waits ? "" : ", and it never waited itself");
	if (heavy)
		adv_finding__evidence(f, ADV_SRC_TARGET, "heaviest member", "thread %u (%s): on a CPU %s, %s the median of the others",
				      heavy->tid, heavy->comm, adv_fmt_ns((double)heavy->c.oncpu_ns).s,
				      adv_fmt_ratio(work_ratio).s);
	if (heavy || (w.top && last_share >= ADV_BARRIER_LAST_SHARE))
		adv_finding__recommend(f, "Even out the work per round: give thread %u (%s) a smaller share, or split its part so others can take pieces; with uneven work, prefer a work queue to fixed rounds.",
				       heavy ? heavy->tid : w.top->tid, heavy ? heavy->comm : w.top->comm);
	else
		adv_finding__recommend(f, "Even out the work per round, or make rounds longer (more work between barriers) so the wait for the slowest costs less of each.");
	f->confidence = adv_clamp01(0.6 + 0.3 * fmin(1.0, worst_share / ADV_BARRIER_WARN_SHARE) *
				    (heavy || last_share >= ADV_BARRIER_LAST_SHARE ? 1 : 0.5));
	return true;
}

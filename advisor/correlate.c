// SPDX-License-Identifier: GPL-2.0
/*
 * correlate.c: the spin-vs-park break-even, the figure no single tool gives.
 * Three numbers meet here: how long the target spins before it gives up
 * the CPU (yields per switch x the cost of a yield here), what a futex
 * handoff (wake to running) costs on this host, and how long the target's
 * waits on its hottest contended lock really last (median of the wait
 * histogram). A wait shorter than a handoff is cheaper to spin through;
 * a longer one is cheaper to sleep through. Spinning for at most the cost
 * of a handoff, then parking, never costs more than twice the better of
 * the two choices made in hindsight (the classic competitive bound), so
 * the handoff is both the break-even point and the spin budget.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* ADV_SPIN_N_MAX (thresholds.h): glibc.pthread.mutex_spin_count's
 * maximum, and a sane cap for any loop. */

/* The largest 2^k - 1 spins (the shape of the spin-threshold sweep: 0x1F,
 * 0x3F, ...) whose hints fit in budget_ns. */
static int32_t spins_within(double budget_ns, double hint_ns)
{
	double iters = budget_ns / hint_ns;
	int32_t n = 0;

	while (n < ADV_SPIN_N_MAX && 2.0 * n + 1 <= iters)
		n = 2 * n + 1;
	return n;
}

/* "; your yielding threads spin ~35 us (9.0 yields per switch x 3.9 us)
 * before giving up the CPU" when the target's own spin is known. */
static void spin_clause(const struct adv_breakeven *be, char *buf, size_t size)
{
	buf[0] = 0;
	if (!be->spin_ns)
		return;
	adv_strf(buf, size, "; your yielding threads spin ~%s (%.1f yields per switch x %s) before giving up the CPU",
		 adv_fmt_ns(be->spin_ns).s, be->yields_per_switch, adv_fmt_ns(be->yield_ns).s);
}

/*
 * Spins before parking: none, unless this host's sweep found a short spin
 * before parking best at the target's contention level: its verdict, or
 * the one both CPU-distance states share; where they share none, the
 * fewer of the two states' spins when both park (spinning longer than
 * either found best is not advice), else none: the level's overall pick
 * mixes the two states and is no state's verdict.
 */
static int32_t park_spins(const struct adv_lock_choice *c)
{
	if (c->states != ADV_LOCK_STATES_DIFFER)
		return strstr(c->strategy, "park") ? (int32_t)c->n : 0;
	if (!strstr(c->near->best.strategy, "park") || !strstr(c->far->best.strategy, "park"))
		return 0;
	return (int32_t)(c->near->best.n < c->far->best.n ? c->near->best.n : c->far->best.n);
}

static void pick_side(const struct adv_ctx *ctx, struct adv_breakeven *be)
{
	struct adv_lock_choice choice;

	be->side = ADV_SIDE_UNKNOWN;
	be->spin_n = -1;
	if (ctx->m.ncpus == 1 && (be->spins || be->wait_median_ns > 0)) {
		/* Nothing to spin for: the holder cannot run while we do. */
		be->side = ADV_SIDE_PARK;
		be->spin_n = 0;
		return;
	}
	if (be->wait_median_ns > 0 && be->handoff_ns > 0)
		be->side = be->wait_median_ns < be->handoff_ns ? ADV_SIDE_SPIN : ADV_SIDE_PARK;

	if (be->side == ADV_SIDE_SPIN || (be->side == ADV_SIDE_UNKNOWN && be->overspins)) {
		if (be->hint_ns > 0)
			be->spin_n = spins_within(be->handoff_ns, be->hint_ns);
	} else if (be->side == ADV_SIDE_PARK) {
		be->spin_n = adv_cal__lock_choice(ctx->h, adv_metrics__heavy(&ctx->m), &choice) ?
				     park_spins(&choice) : 0;
	}
}

static void summarize(const struct adv_ctx *ctx, struct adv_breakeven *be)
{
	char spin[160];

	spin_clause(be, spin, sizeof(spin));
	switch (be->side) {
	case ADV_SIDE_SPIN:
		if (be->spin_n >= 0)
			adv_strf(be->summary, sizeof(be->summary),
				 "spin at most %s iterations (%s: %s each) before parking: a futex handoff costs %s here and your waits last %s (median)%s",
				 adv_fmt_spins(be->spin_n).s, be->hint, adv_fmt_ns(be->hint_ns).s,
				 adv_fmt_ns(be->handoff_ns).s,
				 adv_fmt_ns(be->wait_median_ns).s, spin);
		else
			adv_strf(be->summary, sizeof(be->summary),
				 "spin for up to a futex handoff (%s here) before parking: your waits last %s (median); no spin-hint cost measured to turn that into a count%s",
				 adv_fmt_ns(be->handoff_ns).s, adv_fmt_ns(be->wait_median_ns).s, spin);
		return;
	case ADV_SIDE_PARK:
		if (ctx->m.ncpus == 1)
			adv_strf(be->summary, sizeof(be->summary),
				 "park at once: with one CPU a spinning thread keeps the lock holder off it%s", spin);
		else
			adv_strf(be->summary, sizeof(be->summary),
				 "park %s%s%s: your waits last %s (median), %s a futex handoff here (%s), so spinning through them only burns CPU%s",
				 be->spin_n > 0 ? "after at most " : "at once",
				 be->spin_n > 0 ? adv_fmt_spins(be->spin_n).s : "",
				 be->spin_n > 0 ? " spins" : "",
				 adv_fmt_ns(be->wait_median_ns).s,
				 adv_fmt_ratio(be->wait_median_ns / be->handoff_ns).s,
				 adv_fmt_ns(be->handoff_ns).s, spin);
		return;
	case ADV_SIDE_UNKNOWN:
		break;
	}
	if (be->spin_ns > 0 && be->handoff_ns > 0) {
		char count[64] = "";

		if (be->overspins && be->spin_n >= 0)
			adv_strf(count, sizeof(count), " (at most %s iterations of %s)",
				 adv_fmt_spins(be->spin_n).s, be->hint);
		adv_strf(be->summary, sizeof(be->summary),
			 "your yielding threads spin ~%s before giving up the CPU, %s a futex handoff here (%s): %s%s",
			 adv_fmt_ns(be->spin_ns).s, adv_fmt_ratio(be->spin_ns / be->handoff_ns).s,
			 adv_fmt_ns(be->handoff_ns).s,
			 be->overspins ? "past the break-even point, park once a handoff's worth of spinning has failed"
				       : "below the break-even point", count);
	}
	else if (!be->spins && ctx->m.nhot && adv_hot_word(&ctx->m.hot[0]))
		adv_strf(be->summary, sizeof(be->summary),
			 "no break-even to place: most waits on the hottest lock returned at once, so its blocked waits measure the scheduler, not the lock (see futex-contention)");
	else if (!be->spins && be->wait_median_ns <= 0)
		adv_strf(be->summary, sizeof(be->summary),
			 "no break-even to place: the target neither spins on sched_yield nor waits on a contended lock");
	else
		adv_strf(be->summary, sizeof(be->summary),
			 "no break-even to place: no futex handoff or yield cost measured on this host");
}

void adv_breakeven__compute(const struct adv_ctx *ctx, struct adv_breakeven *be)
{
	const struct adv_metrics *m = &ctx->m;
	const struct adv_hint *hint = adv_cal__hint(ctx->h);

	memset(be, 0, sizeof(*be));
	be->spins = m->spinners > 0;
	if (be->spins) {
		be->yields_per_switch = m->yields_per_switch;
		be->burst_ns = m->burst_ns;
		be->yield_ns = adv_cal__yield_ns(ctx->h, m->yields_per_switch);
		/* A lower bound: the spins between yields are not counted. The
		 * on-CPU burst (burst_ns) bounds it from above. */
		be->spin_ns = m->yields_per_switch * be->yield_ns;
	}
	be->handoff_ns = adv_cal__handoff_ns(ctx->h, m->ncpus);
	/* A hot lock word's blocked waits measure the scheduler: they place
	 * no break-even (futex-contention says what to do instead). */
	if (m->nhot && !adv_hot_word(&m->hot[0]))
		be->wait_median_ns = m->hot[0].median_ns;
	if (hint) {
		adv_strf(be->hint, sizeof(be->hint), "%s", hint->name);
		be->hint_ns = hint->ns;
	}
	be->overspins = be->spin_ns > 0 && be->handoff_ns > 0 && be->spin_ns > be->handoff_ns;
	pick_side(ctx, be);
	summarize(ctx, be);
}

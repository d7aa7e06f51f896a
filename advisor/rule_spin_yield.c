// SPDX-License-Identifier: GPL-2.0
/*
 * rule_spin_yield.c: threads that wait by calling sched_yield in a loop.
 * Each yield is a system call, and a context switch when anything else is
 * runnable; the thread stays runnable throughout, so it competes with the
 * very thread it waits for. The rule measures how hard they yield and
 * recommends the lock strategy this host's spin-threshold sweep found best
 * at the target's contention level, with the spin-vs-park break-even.
 */
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* Spinners that hold ADV_SPIN_CPU_CRITICAL of the CPUs the target may use
 * turn that much of its capacity into waiting: critical. Below, a warning.
 * Tracing cost above ADV_TRACE_INFLATES of a thread's time inflates what
 * it measured; the finding then says so and is less confident. */

/* Words for the sweep's strategy names (calibration's keys). */
static const char *strategy_words(const char *s)
{
	if (strstr(s, "park"))
		return "N spins, then a futex park";
	if (strstr(s, "repeat"))
		return "(N spins + sched_yield) repeated";
	if (strstr(s, "yield"))
		return "N spins, then a sched_yield loop";
	if (strstr(s, "mutex"))
		return "a plain pthread_mutex";
	if (strstr(s, "spin"))
		return "pure spinning";
	return s;
}

/* "spin_then_park, N=7 with CPUs 62 ns apart (64% of the runs): 8.9M
 * acq/s; any N from 7 to 255 as good there": one state's own verdict. */
static void state_evidence(struct adv_finding *f, const char *label,
			   const struct adv_distance_state *s, const struct adv_distance_state *other)
{
	const struct adv_region *g = &s->region;
	char region[80] = "", when[64];

	if (g->size && !g->separated)
		snprintf(region, sizeof(region), "; the sweep could not separate the strategies there");
	else if (g->n_max > g->n_min)
		snprintf(region, sizeof(region), "; any N from %u to %u as good there", g->n_min, g->n_max);
	/* A state carried from an earlier run has its time; beside one, a
	 * share within the latest run would read as a share of both. */
	if (s->carried_from[0])
		snprintf(when, sizeof(when), "calibrated %s", s->carried_from);
	else if (other->carried_from[0])
		snprintf(when, sizeof(when), "the latest calibration");
	else
		snprintf(when, sizeof(when), "%s of the runs", adv_fmt_pct(s->share).s);
	adv_finding__evidence(f, ADV_SRC_HOST, label, "%.24s, N=%s with CPUs %s apart (%s): %s%s",
			      s->best.strategy, adv_fmt_spins(s->best.n).s, adv_fmt_ns(s->round_trip_ns).s,
			      when, adv_fmt_rate(s->best.throughput, "acq").s, region);
}

/* The sweep's verdict at the target's contention level: the level's own
 * (its region beside it), or what the two CPU-distance states it met share,
 * or that they share nothing, each state's verdict then on its own line. */
static void lock_evidence(const struct adv_ctx *ctx, struct adv_finding *f, bool heavy)
{
	const char *level = heavy ? "heavy" : "light";
	struct adv_lock_choice c;
	char range[96] = "";

	if (!adv_cal__lock_choice(ctx->h, heavy, &c))
		return;
	if (c.states == ADV_LOCK_ONE_VERDICT) {
		adv_finding__evidence(f, ADV_SRC_HOST, "best lock strategy here",
				      "%.24s, N=%s at %s contention: %s, %s a pthread_mutex%s",
				      c.best->strategy, adv_fmt_spins(c.best->n).s, level,
				      adv_fmt_rate(c.best->throughput, "acq").s,
				      adv_fmt_ratio(c.best->mutex_throughput > 0 ?
						    c.best->throughput / c.best->mutex_throughput : 0).s,
				      adv_cal__region_words(ctx->h, heavy, range, sizeof(range)));
		return;
	}
	if (c.states == ADV_LOCK_STATES_AGREE) {
		if (c.n_max > c.n_min)
			snprintf(range, sizeof(range), "; any N from %u to %u in both", c.n_min, c.n_max);
		adv_finding__evidence(f, ADV_SRC_HOST, "best lock strategy here",
				      "%.24s, N=%s at %s contention: within noise of the best in both CPU-distance states measured here%s",
				      c.strategy, adv_fmt_spins(c.n).s, level, range);
	} else {
		adv_finding__evidence(f, ADV_SRC_HOST, "best lock strategy here",
				      "depends on whether the threads' CPUs share a cache: at %s contention no configuration was within noise of the best in both CPU-distance states",
				      level);
	}
	state_evidence(f, "best lock, near state", c.near, c.far);
	state_evidence(f, "best lock, far state", c.far, c.near);
}

static void host_evidence(const struct adv_ctx *ctx, struct adv_finding *f, bool heavy)
{
	const struct adv_breakeven *be = &ctx->be;
	double trace_ns = adv_cal__trace_ns(ctx->h);

	if (be->yield_ns > 0) {
		adv_finding__evidence(f, ADV_SRC_HOST, "sched_yield cost", "%s per call (%s)",
				      adv_fmt_ns(be->yield_ns).s,
				      be->yields_per_switch >= 2 ? "nothing else runnable" : "with a runnable peer");
	{
		/* yields x the calibrated cost can pass the time they ran (a
		 * yield here may cost less than calibrated): a share stays a
		 * share. */
		double in_yield = ctx->m.spin_yields * be->yield_ns /
				  (ctx->m.spin_oncpu_ns > 0 ? ctx->m.spin_oncpu_ns : 1);

		adv_finding__evidence(f, ADV_SRC_TARGET, "time in sched_yield", in_yield >= 1 ?
				      "about all of their on-CPU time (%s yields at the calibrated cost would take longer)" :
				      "at least %s of their on-CPU time",
				      in_yield >= 1 ? adv_fmt_count(ctx->m.spin_yields).s : adv_fmt_pct(in_yield).s);
	}
	}
	if (be->handoff_ns > 0)
		adv_finding__evidence(f, ADV_SRC_HOST, "futex handoff", "%s (wake to running)",
				      adv_fmt_ns(be->handoff_ns).s);
	lock_evidence(ctx, f, heavy);
	if (trace_ns > 0 && ctx->m.spin_rate * trace_ns / 1e9 >= ADV_TRACE_INFLATES)
		adv_finding__evidence(f, ADV_SRC_HOST, "tracing cost",
				      "%s per event: it slowed each spinner by ~%s, rates are low by as much",
				      adv_fmt_ns(trace_ns).s, adv_fmt_pct(ctx->m.spin_rate * trace_ns / 1e9).s);
}

/* Two CPU-distance states with no configuration in common: both verdicts,
 * and which state the calibration met more often; neither is chosen. */
static void recommend_differ(struct adv_finding *f, const struct adv_lock_choice *c,
			     const char *level, const char *site)
{
	const struct adv_distance_state *more = c->far->share > c->near->share ? c->far : c->near;
	const struct adv_distance_state *earlier = c->near->carried_from[0] ? c->near : c->far;

	adv_finding__recommend(f, "Pick the wait at %.80s for the CPU placement you run with: CPUs %s apart, %s, N=%s; CPUs %s apart, %s, N=%s. No one setting is best in both (%s contention).",
			       site, adv_fmt_ns(c->near->round_trip_ns).s,
			       strategy_words(c->near->best.strategy), adv_fmt_spins(c->near->best.n).s,
			       adv_fmt_ns(c->far->round_trip_ns).s,
			       strategy_words(c->far->best.strategy), adv_fmt_spins(c->far->best.n).s,
			       level);
	/* Two runs' states: neither share says which state is more common. */
	if (c->near->carried_from[0] || c->far->carried_from[0])
		adv_finding__evidence(f, ADV_SRC_HOST, "states met", "by different calibration runs (CPUs %s apart in the one of %.40s)",
				      adv_fmt_ns(earlier->round_trip_ns).s, earlier->carried_from);
	else if (c->near->share == c->far->share)
		adv_finding__evidence(f, ADV_SRC_HOST, "states met", "the calibration's runs met both as often");
	else
		adv_finding__evidence(f, ADV_SRC_HOST, "states met", "the calibration's runs met CPUs %s apart more often (%s of them)",
				      adv_fmt_ns(more->round_trip_ns).s, adv_fmt_pct(more->share).s);
}

static void recommend_strategy(struct adv_finding *f, const struct adv_lock_choice *c, bool ok,
			       const char *level, const char *site)
{
	char range[48] = "", why[64];

	if (ok && c->states == ADV_LOCK_STATES_DIFFER) {
		recommend_differ(f, c, level, site);
		return;
	}
	if (ok && c->states == ADV_LOCK_STATES_AGREE) {
		if (c->n_max > c->n_min)
			snprintf(range, sizeof(range), " (any N from %u to %u)", c->n_min, c->n_max);
		snprintf(why, sizeof(why), "the best in both CPU-distance states measured here");
	} else {
		snprintf(why, sizeof(why), "the fastest strategy on this host");
	}
	if (ok && !strstr(c->strategy, "yield"))
		adv_finding__recommend(f, "Replace the spin-then-sched_yield loop at %.100s with %s, N=%s%s: %s at %s contention.",
				       site, strategy_words(c->strategy), adv_fmt_spins(c->n).s, range,
				       why, level);
	else if (ok)
		adv_finding__recommend(f, "Keep yielding at %.100s, but as %s with N=%s%s: %s at %s contention.",
				       site, strategy_words(c->strategy), adv_fmt_spins(c->n).s, range,
				       why, level);
	else
		adv_finding__recommend(f, "Park instead of yielding at %.100s: spin briefly, then block (a futex, a pthread mutex or a condition variable), so that waiters leave the CPU to the thread that will release them.",
				       site);
}

static void recommend(const struct adv_ctx *ctx, struct adv_finding *f, bool heavy)
{
	const struct adv_metrics *m = &ctx->m;
	struct adv_lock_choice choice;
	bool ok = adv_cal__lock_choice(ctx->h, heavy, &choice);
	char site[ADV_NAME_LEN + 64];

	/* Never a runtime frame as the thing to change: its caller is. */
	if (m->top_site && m->top_site->user_named)
		snprintf(site, sizeof(site), "%s", m->top_site->frame);
	else
		snprintf(site, sizeof(site), "the code that calls sched_yield (%s)",
			 m->top_site && m->top_site->frame[0] ?
			 "its stack stops in the runtime, the caller was not unwound" : "no call site recorded");
	recommend_strategy(f, &choice, ok, heavy ? "heavy" : "light", site);
	if (ctx->be.summary[0])
		adv_finding__see(f, "Spin or park, after the findings: how long to spin before parking");
	if (m->oversubscribed)
		adv_finding__see(f, "oversubscription: how many threads should run (a yield hands the CPU to another spinner as often as to the holder)");
	if (ctx->p->target.is_jvm)
		adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "look for Thread.yield() loops: java.util.concurrent locks and LockSupport.park spin briefly and then park");
}

bool adv_gate_spin_yield(const struct adv_ctx *ctx)
{
	return ctx->m.spinners > 0;
}

bool adv_rule_spin_yield(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;
	bool heavy = adv_metrics__heavy(m);
	struct adv_lock_choice choice;
	double conf;

	if (!adv_gate_spin_yield(ctx))
		return false;
	adv_finding__init(f, m->spin_cpu >= ADV_SPIN_CPU_CRITICAL * m->ncpus ? ADV_CRITICAL : ADV_WARNING,
			  "%.0f thread%s on sched_yield, %s each", m->spinners,
			  m->spinners == 1 ? " spins" : "s spin", adv_fmt_rate(m->spin_rate, "yields").s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "yielding threads", "%.0f of %.0f (%s)",
			      m->spinners, m->nthreads, m->spinner_comm);
	adv_finding__evidence(f, ADV_SRC_TARGET, "yield rate", "%s per thread",
			      adv_fmt_rate(m->spin_rate, "yields").s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "yields per switch", "%.1f (%s)", m->yields_per_switch,
			      m->yields_per_switch >= 2 ? "most yields found nothing else to run" :
			      m->yields_per_switch > 1 ? "most yields gave up the CPU"
						       : "each yield gave up the CPU");
	adv_finding__evidence(f, ADV_SRC_TARGET, "on-CPU burst", "%s between switches",
			      adv_fmt_ns(m->burst_ns).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "CPU used by them", "%.2f CPUs of %u",
			      m->spin_cpu, m->ncpus);
	if (m->top_site)
		adv_finding__evidence(f, ADV_SRC_TARGET, "yield call site", "%.100s (%s calls)",
				      m->top_site->frame, adv_fmt_count((double)m->top_site->count).s);
	host_evidence(ctx, f, heavy);
	recommend(ctx, f, heavy);

	/* Yields are counted exactly; what is less certain is that the loop
	 * waits for another thread, which a rate far above the threshold makes
	 * plain. */
	conf = m->spin_rate >= 10 * ADV_YIELD_RATE_MIN ? 0.9 : 0.75;
	if (adv_cal__trace_ns(ctx->h) * m->spin_rate / 1e9 >= ADV_TRACE_INFLATES)
		conf -= 0.1;
	/* Which strategy to use then rests on a state the target cannot see. */
	if (adv_cal__lock_choice(ctx->h, heavy, &choice) && choice.states == ADV_LOCK_STATES_DIFFER)
		conf -= 0.1;
	f->confidence = conf * adv_cal__note(f, ctx->h, ADV_FAM_HOST_COSTS | ADV_FAM_SPIN_THRESHOLD, 0.3);
	return true;
}

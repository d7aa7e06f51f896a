// SPDX-License-Identifier: GPL-2.0
/*
 * rule_oversubscription.c: more runnable threads than CPUs. On its own that
 * only slices time; together with spinning or contended locks it is worse,
 * because a lock holder that the scheduler preempts keeps every waiter
 * waiting for a whole run-queue delay instead of a handoff, and spinners
 * burn the slices the holder needs (lock-holder preemption).
 */
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* ADV_DEMAND_CRITICAL: twice as many runnable threads as CPUs, a preempted
 * holder then waits behind at least one other thread on every CPU, more
 * than half the time. With a busy host only the target's own share of the
 * demand counts (metrics.c): other processes' load is said (host-busy),
 * never blamed on the target. */

bool adv_gate_oversubscription(const struct adv_ctx *ctx)
{
	return ctx->m.oversubscribed;
}

bool adv_rule_oversubscription(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;
	bool spinning = m->spinners > 0 || m->nhot > 0 || m->spin_loop;
	bool both = m->runnable > m->ncpus && m->own_demand > ADV_DEMAND_OVER * m->ncpus;
	double handoff = ctx->be.handoff_ns;
	enum adv_severity sev;

	if (!adv_gate_oversubscription(ctx))
		return false;
	sev = !spinning ? ADV_INFO :
	      m->own_demand >= ADV_DEMAND_CRITICAL * m->ncpus ? ADV_CRITICAL : ADV_WARNING;
	if (m->host_busy && m->own_demand <= ADV_DEMAND_OVER * m->ncpus)
		adv_finding__init(f, sev, "%.0f threads runnable nearly all the time for %u CPU%s%s",
				  m->saturated, m->ncpus, m->ncpus == 1 ? "" : "s",
				  spinning ? ", while threads spin or contend on locks" : "");
	else
		adv_finding__init(f, sev, "%.1f runnable threads on average for %u CPU%s%s",
				  m->own_demand, m->ncpus, m->ncpus == 1 ? "" : "s",
				  spinning ? ", while threads spin or contend on locks" : "");
	adv_finding__evidence(f, ADV_SRC_TARGET, "runnable threads", "%.1f on average (on a CPU or queued for one), %u CPU%s",
			      m->own_demand, m->ncpus, m->ncpus == 1 ? "" : "s");
	if (m->host_busy)
		adv_finding__evidence(f, ADV_SRC_HOST, "other processes", "%.2f CPUs busy during the trace: their share of the queueing is left out above",
				      m->busy_other_cpus);
	adv_finding__evidence(f, ADV_SRC_TARGET, "threads runnable most of the time", "%.0f (%.0f nearly all of it)",
			      m->runnable, m->saturated);
	adv_finding__evidence(f, ADV_SRC_TARGET, "CPU used", "%.2f CPUs", m->cpu_used);
	if (m->runq_mean_ns > 0)
		adv_finding__evidence(f, ADV_SRC_TARGET, "run-queue delay", "mean %s, p90 %s, max %s",
				      adv_fmt_ns(m->runq_mean_ns).s, adv_fmt_ns(m->runq_p90_ns).s,
				      adv_fmt_ns(m->runq_max_ns).s);
	if (m->preempt_rate > 0)
		adv_finding__evidence(f, ADV_SRC_TARGET, "involuntary switches", "%s, of which at least %s preemptions (not yields)",
				      adv_fmt_rate(m->invol_rate, "").s, adv_fmt_rate(m->preempt_rate, "").s);
	else
		adv_finding__evidence(f, ADV_SRC_TARGET, "involuntary switches", "%s (yields that switched count too)",
				      adv_fmt_rate(m->invol_rate, "").s);
	if (m->spinners > 0)
		adv_finding__evidence(f, ADV_SRC_TARGET, "yield-spinning threads", "%.0f, using %.2f CPUs",
				      m->spinners, m->spin_cpu);
	if (m->nhot)
		adv_finding__evidence(f, ADV_SRC_TARGET, "contended lock", "%.100s: %s of its waiters' time",
				      m->hot[0].fx->name[0] ? m->hot[0].fx->name : "unnamed futex",
				      adv_fmt_pct(m->hot[0].share).s);
	if (handoff > 0 && m->runq_mean_ns > 0)
		adv_finding__evidence(f, ADV_SRC_HOST, "futex handoff", "%s: a preempted holder costs its waiters a run-queue delay, %s that",
				      adv_fmt_ns(handoff).s, adv_fmt_ratio(m->runq_mean_ns / handoff).s);

	if (spinning) {
		adv_finding__recommend(f, "Run at most %u threads that spin or take the hot locks (the CPUs this process may use): size thread pools to the affinity mask or cpuset, so that a preempted lock holder gets its CPU back.",
				       m->ncpus);
		/* One verdict per report: how the waiters wait is the other
		 * finding's call, this one is about how many run. */
		adv_finding__see(f, "%s: how those threads should wait",
				 m->spinners > 0 ? "spin-yield" : m->spin_loop ? "spin-loop" : "futex-contention");
	} else
		adv_finding__recommend(f, "Use fewer threads than CPUs if the run-queue delay matters: nothing spins, so this costs latency (time slicing), not wasted CPU.");
	if (ctx->p->target.is_jvm)
		adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "-XX:ActiveProcessorCount=%u sizes GC and compiler threads and availableProcessors(); check -XX:ParallelGCThreads, -XX:ConcGCThreads",
				      m->ncpus);

	/* Two independent signals (thread count, time) agreeing are surer
	 * than one; the host's handoff only adds context. */
	f->confidence = (both ? 0.85 : 0.65) * adv_cal__note(f, ctx->h, ADV_FAM_HOST_COSTS, 0.1);
	return true;
}

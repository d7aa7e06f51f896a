// SPDX-License-Identifier: GPL-2.0
/*
 * rule_host_busy.c: other processes kept the host's CPUs busy during the
 * trace. The target's threads then queue behind them, and every run-queue
 * delay and wait in the report is longer than the target alone causes.
 * That is said (information), never blamed on the target: the
 * oversubscription rule counts only the target's own share of the demand.
 */
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "rules.h"

bool adv_rule_host_busy(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;

	if (!m->host_busy)
		return false;
	adv_finding__init(f, ADV_INFO, "The host was busy: other processes used %.1f of its %.0f CPUs during the trace",
			  m->busy_other_cpus, m->host_cpus);
	adv_finding__evidence(f, ADV_SRC_HOST, "other processes", "%.2f CPUs busy (/proc/stat, less the target's own on-CPU time)",
			      m->busy_other_cpus);
	adv_finding__evidence(f, ADV_SRC_TARGET, "the target", "%.2f CPUs used, %.1f threads wanting a CPU on average on its own account, %u CPU%s",
			      m->cpu_used, m->own_demand, m->ncpus, m->ncpus == 1 ? "" : "s");
	if (m->runq_mean_ns > 0)
		adv_finding__evidence(f, ADV_SRC_TARGET, "run-queue delay", "mean %s, p90 %s: partly waiting behind other processes",
				      adv_fmt_ns(m->runq_mean_ns).s, adv_fmt_ns(m->runq_p90_ns).s);
	adv_finding__recommend(f, "Trace again on a quieter host, or give the target CPUs of its own (taskset, a cpuset) if the interference matters: its run-queue delays and waits include time queued behind other processes.");
	if (!m->oversubscribed)
		adv_finding__evidence(f, ADV_SRC_TARGET, "on its own", "no more runnable threads than CPUs, so nothing in it needs fewer threads");
	/* /proc/stat is exact for the host; splitting the target off relies on
	 * its traced on-CPU time, exact as well. */
	f->confidence = 0.9;
	return true;
}

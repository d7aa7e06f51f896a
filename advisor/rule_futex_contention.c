// SPDX-License-Identifier: GPL-2.0
/*
 * rule_futex_contention.c: locks whose waiters spend a real share of their
 * time blocked (metrics.c decides which futexes are contended locks). The
 * lock is named by its waiters' stacks; its wait distribution is set
 * against the futex handoff measured here, which decides the advice: spin
 * briefly before parking (waits shorter than a handoff), or park at once
 * and shorten the critical section (waits longer).
 */
#include <math.h>
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* Share of the waiters' time blocked on the lock. Removing a lock that
 * takes a share s of its threads' time speeds them up by at most
 * 1/(1-s): 10% is the least worth an engineer's attention during an
 * incident (warning), 30% (a 1.4x ceiling) is what a critical path looks
 * like (critical). Between ADV_FUTEX_MIN_SHARE and 10%: info. */
#define ADV_LOCK_WARN_SHARE 0.10
#define ADV_LOCK_CRIT_SHARE 0.30
/* Tracing adds a fixed cost per futex call (enter and exit): above a tenth
 * of the median wait the waits measured are visibly longer than the
 * untraced ones. */
#define ADV_TRACE_INFLATES 0.10

static void lock_name(const struct adv_futex *fx, char *buf, size_t size)
{
	if (fx->name[0])
		snprintf(buf, size, "%s", fx->name);
	else
		snprintf(buf, size, "futex 0x%llx", (unsigned long long)fx->uaddr);
}

static void evidence(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_hot_lock *hl = &ctx->m.hot[0];
	const struct adv_futex *fx = hl->fx;
	char name[ADV_NAME_LEN];

	lock_name(fx, name, sizeof(name));
	adv_finding__evidence(f, ADV_SRC_TARGET, "lock", "%.120s%s", name,
			      fx->name[0] ? "" : " (unnamed: waiter stacks did not resolve)");
	adv_finding__evidence(f, ADV_SRC_TARGET, "waits", "%s in %s by %u thread%s",
			      adv_fmt_count((double)fx->waits).s,
			      adv_fmt_ns(ctx->m.dur_ns).s, fx->waiters, fx->waiters == 1 ? "" : "s");
	adv_finding__evidence(f, ADV_SRC_TARGET, "wait rate", "%s",
			      adv_fmt_rate(hl->rate, "waits").s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "waiters' time blocked on it", "%s",
			      adv_fmt_pct(hl->share).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "wait time", "median %s, p90 %s, max %s",
			      adv_fmt_ns(hl->median_ns).s, adv_fmt_ns(hl->p90_ns).s,
			      adv_fmt_ns((double)fx->wait_ns_max).s);
	for (size_t i = 1; i < ctx->m.nhot; i++) {
		lock_name(ctx->m.hot[i].fx, name, sizeof(name));
		adv_finding__evidence(f, ADV_SRC_TARGET, "also contended", "%.100s: %s of its waiters' time",
				      name, adv_fmt_pct(ctx->m.hot[i].share).s);
	}
	if (ctx->be.handoff_ns > 0)
		adv_finding__evidence(f, ADV_SRC_HOST, "futex handoff", "%s (wake to running): the median wait is %s that",
				      adv_fmt_ns(ctx->be.handoff_ns).s,
				      adv_fmt_ratio(hl->median_ns / ctx->be.handoff_ns).s);
}

static void recommend(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_breakeven *be = &ctx->be;

	switch (be->side) {
	case ADV_SIDE_SPIN:
		adv_finding__recommend(f, "Waits are shorter than a futex handoff here, so spin briefly before parking: %s.",
				       be->summary);
		if (be->spin_n > 0)
			adv_finding__recommend(f, "For a glibc mutex: make it adaptive (pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP)) and run with GLIBC_TUNABLES=glibc.pthread.mutex_spin_count=%d (default 100, at most 32767; only adaptive mutexes spin).",
					       be->spin_n);
		else
			adv_finding__recommend(f, "For a glibc mutex: make it adaptive (PTHREAD_MUTEX_ADAPTIVE_NP) and size GLIBC_TUNABLES=glibc.pthread.mutex_spin_count so that the spin lasts about one handoff.");
		if (ctx->m.oversubscribed)
			adv_finding__recommend(f, "But first fix the oversubscription: a holder that is preempted makes every spinner burn its whole budget.");
		break;
	case ADV_SIDE_PARK:
		adv_finding__recommend(f, "Parking is right for these waits (%s); spinning would not help. The cost is the critical section: shorten what runs under the lock, split it (a lock per shard, per-thread data merged later) or let fewer threads take it.",
				       be->summary);
		break;
	case ADV_SIDE_UNKNOWN:
		adv_finding__recommend(f, "Whether spinning before parking would pay cannot be said without this host's futex handoff cost. Shortening the critical section or splitting the lock helps either way.");
		break;
	}
	if (ctx->p->target.is_jvm)
		adv_finding__recommend(f, "For Java locks, JFR's jdk.JavaMonitorEnter and jdk.ThreadPark events name the contended monitor or lock object.");
}

bool adv_rule_futex_contention(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_hot_lock *hl = &ctx->m.hot[0];
	double trace_ns = adv_cal__trace_ns(ctx->h), conf;
	char name[ADV_NAME_LEN];
	enum adv_severity sev;

	if (!ctx->m.nhot)
		return false;
	sev = hl->share >= ADV_LOCK_CRIT_SHARE ? ADV_CRITICAL :
	      hl->share >= ADV_LOCK_WARN_SHARE ? ADV_WARNING : ADV_INFO;
	lock_name(hl->fx, name, sizeof(name));
	adv_finding__init(f, sev, "Lock contention: waiters spend %s of their time blocked on %.100s",
			  adv_fmt_pct(hl->share).s, name);
	evidence(ctx, f);
	/* Two events per wait (enter, exit). */
	if (trace_ns > 0 && 2 * trace_ns >= ADV_TRACE_INFLATES * hl->median_ns)
		adv_finding__evidence(f, ADV_SRC_HOST, "tracing cost",
				      "%s per event, %s of the median wait: waits look longer than they are",
				      adv_fmt_ns(trace_ns).s, adv_fmt_pct(2 * trace_ns / hl->median_ns).s);
	recommend(ctx, f);

	/* More waits, steadier distribution: 20 waits give 0.73, 1000 give 0.9.
	 * An unnamed lock is harder to act on; inflated waits are less sure. */
	conf = 0.6 + 0.3 * fmin(1.0, log10((double)hl->fx->waits) / 3.0);
	if (!hl->fx->name[0])
		conf -= 0.1;
	if (trace_ns > 0 && 2 * trace_ns >= ADV_TRACE_INFLATES * hl->median_ns)
		conf -= 0.15;
	f->confidence = conf * adv_cal__note(f, ctx->h, ADV_FAM_HOST_COSTS, 0.25);
	return true;
}

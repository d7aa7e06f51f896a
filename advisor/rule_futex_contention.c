// SPDX-License-Identifier: GPL-2.0
/*
 * rule_futex_contention.c: locks whose waiters spend a real share of their
 * time waiting on them, blocked or in futex calls that returned at once
 * (metrics.c decides which futexes are contended locks). The
 * lock is named by its waiters' stacks; its wait distribution is set
 * against the futex handoff measured here, which decides the advice: spin
 * briefly before parking (waits shorter than a handoff), or park at once
 * and shorten the critical section (waits longer).
 */
#include <math.h>
#include <stdio.h>
#include "critical_section.h"
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"
#include "runtime.h"

/* Thresholds (thresholds.h). ADV_LOCK_WARN_SHARE, ADV_LOCK_CRIT_SHARE: share
 * of the waiters' time waiting on the lock (blocked, or in wait calls that
 * returned at once: a lock handed over within 50 ns costs its waiters
 * millions of such calls and hardly any sleep). Removing a lock that takes a
 * share s of its threads' time speeds them up by at most 1/(1-s): 10% is the
 * least worth an engineer's attention during an incident (warning), 30% (a
 * 1.4x ceiling) is what a critical path looks like (critical). Between
 * ADV_FUTEX_MIN_SHARE and 10%: info. */
/* ADV_TRACE_INFLATES: tracing adds a fixed cost per futex call (enter and
 * exit): above a tenth of the median wait the waits measured are visibly
 * longer than the untraced ones. */

static void lock_name(const struct adv_futex *fx, char *buf, size_t size)
{
	if (fx->name[0])
		snprintf(buf, size, "%s", fx->name);
	else
		snprintf(buf, size, "futex 0x%llx", (unsigned long long)fx->uaddr);
}

/* A lock word that most waits find already changed is handed over faster
 * than a futex call takes: the waits that block say little (they measure
 * the scheduler), the at-once returns say the lock is hot. */
static bool hot_word(const struct adv_hot_lock *hl)
{
	return adv_hot_word(hl);
}

/* The one verdict on how this lock's waiters should wait, in a word the
 * report and its tests can compare across runs. */
static const char *verdict(const struct adv_ctx *ctx, const struct adv_hot_lock *hl)
{
	if (hot_word(hl))
		return "shard or spin briefly";
	switch (ctx->be.side) {
	case ADV_SIDE_SPIN: return "adaptive";
	case ADV_SIDE_PARK: return "park";
	case ADV_SIDE_UNKNOWN: break;
	}
	return "unknown";
}

static void evidence(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_hot_lock *hl = &ctx->m.hot[0];
	const struct adv_futex *fx = hl->fx;
	char name[ADV_NAME_LEN];

	lock_name(fx, name, sizeof(name));
	adv_finding__evidence(f, ADV_SRC_TARGET, "lock", "%.120s%s", name,
			      !fx->name[0] ? " (unnamed: waiter stacks did not resolve)" :
			      !fx->user_named ? " (the stack stops in the runtime: caller not named)" : "");
	adv_finding__evidence(f, ADV_SRC_TARGET, "why a lock", "%.150s", hl->why);
	adv_finding__evidence(f, ADV_SRC_TARGET, "waits", "%s calls in %s by %u threads: %s blocked, %s returned at once (EAGAIN)",
			      adv_fmt_count((double)fx->waits).s, adv_fmt_ns(ctx->m.dur_ns).s,
			      fx->waiters, adv_fmt_count((double)fx->blocked).s,
			      adv_fmt_count((double)fx->returned_at_once).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "blocked wait rate", "%s",
			      adv_fmt_rate(hl->rate, "waits").s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "waiters' time blocked on it", "%s",
			      adv_fmt_pct(hl->blocked_share).s);
	if (fx->returned_at_once)
		adv_finding__evidence(f, ADV_SRC_TARGET, "waiters' time in at-once calls", "%s (%s)",
				      adv_fmt_pct(hl->at_once_share_time).s,
				      adv_cal__futex_call_ns(ctx->h) > 0 ?
				      "each counted at most an untraced futex call on this host" :
				      "as measured, spinscope's own cost inside");
	adv_finding__evidence(f, ADV_SRC_TARGET, "blocked wait time", "median %s, p90 %s, max %s",
			      adv_fmt_ns(hl->median_ns).s, adv_fmt_ns(hl->p90_ns).s,
			      adv_fmt_ns((double)fx->wait_ns_max).s);
	if (hot_word(hl))
		adv_finding__evidence(f, ADV_SRC_TARGET, "hot lock word", "%s of the wait calls returned at once: the lock changed hands before the waiter could sleep",
				      adv_fmt_pct(hl->at_once_share).s);
	for (size_t i = 1; i < ctx->m.nhot; i++) {
		lock_name(ctx->m.hot[i].fx, name, sizeof(name));
		adv_finding__evidence(f, ADV_SRC_TARGET, "also contended", "%.100s: %s of its waiters' time",
				      name, adv_fmt_pct(ctx->m.hot[i].share).s);
	}
	if (ctx->be.handoff_ns > 0)
		adv_finding__evidence(f, ADV_SRC_HOST, "futex handoff", "%s (wake to running): the median blocked wait is %s that",
				      adv_fmt_ns(ctx->be.handoff_ns).s,
				      adv_fmt_ratio(hl->median_ns / ctx->be.handoff_ns).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "verdict", "%s", verdict(ctx, hl));
	adv_critical_section_evidence(fx, f);
}

/* Where the change goes: the critical section that holds the lock longest
 * (its release site), else the user's function, or (when the stack
 * stopped in the runtime) the code that calls it, never the runtime
 * itself. */
static const char *where(const struct adv_futex *fx, char *buf, size_t size)
{
	if (adv_critical_section_where(fx, buf, size))
		return buf;
	return fx->user_named ? "in the function named above" :
	       "where the lock is taken (caller not unwound)";
}

static void recommend_hot(const struct adv_ctx *ctx, struct adv_finding *f,
			  const struct adv_hot_lock *hl)
{
	char in[ADV_NAME_LEN];

	/* "while ... fit the CPUs": said, not made the verdict; whether the
	 * target is oversubscribed moves with the host's load, the verdict
	 * must not. */
	adv_finding__recommend(f, "Shard the data %.130s (a lock per shard), or let waiters spin briefly (PTHREAD_MUTEX_ADAPTIVE_NP) while the lock-taking threads fit the CPUs.",
			       where(hl->fx, in, sizeof(in)));
}

static void recommend(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_breakeven *be = &ctx->be;
	const struct adv_hot_lock *hl = &ctx->m.hot[0];
	char in[ADV_NAME_LEN];

	struct adv_lock_words lw;
	enum adv_runtime rt = ctx->p->target.runtime;

	adv_word_words(ctx->p, hl->fx, &lw);
	if (lw.kind[0] && (rt == ADV_RT_RUST || rt == ADV_RT_GO || rt == ADV_RT_CPYTHON || rt == ADV_RT_JVM)) {
		/* glibc's mutex knobs are not this runtime's: its own fixes. */
		adv_finding__recommend(f, "Shorten the critical section %.130s, or split the lock (one per shard).",
				       where(hl->fx, in, sizeof(in)));
		adv_finding__recommend(f, "%s", lw.fix);
	} else if (hot_word(hl)) {
		recommend_hot(ctx, f, hl);
	} else {
		switch (be->side) {
		case ADV_SIDE_SPIN:
			if (be->spin_n > 0)
				adv_finding__recommend(f, "Spin briefly before parking: make the mutex adaptive (PTHREAD_MUTEX_ADAPTIVE_NP) and run with GLIBC_TUNABLES=glibc.pthread.mutex_spin_count=%d (default 100).",
						       be->spin_n);
			else
				adv_finding__recommend(f, "Spin briefly before parking: make the mutex adaptive (PTHREAD_MUTEX_ADAPTIVE_NP) and size GLIBC_TUNABLES=glibc.pthread.mutex_spin_count to about one handoff.");
			break;
		case ADV_SIDE_PARK:
			adv_finding__recommend(f, "Shorten the critical section %.130s, or split the lock (one per shard); spinning would not help.",
					       where(hl->fx, in, sizeof(in)));
			break;
		case ADV_SIDE_UNKNOWN:
			adv_finding__recommend(f, "Shorten the critical section or split the lock: that helps whether or not spinning first would pay, which needs this host's futex handoff cost.");
			break;
		}
	}
	/* C++'s locks are glibc's, whose knobs above apply: its own words for
	 * the code besides. */
	if (lw.kind[0] && lw.runtime == ADV_RT_CXX)
		adv_finding__recommend(f, "%s", lw.fix);
	adv_critical_section_recommend(hl->fx, f);
	if (!hot_word(hl) && be->side != ADV_SIDE_UNKNOWN)
		adv_finding__see(f, "Spin or park, after the findings: why %s", be->side == ADV_SIDE_SPIN ?
				 "spinning briefly pays" : "spinning would not help");
	if (ctx->p->target.is_jvm)
		adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM",
				      "JFR's jdk.JavaMonitorEnter and jdk.ThreadPark events (java -XX:StartFlightRecording) name the monitor or lock in Java code");
}

bool adv_gate_futex_contention(const struct adv_ctx *ctx)
{
	return ctx->m.nhot > 0;
}

bool adv_rule_futex_contention(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_hot_lock *hl = &ctx->m.hot[0];
	double trace_ns = adv_cal__trace_ns(ctx->h), conf;
	char name[ADV_NAME_LEN];
	enum adv_severity sev;

	if (!adv_gate_futex_contention(ctx))
		return false;
	sev = hl->share >= ADV_LOCK_CRIT_SHARE ? ADV_CRITICAL :
	      hl->share >= ADV_LOCK_WARN_SHARE ? ADV_WARNING : ADV_INFO;
	adv_word_name(ctx->p, hl->fx, name, sizeof(name));
	adv_finding__init(f, sev, "Lock contention: waiters spend %s of their time waiting on %.100s",
			  adv_fmt_pct(hl->share).s, name);
	evidence(ctx, f);
	/* Two events per wait (enter, exit). */
	if (trace_ns > 0 && 2 * trace_ns >= ADV_TRACE_INFLATES * hl->median_ns)
		adv_finding__evidence(f, ADV_SRC_HOST, "tracing cost",
				      "%s per event, %s of the median wait: waits look longer than they are",
				      adv_fmt_ns(trace_ns).s, adv_fmt_pct(2 * trace_ns / hl->median_ns).s);
	recommend(ctx, f);

	/* More waits, steadier distribution: 20 waits give 0.73, 1000 give 0.9.
	 * An unnamed lock is harder to act on; one known only by how it is
	 * woken (no lock frame seen) less sure; inflated waits less sure. */
	conf = 0.6 + 0.3 * fmin(1.0, log10((double)hl->fx->blocked) / 3.0);
	if (!hl->fx->name[0])
		conf -= 0.1;
	if (!hl->named_lock && !hl->fx->wake_pattern)
		conf -= 0.05;
	if (trace_ns > 0 && 2 * trace_ns >= ADV_TRACE_INFLATES * hl->median_ns)
		conf -= 0.15;
	f->confidence = conf * adv_cal__note(f, ctx->h, ADV_FAM_HOST_COSTS, 0.25);
	return true;
}

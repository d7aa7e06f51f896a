// SPDX-License-Identifier: GPL-2.0
/* metrics.c: figures derived from the profile for the rules (metrics.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "metrics.h"

double adv_hist_quantile(const uint64_t *hist, size_t slots, double q)
{
	uint64_t total = 0, seen = 0;
	double rank;

	for (size_t i = 0; i < slots; i++)
		total += hist[i];
	if (!total)
		return 0;
	rank = q * (double)total;
	for (size_t i = 0; i < slots; i++) {
		double lo = i ? ldexp(1, (int)i) : 0, hi = ldexp(1, (int)i + 1);

		if (!hist[i])
			continue;
		if ((double)(seen + hist[i]) >= rank) {
			double frac = (rank - (double)seen) / (double)hist[i];

			return lo + (hi - lo) * (frac < 0 ? 0 : frac);
		}
		seen += hist[i];
	}
	return ldexp(1, (int)slots);
}

/* Innermost glibc synchronisation frames, and whether each waits for an
 * event (idle) or for a lock (contended). Matched as substrings so that
 * versioned and internal aliases (___pthread_cond_wait, __lll_lock_wait)
 * match too; lock entries come first because __pthread_mutex_cond_lock
 * (a condition variable re-taking its mutex) is lock contention. */
static const struct {
	const char *needle;
	bool event;
} sync_frames[] = {
	{ "mutex_cond_lock", false },
	{ "mutex_lock", false },
	{ "mutex_timedlock", false },
	{ "mutex_clocklock", false },
	{ "rwlock_", false },
	{ "lll_lock", false },
	{ "cond_wait", true },
	{ "cond_timedwait", true },
	{ "cond_clockwait", true },
	{ "sem_wait", true },
	{ "sem_timedwait", true },
	{ "sem_clockwait", true },
	{ "pthread_join", true },
	{ "barrier_wait", true },
};

bool adv_is_event_wait(const char *name)
{
	const char *frame = name;

	while (frame && *frame) {
		const char *end = strstr(frame, " <- ");
		size_t len = end ? (size_t)(end - frame) : strlen(frame);

		for (size_t i = 0; i < sizeof(sync_frames) / sizeof(sync_frames[0]); i++) {
			const char *hit = strstr(frame, sync_frames[i].needle);

			if (hit && hit < frame + len)
				return sync_frames[i].event;
		}
		frame = end ? end + 4 : NULL;
	}
	return false;
}

/* The per-thread figures the rules need, as doubles so that a profile
 * without a thread array can stand in one averaged thread for all. */
struct tview {
	double yields, oncpu, runq, switches, invol;
	const char *comm;
};

static void count_thread(struct adv_metrics *m, const struct tview *t, double weight)
{
	double on = t->oncpu / m->dur_ns, run = (t->oncpu + t->runq) / m->dur_ns;

	if (on >= ADV_BUSY_SHARE)
		m->busy += weight;
	if (run >= ADV_RUNNABLE_SHARE)
		m->runnable += weight;
	/* Every switch of a yielding thread may be a yield; what is left over
	 * was the scheduler taking the CPU away. */
	m->preempt_rate += weight * fmax(0, t->invol - t->yields) / m->dur_s;
	if (t->yields / m->dur_s < ADV_YIELD_RATE_MIN &&
	    (t->yields / m->dur_s < ADV_YIELD_RATE_SWITCHING ||
	     t->yields < ADV_YIELD_SWITCH_SHARE * t->switches))
		return;
	if (!m->spinners && t->comm)
		snprintf(m->spinner_comm, sizeof(m->spinner_comm), "%s", t->comm);
	m->spinners += weight;
	m->spin_yields += weight * t->yields;
	m->spin_switches += weight * t->switches;
	m->spin_oncpu_ns += weight * t->oncpu;
}

static void count_threads(const struct adv_profile *p, struct adv_metrics *m)
{
	struct tview v;

	for (size_t i = 0; p->threads && i < p->nthreads; i++) {
		const struct adv_counters *c = &p->threads[i].c;

		v = (struct tview){
			.yields = (double)c->sched_yield,
			.oncpu = (double)c->oncpu_ns,
			.runq = (double)c->runq_ns,
			.switches = (double)(c->switches_voluntary + c->switches_involuntary),
			.invol = (double)c->switches_involuntary,
			.comm = p->threads[i].comm,
		};
		count_thread(m, &v, 1);
	}
	m->nthreads = p->threads ? (double)p->nthreads : 0;
	if (m->nthreads > 0)
		return;
	/* No thread array: one average thread stands for all of them. */
	m->nthreads = p->target.nthreads ? p->target.nthreads : 1;
	v = (struct tview){
		.yields = (double)p->totals.sched_yield / m->nthreads,
		.oncpu = (double)p->totals.oncpu_ns / m->nthreads,
		.runq = (double)p->totals.runq_ns / m->nthreads,
		.switches = (double)(p->totals.switches_voluntary +
				     p->totals.switches_involuntary) / m->nthreads,
		.invol = (double)p->totals.switches_involuntary / m->nthreads,
		.comm = p->target.comm,
	};
	count_thread(m, &v, m->nthreads);
}

static void rank_locks(const struct adv_profile *p, struct adv_metrics *m)
{
	for (size_t i = 0; p->futexes && i < p->nfutexes; i++) {
		const struct adv_futex *fx = &p->futexes[i];
		double waiters = fx->waiters ? fx->waiters : 1;
		struct adv_hot_lock h = {
			.fx = fx,
			.share = fmin(1.0, (double)fx->wait_ns / (waiters * m->dur_ns)),
			.rate = (double)fx->waits / m->dur_s,
		};
		size_t at;

		if (fx->waits < ADV_FUTEX_MIN_WAITS || h.rate < ADV_FUTEX_MIN_RATE ||
		    (double)fx->wakes < ADV_FUTEX_WAKE_RATIO * (double)fx->waits ||
		    h.share < ADV_FUTEX_MIN_SHARE || adv_is_event_wait(fx->name))
			continue;
		h.median_ns = adv_hist_quantile(fx->hist, SS_HIST_SLOTS, 0.5);
		h.p90_ns = adv_hist_quantile(fx->hist, SS_HIST_SLOTS, 0.9);
		if (!h.median_ns)	/* no histogram: the mean stands in */
			h.median_ns = h.p90_ns = (double)fx->wait_ns / (double)fx->waits;
		/* Insert by share, keeping the ADV_MAX_HOT largest. */
		for (at = m->nhot; at > 0 && m->hot[at - 1].share < h.share; at--)
			if (at < ADV_MAX_HOT)
				m->hot[at] = m->hot[at - 1];
		if (at < ADV_MAX_HOT) {
			m->hot[at] = h;
			if (m->nhot < ADV_MAX_HOT)
				m->nhot++;
		}
	}
}

void adv_metrics__compute(const struct adv_profile *p, struct adv_metrics *m)
{
	const struct adv_counters *t = &p->totals;

	memset(m, 0, sizeof(*m));
	m->dur_ns = (double)p->duration_ns;
	m->dur_s = m->dur_ns / 1e9;
	m->ncpus = p->ncpus ? p->ncpus : 1;
	m->cpu_used = (double)t->oncpu_ns / m->dur_ns;
	m->demand = (double)(t->oncpu_ns + t->runq_ns) / m->dur_ns;
	count_threads(p, m);
	m->oversubscribed = m->runnable > m->ncpus || m->demand > ADV_DEMAND_OVER * m->ncpus;

	if (m->spinners > 0) {
		m->spin_rate = m->spin_yields / m->spinners / m->dur_s;
		m->yields_per_switch = m->spin_yields / fmax(1, m->spin_switches);
		m->burst_ns = m->spin_oncpu_ns / fmax(1, m->spin_switches);
		m->spin_cpu = m->spin_oncpu_ns / m->dur_ns;
	}
	for (size_t i = 0; p->yield_sites && i < p->nyield_sites; i++)
		if (!m->top_site || p->yield_sites[i].count > m->top_site->count)
			m->top_site = &p->yield_sites[i];

	m->invol_rate = (double)t->switches_involuntary / m->dur_s;
	if (t->runq_count) {
		m->runq_mean_ns = (double)t->runq_ns / (double)t->runq_count;
		m->runq_p90_ns = adv_hist_quantile(t->runq_hist, SS_HIST_SLOTS, 0.9);
		m->runq_max_ns = (double)t->runq_ns_max;
	}
	rank_locks(p, m);
}

bool adv_metrics__heavy(const struct adv_metrics *m)
{
	return m->runnable > m->ncpus || m->demand > m->ncpus;
}

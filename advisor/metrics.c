// SPDX-License-Identifier: GPL-2.0
/* metrics.c: figures derived from the profile for the rules (metrics.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "format.h"
#include "metrics.h"
#include "runtime.h"

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
	{ "pthread_clockjoin", true },
	{ "pthread_timedjoin", true },
	{ "barrier_wait", true },
	{ "Unsafe_Park", true },
	{ "Parker::park", true },
};

/* The innermost synchronisation frame of name: 1 event, 0 lock, -1 none. */
static int sync_kind(const char *name)
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
	return -1;
}

bool adv_is_event_wait(const char *name)
{
	return sync_kind(name) == 1;
}

bool adv_is_lock_wait(const char *name)
{
	return sync_kind(name) == 0;
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
	double rate = t->yields / m->dur_s;

	if (on >= ADV_BUSY_SHARE)
		m->busy += weight;
	if (run >= ADV_RUNNABLE_SHARE)
		m->runnable += weight;
	if (run >= ADV_SATURATED_SHARE)
		m->saturated += weight;
	/* Every switch of a yielding thread may be a yield; what is left over
	 * was the scheduler taking the CPU away. */
	m->preempt_rate += weight * fmax(0, t->invol - t->yields) / m->dur_s;
	/* A spinner yields often and wants the CPU most of the time: a thread
	 * that yields between sleeps (0.01 CPUs, a few hundred yields a
	 * second) does not spin. */
	if (run < ADV_RUNNABLE_SHARE)
		return;
	if (rate < ADV_YIELD_RATE_MIN &&
	    (rate < ADV_YIELD_RATE_SWITCHING || t->yields < ADV_YIELD_SWITCH_SHARE * t->switches))
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

void adv_futex_wakers(const struct adv_futex *fx, struct adv_wakers *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; fx->holders && i < fx->nholders; i++) {
		const struct adv_holder *h = &fx->holders[i];

		w->wakes += (double)h->releases;
		if (h->also_waits)
			w->by_waiters += (double)h->releases;
		if (!w->top || h->releases > w->top->releases)
			w->top = h;
		w->threads++;
	}
	for (size_t i = 0; fx->release_sites && i < fx->nrelease_sites; i++)
		w->woken += (double)fx->release_sites[i].woken;
	if (!w->wakes) {	/* no release records: the word's own counts */
		w->wakes = (double)fx->wakes;
		w->woken = (double)fx->woken;
	}
	w->fanout = w->wakes > 0 ? w->woken / w->wakes : 0;
	w->reblocked = fx->outcome[SS_FUTEX_WOKEN] ?
		fmin(1.0, (double)fx->reblocked / (double)fx->outcome[SS_FUTEX_WOKEN]) : 0;
}

/* CPython's interpreter waits for its GIL in take_gil(), a static function
 * of the interpreter binary or libpython: frames there name no symbol. */
static bool cpython_frames(const struct adv_futex *fx)
{
	return strstr(fx->name, "python3") || strstr(fx->name, "libpython") ||
	       strstr(fx->runtime_frames, "python3") || strstr(fx->runtime_frames, "libpython") ||
	       strstr(fx->runtime_frames, "_PyEval_") || strstr(fx->runtime_frames, "take_gil");
}

void adv_word_words(const struct adv_profile *p, const struct adv_futex *fx, struct adv_lock_words *lw)
{
	adv_runtime_word_futex(p, fx, lw);
	/* Debian's python3 is stripped of take_gil (a static function): a
	 * condition variable the interpreter's own code waits on is its
	 * GIL. */
	if (cpython_frames(fx) && (!lw->kind[0] || strstr(lw->kind, "condition variable")))
		adv_runtime_word_lock(ADV_RT_CPYTHON, "take_gil", NULL, lw);
	/* A JVM without frame pointers in JIT code: its waiters' stacks stop
	 * in libjvm; the samples say which of the program's methods runs. */
	if (p->target.runtime == ADV_RT_JVM && !fx->user_named && lw->kind[0]) {
		char method[ADV_NAME_LEN / 2];
		double share;

		if (adv_sampled_java_method(&p->samples, method, sizeof(method), &share)) {
			snprintf(lw->guess, sizeof(lw->guess), "%s: %s of the samples", method,
				 adv_fmt_pct(share).s);
			snprintf(lw->lock, sizeof(lw->lock), "%.60s, likely in %s", lw->kind, method);
		}
	}
}

void adv_jvm_guess_evidence(const struct adv_lock_words *lw, struct adv_finding *f)
{
	if (lw->guess[0])
		adv_finding__evidence(f, ADV_SRC_TARGET, "Java method",
				      "%s (most sampled): likely, not seen, as stacks stop at JIT code; -XX:+PreserveFramePointer shows the callers",
				      lw->guess);
}

void adv_python_evidence(const struct adv_profile *p, const struct adv_lock_words *lw, struct adv_finding *f)
{
	const char *py = p->target.python_functions;

	if (p->target.runtime != ADV_RT_CPYTHON && !(lw->kind[0] && strstr(lw->kind, "GIL")))
		return;
	if (p->target.python_read)
		adv_finding__evidence(f, ADV_SRC_TARGET, "Python functions", "%s", py);
	else if (py[0])
		adv_finding__evidence(f, ADV_SRC_TARGET, "Python functions", "not named: %s", py);
	else if (lw->note[0])
		adv_finding__evidence(f, ADV_SRC_TARGET, "Python functions", "%s", lw->note);
}

void adv_python_place(const struct adv_profile *p, char *name, size_t size)
{
	const char *py = p->target.python_functions;
	size_t n = strcspn(py, ":"), len = strlen(name);

	if (p->target.python_read && py[n] == ':' && len + 10 + n < size)
		snprintf(name + len, size - len, ", running %.*s", (int)n, py);
}

void adv_word_name(const struct adv_profile *p, const struct adv_futex *fx, char *buf, size_t size)
{
	struct adv_lock_words lw;

	/* In the program's language where its runtime's frames say what
	 * it is ("std::sync::Mutex in bump_shared", "the GIL (CPython)"). */
	adv_word_words(p, fx, &lw);
	if (lw.kind[0] && lw.lock[0])
		snprintf(buf, size, "%s", lw.lock);
	else if (fx->name[0])
		snprintf(buf, size, "%s", fx->name);
	else
		snprintf(buf, size, "futex 0x%llx", (unsigned long long)fx->uaddr);
}

double adv_word_wait_share(const struct adv_futex *fx, const struct adv_metrics *m)
{
	double waiters = fx->waiters ? fx->waiters : 1;

	return fmin(1.0, (double)fx->wait_ns / (waiters * m->dur_ns));
}

/* What the names say, for a trace that did not see the wakes (--light):
 * then the only hint there is. */
static enum adv_word_use use_by_name(const struct adv_futex *fx, const char *frames,
				     char *why, size_t size)
{
	if (adv_is_event_wait(frames)) {
		snprintf(why, size, "its waiters wait for an event (%.100s; wakes not traced)", frames);
		return ADV_WORD_EVENT;
	}
	if (adv_is_lock_wait(frames))
		snprintf(why, size, "%u threads wait on it in %.100s (wakes not traced)", fx->waiters, frames);
	else
		snprintf(why, size, "%u threads wait on it (how it is woken was not traced)", fx->waiters);
	return ADV_WORD_LOCK;
}

/*
 * What a word is used as, from what the kernel saw of its waits and wakes
 * (docs/ADVISOR.md, "How a futex word is used"): the function names of its
 * frames word the findings but decide nothing, so a stripped program, a
 * runtime without glibc or an unknown library gets the same verdict.
 */
enum adv_word_use adv_futex_use(const struct adv_futex *fx, char *why, size_t size)
{
	const char *frames = fx->runtime_frames[0] ? fx->runtime_frames : fx->name;
	double blocked = fx->blocked ? (double)fx->blocked : 1;
	double timed_out = (double)fx->outcome[SS_FUTEX_TIMEDOUT];
	struct adv_wakers w;

	why[0] = 0;
	if (fx->waiters < ADV_FUTEX_MIN_WAITERS) {
		snprintf(why, size, "%u thread waits on it: a lock needs at least %.0f that wait",
			 fx->waiters, ADV_FUTEX_MIN_WAITERS);
		return ADV_WORD_ONE_WAITER;
	}
	if (!fx->wake_pattern)
		return use_by_name(fx, frames, why, size);
	adv_futex_wakers(fx, &w);
	/* A round ends when one member wakes all the others, who go on. */
	if (fx->waiters >= 3 && w.fanout >= ADV_HERD_FANOUT &&
	    w.fanout >= ADV_BARRIER_ALL * (double)(fx->waiters - 1) &&
	    (w.by_waiters >= ADV_BARRIER_PEER_SHARE * w.wakes || (w.top && w.top->also_waits))) {
		snprintf(why, size, "each wake woke %.1f of its %u waiters, made by threads that wait on it too: rounds of a barrier",
			 w.fanout, fx->waiters);
		return ADV_WORD_BARRIER;
	}
	/* A broadcast whose woken threads mostly wait again before they
	 * have run: they were woken for nothing. */
	if (w.fanout >= ADV_HERD_FANOUT && w.reblocked >= ADV_HERD_REBLOCK) {
		snprintf(why, size, "each wake woke %.1f waiters and %.0f%% of them waited again at once",
			 w.fanout, 100 * w.reblocked);
		return ADV_WORD_HERD;
	}
	if (fx->holders && fx->nholders && w.by_waiters >= ADV_LOCK_WAKER_SHARE * w.wakes &&
	    timed_out < ADV_EVENT_TIMEOUT_SHARE * blocked) {
		snprintf(why, size, "%u threads wait on it and %.0f%% of its wakes that found waiters came from them: they hand it on, a lock",
			 fx->waiters, 100 * w.by_waiters / fmax(1, w.wakes));
		return ADV_WORD_LOCK;
	}
	if (timed_out >= ADV_EVENT_TIMEOUT_SHARE * blocked && w.by_waiters < ADV_LOCK_WAKER_SHARE * w.wakes) {
		snprintf(why, size, "%.0f%% of its waits ended by timeout and other threads woke it: timed waits for an event",
			 100 * timed_out / blocked);
		return ADV_WORD_EVENT;
	}
	/* The waits followed by a wake from the same thread on the same
	 * word (also all an older recording without release records has). */
	if ((double)fx->holder_wakes >= ADV_LOCK_WAKE_SHARE * blocked &&
	    timed_out < ADV_EVENT_TIMEOUT_SHARE * blocked) {
		snprintf(why, size, "%u threads wait on it and %llu of its wakes came from threads that had waited on it: held as a lock",
			 fx->waiters, (unsigned long long)fx->holder_wakes);
		return ADV_WORD_LOCK;
	}
	snprintf(why, size, "no thread held it as a lock: %.0f of its %.0f wakes that found waiters came from a thread that waits on it%s",
		 w.by_waiters, w.wakes,
		 (double)fx->bitset_waits >= ADV_BITSET_SHARE * (double)fx->waits ?
		 ", and its waits are FUTEX_WAIT_BITSET (glibc's condition variable, semaphore and join)" : "");
	return ADV_WORD_EVENT;
}

/* The time a lock's waiters lost in wait calls that returned at once: a
 * lock handed over faster than a futex call costs them the calls, not
 * sleep. Each call is measured with part of spinscope's own work inside
 * it, so the host's untraced futex call stands in when it is known and
 * cheaper; otherwise the time as measured. */
static double at_once_time_ns(const struct adv_futex *fx, double futex_call_ns)
{
	double calls = (double)fx->returned_at_once, measured = (double)fx->at_once_ns;

	if (futex_call_ns > 0 && calls * futex_call_ns < measured)
		return calls * futex_call_ns;
	return measured;
}

static void rank_locks(const struct adv_profile *p, double futex_call_ns, struct adv_metrics *m)
{
	for (size_t i = 0; p->futexes && i < p->nfutexes; i++) {
		const struct adv_futex *fx = &p->futexes[i];
		double waiters = fx->waiters ? fx->waiters : 1;
		struct adv_hot_lock h = {
			.fx = fx,
			.blocked_share = fmin(1.0, (double)fx->wait_ns / (waiters * m->dur_ns)),
			.at_once_share_time = fmin(1.0, at_once_time_ns(fx, futex_call_ns) /
						   (waiters * m->dur_ns)),
			.rate = (double)fx->blocked / m->dur_s,
			.at_once_share = fx->waits ? (double)fx->returned_at_once / (double)fx->waits : 0,
		};
		size_t at;

		h.share = fmin(1.0, h.blocked_share + h.at_once_share_time);

		struct adv_lock_words lw;

		/* The Go scheduler parking its idle threads is not the
		 * program's lock (runtime.c): never contention. */
		adv_runtime_word_futex(p, fx, &lw);
		if (lw.runtime_internal)
			continue;
		if (fx->blocked < ADV_FUTEX_MIN_WAITS || h.rate < ADV_FUTEX_MIN_RATE ||
		    (double)fx->wakes < ADV_FUTEX_WAKE_RATIO * (double)fx->blocked ||
		    h.share < ADV_FUTEX_MIN_SHARE ||
		    adv_futex_use(fx, h.why, sizeof(h.why)) != ADV_WORD_LOCK)
			continue;
		/* The frames agree (wording, and a little confidence). */
		h.named_lock = adv_is_lock_wait(fx->runtime_frames[0] ? fx->runtime_frames : fx->name);
		h.median_ns = adv_hist_quantile(fx->hist, SS_HIST_SLOTS, 0.5);
		h.p90_ns = adv_hist_quantile(fx->hist, SS_HIST_SLOTS, 0.9);
		if (!h.median_ns)	/* no histogram: the mean stands in */
			h.median_ns = h.p90_ns = (double)fx->wait_ns / (double)fx->blocked;
		/* Interpolating inside a log2 slot can pass the largest wait
		 * measured ("p90 47.5 ms, max 44 ms"): no quantile exceeds it. */
		if (fx->wait_ns_max) {
			h.median_ns = fmin(h.median_ns, (double)fx->wait_ns_max);
			h.p90_ns = fmin(h.p90_ns, (double)fx->wait_ns_max);
		}
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

static void find_spin_loop(const struct adv_profile *p, struct adv_metrics *m)
{
	const struct adv_samples *s = &p->samples;

	if (!s->available || !s->total)
		return;
	for (size_t i = 0; p->spin_loops && i < p->nspin_loops; i++) {
		const struct adv_spin_loop *l = &p->spin_loops[i];
		double share = fmin(1.0, (double)l->samples / (double)s->total);

		if ((double)l->samples < ADV_SPIN_LOOP_MIN_SAMPLES || share < ADV_SPIN_LOOP_SHARE)
			continue;
		if (!m->spin_loop || share > m->spin_loop_share) {
			m->spin_loop = l;
			m->spin_loop_share = share;
		}
	}
}

/* How often one, and two or more, of the target's threads were on a CPU. */
static void concurrency(const struct adv_profile *p, struct adv_metrics *m)
{
	double all = 0, one_plus = 0, two_plus = 0;

	for (int k = 0; k < SS_CONC_SLOTS; k++) {
		double t = (double)p->running_ns[k];

		all += t;
		if (k >= 1)
			one_plus += t;
		if (k >= 2)
			two_plus += t;
	}
	if (all <= 0)
		return;
	m->conc_measured = true;
	m->conc_busy = one_plus / all;
	m->conc_parallel = one_plus > 0 ? two_plus / one_plus : 0;
}

/* Other processes' load, and how much of the target's demand is its own. */
static void host_load(const struct adv_profile *p, struct adv_metrics *m)
{
	const struct adv_host_load *hl = &p->host_load;
	double own;

	m->own_demand = m->demand;
	if (!hl->measured || !hl->cpus)
		return;
	m->host_cpus = hl->cpus;
	m->busy_other_cpus = fmin(hl->busy_other_cpus, hl->cpus);
	m->host_busy = m->busy_other_cpus >= ADV_HOST_BUSY_SHARE * hl->cpus;
	if (!m->host_busy)
		return;
	/* Queued time split in proportion to who used the CPUs. */
	own = m->cpu_used / fmax(1e-9, m->cpu_used + m->busy_other_cpus);
	m->own_demand = m->cpu_used + own * (m->demand - m->cpu_used);
}

void adv_metrics__compute(const struct adv_profile *p, double futex_call_ns, struct adv_metrics *m)
{
	const struct adv_counters *t = &p->totals;

	memset(m, 0, sizeof(*m));
	m->dur_ns = (double)p->duration_ns;
	m->dur_s = m->dur_ns / 1e9;
	m->ncpus = p->ncpus ? p->ncpus : 1;
	m->cpu_used = (double)t->oncpu_ns / m->dur_ns;
	m->demand = (double)(t->oncpu_ns + t->runq_ns) / m->dur_ns;
	count_threads(p, m);
	host_load(p, m);
	/* With a busy host, threads queue behind other processes too: count
	 * the target as oversubscribed only on its own share of the demand. */
	/* Threads runnable nearly all the time want a CPU whoever else runs
	 * (spinners, computers); one runnable half the time may only be
	 * queued behind the others. */
	if (m->host_busy)
		m->oversubscribed = m->own_demand > ADV_DEMAND_OVER * m->ncpus ||
				    m->saturated > m->ncpus;
	else
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
		m->runq_max_ns = (double)t->runq_ns_max;
		m->runq_p90_ns = fmin(adv_hist_quantile(t->runq_hist, SS_HIST_SLOTS, 0.9),
				      m->runq_max_ns ? m->runq_max_ns : INFINITY);
	}
	rank_locks(p, futex_call_ns, m);
	find_spin_loop(p, m);
	concurrency(p, m);
}

bool adv_metrics__heavy(const struct adv_metrics *m)
{
	return m->runnable > m->ncpus || m->demand > m->ncpus;
}

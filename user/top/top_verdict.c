// SPDX-License-Identifier: GPL-2.0
/*
 * One process's verdict: a struct adv_profile from what the scheduler saw
 * (per-thread times and counts, blocked futex waits per word, yields that
 * switched, wakes that woke a waiter), the advisor run on it with no host
 * calibration, and the most severe finding whose evidence this data can
 * carry. The rest need what only `spinscope -p` records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "advisor/advisor.h"
#include "advisor/metrics.h"
#include "common/sort.h"
#include "common/names.h"
#include "top_verdict.h"


/* Every rule of advisor.c, and why top cannot back it where it cannot:
 * one table, so a new rule must say which it is. */
static const struct {
	const char *id;
	const char *needs;	/* NULL: the scheduler-only data supports it */
} rule_support[] = {
	{ "spin-yield", NULL },
	{ "spin-loop", "the sampled stacks of the spinning code" },
	{ "futex-contention", NULL },
	{ "blocking-under-lock", "the blocking system calls made while a lock is held" },
	{ "wake-herd", "each wake call's waiters woken (top estimates the fan-out)" },
	{ "barrier-imbalance", "each wake call's waiters woken (top estimates the fan-out)" },
	{ "serialization", "how many threads ran at once" },
	{ "oversubscription", NULL },
	{ "false-sharing", "sampled data addresses" },
	{ "true-sharing", "sampled data addresses" },
	{ "spin-hint", "the sampled spin loops and the host's calibration" },
	{ "numa-placement", "the process's memory placement" },
	{ "memory-order", "the sampled fences and the host's calibration" },
	{ "jvm-runtime", "the JVM's own frames" },
	{ "host-busy", "a finding about the host, not one process" },
};

#define NRULES (sizeof(rule_support) / sizeof(rule_support[0]))

const char *top_verdict_needs_trace(const char *id)
{
	for (size_t i = 0; i < NRULES; i++)
		if (!strcmp(rule_support[i].id, id))
			return rule_support[i].needs;
	return "a rule top does not know";
}

const char *const *top_verdict_trace_only(size_t *n)
{
	static const char *ids[NRULES];
	size_t k = 0;

	for (size_t i = 0; i < NRULES; i++)
		if (rule_support[i].needs)
			ids[k++] = rule_support[i].id;
	*n = k;
	return ids;
}

static void thread_counters(const struct top_thread *t, struct adv_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->sched_yield = t->yields;
	c->futex_wait = c->futex_blocked = t->futex_waits;
	c->futex_wait_ns = t->futex_wait_ns;
	c->futex_wake = t->futex_wakes;
	c->futex_woken = t->futex_woken;
	c->switches_voluntary = t->switches_voluntary;
	c->switches_involuntary = t->switches_involuntary;
	c->oncpu_ns = t->oncpu_ns;
	c->runq_ns = t->runq_ns;
	c->runq_count = t->runq_count;
}

/*
 * A word as the advisor reads it. Who woke it, the advisor reads from its
 * holders: top keeps no list per thread, so two stand in, the wakes made
 * by threads that also waited on it and those made by others, which is
 * what adv_futex_use() weighs (adv_futex_wakers()).
 */
static void word_futex(const struct top_word *w, struct adv_futex *fx, struct adv_holder holders[2])
{
	memset(fx, 0, sizeof(*fx));
	memset(holders, 0, 2 * sizeof(*holders));
	fx->uaddr = w->uaddr;
	fx->waits = fx->blocked = w->waits;
	fx->wait_ns = w->wait_ns;
	fx->wakes = w->wakes;
	fx->woken = w->woken;
	fx->reblocked = w->reblocked;
	fx->outcome[SS_FUTEX_WOKEN] = w->woken_waits;
	fx->waiters = w->waiters;
	fx->wake_pattern = true;
	holders[0] = (struct adv_holder){ .releases = w->wakes_by_waiters, .also_waits = true };
	holders[1] = (struct adv_holder){ .releases = w->wakes - w->wakes_by_waiters };
	fx->holders = holders;
	fx->nholders = w->wakes ? 2 : 0;
}

/* Marks each word lock or event and sums p's waits by kind. */
static void split_waits(struct top_proc *p, const struct top_verdict_input *in, struct adv_futex *fx,
			struct adv_holder (*holders)[2])
{
	char why[ADV_VALUE_LEN];

	p->lock_wait_ns = p->event_wait_ns = p->lock_waits = p->event_waits = 0;
	for (size_t i = 0; i < in->nwords; i++) {
		struct top_word *w = &in->words[i];

		word_futex(w, &fx[i], holders[i]);
		w->lock = adv_futex_use(&fx[i], why, sizeof(why)) == ADV_WORD_LOCK;
		if (w->lock) {
			p->lock_wait_ns += w->wait_ns;
			p->lock_waits += w->waits;
		} else {
			p->event_wait_ns += w->wait_ns;
			p->event_waits += w->waits;
		}
	}
}

static void profile_of(const struct top_proc *p, const struct top_verdict_input *in, struct adv_profile *prof,
		       struct adv_thread *threads, size_t nthreads, const struct adv_futex *fx, size_t nfx)
{
	memset(prof, 0, sizeof(*prof));
	prof->duration_ns = in->interval_ns;
	prof->ncpus = p->cpus_allowed ? p->cpus_allowed : in->host_cpus;
	prof->target.pid = p->pid;
	memcpy(prof->target.comm, p->comm, sizeof(prof->target.comm) < sizeof(p->comm) ?
	       sizeof(prof->target.comm) : sizeof(p->comm));
	prof->target.comm[sizeof(prof->target.comm) - 1] = 0;
	prof->target.nthreads = p->nthreads;
	prof->target.runtime = ADV_RT_UNKNOWN;
	for (size_t i = 0; i < nthreads; i++) {
		threads[i].tid = in->threads[i].tid;
		memcpy(threads[i].comm, in->threads[i].comm, sizeof(threads[i].comm));
		thread_counters(&in->threads[i], &threads[i].c);
	}
	prof->threads = nthreads ? threads : NULL;
	prof->nthreads = nthreads;
	prof->totals.sched_yield = p->yields;
	prof->totals.futex_wait = prof->totals.futex_blocked = p->futex_waits_all;
	prof->totals.futex_wait_ns = p->futex_wait_ns_all;
	prof->totals.futex_wake = p->wakes;
	prof->totals.futex_woken = p->woken;
	prof->totals.switches_voluntary = p->switches_voluntary;
	prof->totals.switches_involuntary = p->switches_involuntary;
	prof->totals.oncpu_ns = p->oncpu_ns;
	prof->totals.runq_ns = p->runq_ns;
	prof->totals.runq_count = p->runq_count;
	prof->futexes = fx;
	prof->nfutexes = nfx;
}

/* The first (most severe) finding top can back; needs_full_trace when
 * one it cannot fired too. */
static void choose(struct top_proc *p, const struct adv_report *r)
{
	const struct adv_finding *chosen = NULL;

	p->verdict[0] = p->verdict_summary[0] = 0;
	p->verdict_severity = 0;
	p->needs_full_trace = false;
	/* Samples at a spin-wait hint: where the loop is and what its hint
	 * costs here are -p's (spin-loop, spin-hint). */
	p->needs_full_trace = p->spin_samples > 0;
	for (size_t i = 0; i < r->n; i++) {
		if (top_verdict_needs_trace(r->findings[i].id))
			p->needs_full_trace = true;
		else if (!chosen)
			chosen = &r->findings[i];
	}
	if (!chosen)
		return;
	snprintf(p->verdict, sizeof(p->verdict), "%s", chosen->id);
	ss_name_clean(p->verdict_summary, sizeof(p->verdict_summary), chosen->title, sizeof(chosen->title));
	p->verdict_severity = (int)chosen->severity + 1;	/* 0 stays "none" */
}

static int by_wait_desc(const void *a, const void *b)
{
	const struct top_word *x = a, *y = b;

	return x->wait_ns > y->wait_ns ? -1 : x->wait_ns < y->wait_ns;
}

int top_verdict_apply(struct top_proc *p, const struct top_verdict_input *in, struct top_verdict_scratch *s)
{
	static const struct adv_host no_host;
	struct top_verdict_input cut;
	struct adv_profile prof;

	if (!p || !in || !s || !in->interval_ns)
		return -EINVAL;
	cut = *in;
	if (cut.nwords > TOP_MAX_VERDICT_WORDS) {
		ss_sort(in->words, in->nwords, sizeof(*in->words), by_wait_desc);
		cut.nwords = TOP_MAX_VERDICT_WORDS;
	}
	if (cut.nthreads > TOP_MAX_VERDICT_THREADS)
		cut.nthreads = 0;	/* its totals stand in */
	split_waits(p, &cut, s->fx, s->holders);
	/* Words past the table: their waits count as event waits, never as
	 * a lock they were not shown to be. */
	for (size_t i = cut.nwords; i < in->nwords; i++) {
		in->words[i].lock = false;
		p->event_wait_ns += in->words[i].wait_ns;
		p->event_waits += in->words[i].waits;
	}
	profile_of(p, &cut, &prof, s->threads, cut.nthreads, s->fx, cut.nwords);
	if (advisor__run(&prof, &no_host, &s->report))
		return -EINVAL;
	choose(p, &s->report);
	return 0;
}

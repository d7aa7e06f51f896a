// SPDX-License-Identifier: GPL-2.0
/*
 * rule_serialization.c: threads that take turns. Several threads have work
 * (each on a CPU a good part of the trace) and the process always wants a
 * CPU, yet two of its threads are rarely on a CPU at once: the others are
 * blocked in futex waits for the one that runs. An interpreter lock (the
 * GIL), a global lock or a hand-off pipeline does that; the scheduler's
 * concurrency record (ss_concurrency, bpf/trace.h) measures it on a busy
 * host too, where the threads would otherwise queue for CPUs instead. The
 * word they wait on must be one they hand to each other: consumers that
 * wait for a producer's items wait for it, they do not take turns.
 * When a contended lock already explains the waits it is that finding's
 * subject, and this one says nothing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "format.h"
#include "rules.h"
#include "runtime.h"

/* The word its threads waited on longest, among those handed on by their
 * own waiters (a lock, an interpreter lock): a word another thread
 * signals (a queue's consumers waiting for its producer) makes them wait
 * for that thread, not take turns. NULL where none is. */
static const struct adv_futex *serializing_word(const struct adv_profile *p, double *handed_ns)
{
	const struct adv_futex *best = NULL;

	*handed_ns = 0;
	for (size_t i = 0; p->futexes && i < p->nfutexes; i++) {
		const struct adv_futex *fx = &p->futexes[i];
		struct adv_wakers w;

		if (fx->waiters < ADV_FUTEX_MIN_WAITERS)
			continue;
		adv_futex_wakers(fx, &w);
		if (!(w.wakes > 0 && w.by_waiters >= ADV_LOCK_WAKER_SHARE * w.wakes))
			continue;
		/* All of them: glibc's condition variable alone waits on two
		 * words (its two groups), taking turns. */
		*handed_ns += (double)fx->wait_ns;
		if (!best || fx->wait_ns > best->wait_ns)
			best = fx;
	}
	return best;
}

bool adv_rule_serialization(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_profile *p = ctx->p;
	const struct adv_metrics *m = &ctx->m;
	double active = 0, oncpu_ns = 0, handed_ns, wait_share, ran_as;
	const struct adv_futex *word;
	struct adv_lock_words lw;
	char name[ADV_NAME_LEN];

	if (!m->conc_measured || m->ncpus < 2 || !p->threads)
		return false;
	if (m->nhot && m->hot[0].share >= ADV_LOCK_WARN_SHARE)
		return false;	/* futex-contention's subject */
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct adv_counters *c = &p->threads[i].c;

		if ((double)c->oncpu_ns < ADV_SERIAL_MIN_ACTIVE * m->dur_ns)
			continue;
		active++;
		oncpu_ns += (double)c->oncpu_ns;
	}
	if (active < 2)
		return false;
	if (m->demand < ADV_SERIAL_BUSY || m->conc_parallel > ADV_SERIAL_PARALLEL)
		return false;
	/* Their waits on words they hand to each other; none: they wait for
	 * another thread's events. A barrier's or a herd's waits are their
	 * own findings' subject. */
	word = serializing_word(p, &handed_ns);
	wait_share = fmin(1.0, handed_ns / (active * m->dur_ns));
	if (!word || wait_share < ADV_SERIAL_WAIT_SHARE)
		return false;
	{
		char why[ADV_VALUE_LEN];
		enum adv_word_use use = adv_futex_use(word, why, sizeof(why));

		if (use == ADV_WORD_BARRIER || use == ADV_WORD_HERD)
			return false;
	}
	adv_word_name(ctx->p, word, name, sizeof(name));
	adv_word_words(p, word, &lw);
	adv_python_place(p, name, sizeof(name));
	/* The Go scheduler parking idle threads takes no turns for the
	 * program: its goroutines' locks are the runtime's to show. */
	if (lw.runtime_internal)
		return false;
	ran_as = oncpu_ns / m->dur_ns;
	adv_finding__init(f, ADV_WARNING,
			  "Serialization: %.0f threads with work ran one at a time (two at once %s of the time), waiting on %.90s",
			  active, adv_fmt_pct(m->conc_parallel).s, name);
	adv_finding__evidence(f, ADV_SRC_TARGET, "threads with work", "%.0f, each on a CPU %s of the trace or more",
			      active, adv_fmt_pct(ADV_SERIAL_MIN_ACTIVE).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "on a CPU together", "two or more in %s of the time any was (%u CPUs)",
			      adv_fmt_pct(m->conc_parallel).s, m->ncpus);
	adv_finding__evidence(f, ADV_SRC_TARGET, "their time waiting for each other", "%s, in futex waits on words they hand on", adv_fmt_pct(wait_share).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "CPU used", "%.2f CPUs by those threads, of %u", ran_as, m->ncpus);
	adv_finding__evidence(f, ADV_SRC_TARGET, "waited on most", "%.140s", name);
	adv_python_evidence(p, &lw, f);
	if (m->host_busy)
		adv_finding__evidence(f, ADV_SRC_HOST, "other processes", "%.2f CPUs busy: they queue behind those, but block on each other",
				      m->busy_other_cpus);
	if (lw.kind[0])
		adv_finding__recommend(f, "%s", lw.fix);
	else
		adv_finding__recommend(f, "Find what lets one thread run at a time (the word above) and split it: a lock per shard, per-thread data merged later, or fewer threads if the work cannot run in parallel.");
	f->confidence = adv_clamp01(0.55 + 0.4 * (1 - m->conc_parallel / ADV_SERIAL_PARALLEL) * fmin(1.0, wait_share / 0.5));
	return true;
}

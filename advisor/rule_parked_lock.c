// SPDX-License-Identifier: GPL-2.0
/*
 * rule_parked_lock.c: a lock whose waiters park each on a word of its own
 * (parking.h): java.util.concurrent's ReentrantLock (each thread's
 * Parker), Go's sync.Mutex (the thread of a goroutine that blocked on it
 * sleeps on its own note), queued locks. No word has two waiters, so the
 * futex-contention rule sees none; the words waited on from one place and
 * woken by the threads that wait there too are one lock handed on, graded
 * by its waiters' time blocked as a contended lock is.
 */
#include <math.h>
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "metrics.h"
#include "parking.h"
#include "rules.h"
#include "runtime.h"

bool adv_rule_parked_lock(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;
	struct adv_parking g;
	struct adv_lock_words lw;
	char name[ADV_NAME_LEN];
	enum adv_severity sev;
	bool one_at_a_time;
	double parked, taking = 0, share, rate;

	if (!adv_parking_lock(ctx->p, &g) || !(m->dur_ns > 0))
		return false;
	rate = g.blocked / m->dur_s;
	parked = fmin(1.0, g.wait_ns / (g.threads * m->dur_ns));
	/* Time on a CPU in the call they park from is spent taking the lock
	 * (adaptive locks spin there before parking): a waiter that spins
	 * longer parks less, and it is the same wait. */
	if (g.acquire_samples >= ADV_LOCK_ACQUIRE_MIN_SAMPLES)
		taking = fmin(1.0 - parked, g.acquire_ns / (g.threads * m->dur_ns));
	share = parked + taking;
	if (g.blocked < ADV_FUTEX_MIN_WAITS || rate < ADV_FUTEX_MIN_RATE || share < ADV_FUTEX_MIN_SHARE)
		return false;
	adv_word_name(ctx->p, g.word, name, sizeof(name));
	adv_word_words(ctx->p, g.word, &lw);
	/* Go's idle threads waking each other (a goroutine parked on a
	 * channel, not a lock) are its scheduler's, not the program's lock */
	if (lw.runtime_internal)
		return false;
	/* Threads that want CPUs but run one at a time (rule_serialization's
	 * measure) lose CPUs to it whatever their own share parked: Go's
	 * threads spin and queue for CPUs between their parks. */
	one_at_a_time = m->conc_measured && m->ncpus >= 2 && m->demand >= ADV_SERIAL_BUSY &&
			m->conc_parallel <= ADV_SERIAL_PARALLEL;
	sev = share >= ADV_LOCK_CRIT_SHARE ? ADV_CRITICAL :
	      share >= ADV_LOCK_WARN_SHARE || one_at_a_time ? ADV_WARNING : ADV_INFO;
	/* "wait": parked or spinning, as the evidence splits it */
	adv_finding__init(f, sev, "Lock contention: %u threads %s in turn, %s of their time, on %.100s",
			  g.threads, taking > 0 ? "wait" : "park", adv_fmt_pct(share).s, name);
	adv_finding__evidence(f, ADV_SRC_TARGET, "lock", "%.140s", name);
	adv_finding__evidence(f, ADV_SRC_TARGET, "why a lock",
			      "each of %u threads parks on a word of its own (%u words), and %s of their wakes came from the others that park there: they hand it on",
			      g.threads, g.words, adv_fmt_pct(g.by_waiters / g.wakes).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "blocked waits", "%s (%s), %s in all",
			      adv_fmt_count(g.blocked).s, adv_fmt_rate(rate, "").s, adv_fmt_ns(g.wait_ns).s);
	if (taking > 0)
		adv_finding__evidence(f, ADV_SRC_TARGET, "waiters' time taking it",
				      "%s: %s parked, %s on a CPU in the same call (%s samples there: a spin before parking, or the call's own work)",
				      adv_fmt_pct(share).s, adv_fmt_pct(parked).s, adv_fmt_pct(taking).s,
				      adv_fmt_count(g.acquire_samples).s);
	else
		adv_finding__evidence(f, ADV_SRC_TARGET, "waiters' time parked", "%s", adv_fmt_pct(share).s);
	if (one_at_a_time)
		adv_finding__evidence(f, ADV_SRC_TARGET, "on a CPU together",
				      "two or more of its threads in %s of the time any was, wanting %.1f CPUs: it runs them one at a time",
				      adv_fmt_pct(m->conc_parallel).s, m->demand);
	adv_jvm_guess_evidence(&lw, f);
	if (lw.note[0])
		adv_finding__evidence(f, ADV_SRC_TARGET, "note", "%s", lw.note);
	if (lw.kind[0])
		adv_finding__recommend(f, "%s", lw.fix);
	else
		adv_finding__recommend(f, "Shorten the section the lock guards, split it by data (a lock per shard), or use atomics for counters.");
	/* Fewer waits, less sure; a lock the stacks do not name, less sure. */
	f->confidence = adv_clamp01(0.55 + 0.3 * fmin(1.0, log10(g.blocked) / 3.0) - (g.word->user_named ? 0 : 0.1));
	return true;
}

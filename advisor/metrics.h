/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Figures derived once from the profile and shared by the rules: rates per
 * second and per thread, shares of the trace's time, who spins on
 * sched_yield, how many threads want a CPU, the contended locks and their
 * wait distributions. The thresholds that decide what counts as spinning,
 * busy, runnable or contended live here, each with the reason for its value.
 */
#ifndef SPINSCOPE_ADV_METRICS_H
#define SPINSCOPE_ADV_METRICS_H

#include <stdbool.h>
#include "advisor.h"
#include "thresholds.h"

/* The thresholds are in thresholds.h; docs/ADVISOR.md gives each its
 * reason. In short: a thread on CPU for ADV_BUSY_SHARE of the trace is
 * busy; runnable for ADV_RUNNABLE_SHARE it wants a CPU most of the time
 * (more such threads than CPUs, or demand over ADV_DEMAND_OVER x CPUs, is
 * oversubscription). A yield spinner yields ADV_YIELD_RATE_MIN times a
 * second, or ADV_YIELD_RATE_SWITCHING when yields are most of its switches,
 * and is runnable most of the trace (a thread that sleeps between yields
 * does not spin). A futex word is a contended lock when it is used as a
 * lock (adv_futex_use) and its blocked waits pass ADV_FUTEX_MIN_WAITS,
 * ADV_FUTEX_MIN_RATE, ADV_FUTEX_WAKE_RATIO and ADV_FUTEX_MIN_SHARE. */
#define ADV_MAX_HOT 3

/* What a futex word is used as, from the evidence the trace has. */
enum adv_word_use {
	ADV_WORD_LOCK = 0,	/* its waiters hand it on to each other */
	ADV_WORD_EVENT,		/* threads wait on it for an event: idle */
	ADV_WORD_ONE_WAITER,	/* one thread waits on it: nothing to contend with */
	ADV_WORD_HERD,		/* broadcasts whose woken mostly wait again at once */
	ADV_WORD_BARRIER,	/* rounds: a member wakes all the others */
};

/* Who woke a word, from its holders (the threads whose wakes found
 * waiters) and release sites. */
struct adv_wakers {
	double wakes;		/* wakes that found waiters */
	double woken;		/* waiters they woke */
	double by_waiters;	/* of wakes, made by threads that also waited on it */
	double fanout;		/* woken per wake that found waiters */
	double reblocked;	/* share of its woken waits that waited again at once */
	uint32_t threads;	/* distinct wakers */
	const struct adv_holder *top;	/* the thread that woke it most */
};

void adv_futex_wakers(const struct adv_futex *fx, struct adv_wakers *w);
/* A word as findings name it: in the program's language where its
 * runtime's frames say what it is (runtime.h), "the GIL (CPython)" where
 * they are the interpreter's, else its name, or its address. */
void adv_word_name(const struct adv_profile *p, const struct adv_futex *fx, char *buf, size_t size);
struct adv_lock_words;
/* The words behind adv_word_name(): kind, function, the runtime's fix. */
void adv_word_words(const struct adv_profile *p, const struct adv_futex *fx, struct adv_lock_words *lw);
struct adv_finding;
/* The evidence a finding gives for lw.guess (the JVM's likely Java method),
 * when there is one. */
void adv_jvm_guess_evidence(const struct adv_lock_words *lw, struct adv_finding *f);
/* For CPython (or the GIL): the Python functions its threads ran
 * (adv_target.python_functions), or why they are not named. */
void adv_python_evidence(const struct adv_profile *p, const struct adv_lock_words *lw, struct adv_finding *f);
/* Appends ", running crunch (gil_threads.py)", the Python function its
 * threads ran most, to a word's name, where CPython's frames were read. */
void adv_python_place(const struct adv_profile *p, char *name, size_t size);
struct adv_metrics;
/* Its waiters' time blocked on it, as a share of theirs (0..1). */
double adv_word_wait_share(const struct adv_futex *fx, const struct adv_metrics *m);

struct adv_hot_lock {
	const struct adv_futex *fx;
	/* Of its waiters' time: in its futex waits (blocked plus at once),
	 * and in those that blocked. */
	double share;
	double blocked_share;
	double at_once_share_time;	/* in calls that returned at once */
	double rate;		/* waits per second */
	double median_ns;	/* blocked waits, from the wait histogram */
	double p90_ns;
	double at_once_share;	/* wait calls that returned at once (EAGAIN) */
	bool named_lock;	/* the waiters' frames say lock, not just the wake pattern */
	char why[ADV_VALUE_LEN];	/* why it is taken for a lock */
};

struct adv_metrics {
	double dur_ns, dur_s;
	uint32_t ncpus;			/* at least 1 */
	double nthreads;		/* threads counted */
	double cpu_used;		/* CPUs' worth of on-CPU time */
	double demand;			/* average runnable threads: on CPU + queued */
	double busy;			/* threads on CPU >= ADV_BUSY_SHARE */
	double runnable;		/* threads runnable >= ADV_RUNNABLE_SHARE */
	double saturated;		/* threads runnable >= ADV_SATURATED_SHARE */
	/* The host: other processes busy on ADV_HOST_BUSY_SHARE of its CPUs
	 * or more. Run-queue time then is partly theirs: own_demand counts
	 * only the target's share of it (its on-CPU time against theirs). */
	bool host_busy;
	double host_cpus, busy_other_cpus;
	double own_demand;
	bool oversubscribed;		/* by the target's own threads */

	/* Threads yielding at >= ADV_YIELD_RATE_MIN. */
	double spinners;
	char spinner_comm[SS_COMM_LEN];
	double spin_yields, spin_switches, spin_oncpu_ns;
	double spin_rate;		/* yields per second per spinner */
	double yields_per_switch;
	double burst_ns;		/* spinners' on-CPU time per switch */
	double spin_cpu;		/* CPUs' worth of time the spinners ran */
	const struct adv_yield_site *top_site;	/* busiest yield call site */

	double invol_rate;		/* involuntary switches per second, all threads */
	double preempt_rate;		/* of those, not explained by yields (a floor) */
	double runq_mean_ns, runq_p90_ns, runq_max_ns;

	/* The sampled spin loop (a spin-wait hint in a loop) holding at least
	 * ADV_SPIN_LOOP_SHARE of the samples; NULL when none does. */
	const struct adv_spin_loop *spin_loop;
	double spin_loop_share;

	struct adv_hot_lock hot[ADV_MAX_HOT];	/* contended locks, largest share first */
	size_t nhot;

	/* The running-threads histogram (adv_profile.running_ns): shares
	 * of the trace with one or more, and of that with two or more, of
	 * the target's threads on a CPU; measured false where none. */
	bool conc_measured;
	double conc_busy, conc_parallel;
};

/* Most of the lock's wait calls returned at once (ADV_AT_ONCE_HOT): it
 * changes hands faster than a futex call, and its blocked waits measure
 * the scheduler rather than the lock. */
static inline bool adv_hot_word(const struct adv_hot_lock *hl)
{
	return hl->at_once_share >= ADV_AT_ONCE_HOT;
}

/* Fills m from p; p->duration_ns must be > 0. futex_call_ns: an untraced
 * futex call on this host (0: not measured), what each wait that returned
 * at once is taken to cost. */
void adv_metrics__compute(const struct adv_profile *p, double futex_call_ns, struct adv_metrics *m);
/* Value below which a fraction q of a log2 histogram's entries lie
 * (linear within the slot); 0 for an empty histogram. */
double adv_hist_quantile(const uint64_t *hist, size_t slots, double q);
/* True when a lock name's innermost synchronisation frame waits for an
 * event (condition variable, semaphore, join, barrier) rather than a lock. */
bool adv_is_event_wait(const char *name);
/* True when it is a lock's wait (mutex, rwlock, lll_lock). */
bool adv_is_lock_wait(const char *name);
/* What fx is used as, and why in words ("4 threads wait on it; 3.1k of its
 * wakes came from threads that had waited on it"). */
enum adv_word_use adv_futex_use(const struct adv_futex *fx, char *why, size_t size);
/* Contention level of the spin-threshold sweep this target is closest to:
 * heavy when it is oversubscribed, light otherwise. */
bool adv_metrics__heavy(const struct adv_metrics *m);

#endif

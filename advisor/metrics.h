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

/* A thread on CPU for at least this share of the trace is busy: two busy
 * threads run at the same time often enough to fight over cache lines,
 * while a thread on CPU under a tenth of the time rarely overlaps another. */
#define ADV_BUSY_SHARE 0.10
/* Runnable (on a CPU or queued for one) for at least half of the trace: such
 * a thread wants a CPU most of the time. More of them than CPUs is
 * oversubscription in the plainest sense. */
#define ADV_RUNNABLE_SHARE 0.50
/* Or, counted as time: the threads wanted, on average, a quarter more CPUs
 * than they may use. The margin keeps the edges of the accounting (a thread
 * caught mid-switch at the start or end) from tipping a balanced load. */
#define ADV_DEMAND_OVER 1.25
/* Yields per second per thread from which a thread spins on sched_yield.
 * Code that yields once per unit of real work yields a few times a second;
 * 1000/s is a yield at least every millisecond, which only a wait loop does. */
#define ADV_YIELD_RATE_MIN 1000.0
/* With more runnable threads than CPUs each yield switches away and waits
 * its turn, which caps the rate far below that (a 2-CPU host with 8 busy
 * threads: ~60/s per thread). A thread is a yield spinner there too when
 * most of its switches are yields and it still yields 50 times a second
 * (code that yields once per unit of work also blocks, so yields are not
 * most of its switches). */
#define ADV_YIELD_RATE_SWITCHING 50.0
#define ADV_YIELD_SWITCH_SHARE 0.5

/* A futex address is a contended lock when all of these hold:
 * - at least 20 waits, at least 10 per second: fewer is a handful of
 *   sleeps (pthread_join, a timer), too few to speak of contention;
 * - woken by other threads for at least a quarter of its waits: every
 *   contended unlock wakes a waiter, while a wait that only times out (a
 *   timed sleep on a futex) has no waker;
 * - its waiters spent at least 5% of their time blocked on it: below that,
 *   removing the lock entirely would gain them under 5% (Amdahl);
 * - it is not named as an event wait (condition variable, semaphore,
 *   join, barrier): a thread waiting for work is idle, not contended. */
#define ADV_FUTEX_MIN_WAITS 20
#define ADV_FUTEX_MIN_RATE 10.0
#define ADV_FUTEX_WAKE_RATIO 0.25
#define ADV_FUTEX_MIN_SHARE 0.05
#define ADV_MAX_HOT 3

struct adv_hot_lock {
	const struct adv_futex *fx;
	double share;		/* of its waiters' time spent blocked on it */
	double rate;		/* waits per second */
	double median_ns;	/* from the wait histogram */
	double p90_ns;
};

struct adv_metrics {
	double dur_ns, dur_s;
	uint32_t ncpus;			/* at least 1 */
	double nthreads;		/* threads counted */
	double cpu_used;		/* CPUs' worth of on-CPU time */
	double demand;			/* average runnable threads: on CPU + queued */
	double busy;			/* threads on CPU >= ADV_BUSY_SHARE */
	double runnable;		/* threads runnable >= ADV_RUNNABLE_SHARE */
	bool oversubscribed;

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

	struct adv_hot_lock hot[ADV_MAX_HOT];	/* contended locks, largest share first */
	size_t nhot;
};

/* Fills m from p; p->duration_ns must be > 0. */
void adv_metrics__compute(const struct adv_profile *p, struct adv_metrics *m);
/* Value below which a fraction q of a log2 histogram's entries lie
 * (linear within the slot); 0 for an empty histogram. */
double adv_hist_quantile(const uint64_t *hist, size_t slots, double q);
/* True when a lock name's innermost synchronisation frame waits for an
 * event (condition variable, semaphore, join, barrier) rather than a lock. */
bool adv_is_event_wait(const char *name);
/* Contention level of the spin-threshold sweep this target is closest to:
 * heavy when it is oversubscribed, light otherwise. */
bool adv_metrics__heavy(const struct adv_metrics *m);

#endif

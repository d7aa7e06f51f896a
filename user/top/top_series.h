/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's series (`spinscope top --metrics`): what each refresh's
 * deltas add to, and their Prometheus text. Pure: top_agent.c serves it.
 *
 * Labels are comm, container and unit, never the pid (a pid per series
 * would grow without bound as processes come and go): the processes that
 * share all three are one series, their figures summed. Cardinality is
 * bounded: each refresh, the top N label sets by lock wait, the top N by
 * spinning (yields that switched plus spin samples) and the top N by
 * run-queue delay (starved or oversubscribed: the oversubscription alert
 * needs them labelled) are labelled, the rest are added to one series labelled other="true" (an empty label is
 * no label to Prometheus, so queries tell it by that label alone).
 *
 * Counters are monotonic: the agent keeps each labelled series' totals
 * across refreshes. Memory is bounded too: a label set keeps its series
 * for TOP_SERIES_GRACE refreshes after it last made the top N (so one at
 * the edge of the ranking does not flap), at most TOP_SERIES_MAX(N) are
 * kept (the longest out of the top N goes first), and then it is dropped:
 * its figures go to "other" from then on, and its own series vanishes
 * (Prometheus marks it stale). Should it come back, its counters start
 * from 0: Prometheus sees a new series, which rate() and increase() read
 * as a counter reset, not as a negative rate. Dropping, not folding the
 * totals into "other", keeps "other" a plain sum of what was not labelled
 * each refresh; spinscope_top_series_dropped_total counts the drops.
 */
#ifndef SPINSCOPE_TOP_SERIES_H
#define SPINSCOPE_TOP_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "top_model.h"

#define TOP_SERIES_DEFAULT_N 20
#define TOP_SERIES_MAX_N 1000		/* --top-n's largest */
#define TOP_SERIES_GRACE 5		/* refreshes kept after leaving the top N */
/* 3N chosen a refresh at most, and room for 2N in their grace. */
#define TOP_SERIES_MAX(n) (5 * (size_t)(n))

/* The counters of a series, one list: the sums, the text and the tests
 * walk it. X(field, metric name, scale to the metric's unit, help). */
#define TOP_SERIES_COUNTERS(X)								\
	X(lock_wait_ns, "spinscope_top_lock_wait_seconds_total", 1e-9,			\
	  "Time the processes' threads spent blocked in futex waits on words used as locks.") \
	X(event_wait_ns, "spinscope_top_event_wait_seconds_total", 1e-9,		\
	  "Time the processes' threads spent blocked in futex waits for events (condition variables, queues).") \
	X(oncpu_ns, "spinscope_top_oncpu_seconds_total", 1e-9,				\
	  "Time the processes' threads ran on a CPU.")					\
	X(runq_ns, "spinscope_top_runq_seconds_total", 1e-9,				\
	  "Time the processes' threads waited in a run queue for a CPU.")		\
	X(yields, "spinscope_top_yields_total", 1.0,					\
	  "sched_yield calls that switched to another thread.")				\
	X(wakes, "spinscope_top_wakes_total", 1.0,					\
	  "Futex wake calls that found waiters.")					\
	X(woken, "spinscope_top_woken_total", 1.0,					\
	  "Waiters those wake calls woke (woken / wakes: the fan-out).")		\
	X(spin_samples, "spinscope_top_spin_samples_total", 1.0,			\
	  "CPU samples at a spin-wait hint (pause, isb, sb); 0 without sampling.")	\
	X(samples, "spinscope_top_samples_total", 1.0,					\
	  "CPU samples taken of the processes; 0 without sampling.")

enum top_counter {
#define TOP_COUNTER_ENUM(field, name, scale, help) TOP_C_##field,
	TOP_SERIES_COUNTERS(TOP_COUNTER_ENUM)
#undef TOP_COUNTER_ENUM
	TOP_NCOUNTERS
};

struct top_series {
	char comm[TOP_COMM_LEN];
	char container[TOP_CONTAINER_LEN];
	char unit[TOP_UNIT_LEN];
	uint64_t total[TOP_NCOUNTERS];	/* since the series began */
	/* Gauges, of the last refresh (0 when none of its processes was seen). */
	double runnable;		/* summed over its processes */
	uint32_t cpus_allowed;		/* summed over its processes */
	uint32_t threads, processes;
	char verdict[TOP_VERDICT_LEN];	/* its processes' most severe; "" none */
	int severity;
	unsigned long last_top;		/* the refresh it last made the top N */
};

struct top_series_set {
	unsigned int top_n;
	unsigned long refreshes;
	struct top_series *v;		/* labelled, sorted by label set */
	size_t n, cap;
	struct top_series other;	/* everything else, summed */
	uint64_t tracing_ns, self_cpu_ns, drops, dropped_series;
	uint64_t self_rss_kib;
	uint32_t host_cpus, host_processes, host_threads;
	/* Scratch, reused each refresh: the snapshot's label sets. */
	struct top_group *groups;
	size_t ngroups, gcap;
	const struct top_proc **order;
	size_t ocap;
};

void top_series_init(struct top_series_set *s, unsigned int top_n);
/* Adds one refresh's deltas. 0 or -ENOMEM (nothing half added). */
int top_series_update(struct top_series_set *s, const struct top_snapshot *snap);
/* The Prometheus text (format 0.0.4) into *buf (malloc'd). 0 or -errno. */
int top_series_render(const struct top_series_set *s, char **buf, size_t *len);
void top_series_free(struct top_series_set *s);

#endif

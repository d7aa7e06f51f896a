/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `spinscope top` measured about the host in one refresh interval:
 * one record per process (and, on request, per thread), the figures a
 * column, a JSON field, a metric or the verdict reads. Filled by
 * top_collect.c from bpf/top.bpf.c's maps and /proc; read by the
 * renderers (batch text, JSON, the live view, OpenMetrics) and by the
 * verdict (top_verdict.c). Data flows one way: collect -> model ->
 * verdict -> render. Times are nanoseconds within the interval; counts are
 * events within the interval (deltas, never totals since attach).
 */
#ifndef SPINSCOPE_TOP_MODEL_H
#define SPINSCOPE_TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOP_COMM_LEN 16		/* the kernel's TASK_COMM_LEN */
#define TOP_CONTAINER_LEN 80	/* "docker:3f2a9c0d1e7b", "k8s:pod/<uid>", "" on the host */
#define TOP_UNIT_LEN 80		/* "nginx.service", "" when none */
#define TOP_VERDICT_LEN 48	/* a finding id: "futex-contention" */
#define TOP_SUMMARY_LEN 200	/* the finding's headline, sanitised */

/* One futex word of one process in the interval, as the verdict's
 * wait classification (advisor/metrics.c adv_futex_use) needs it. */
struct top_word {
	uint64_t uaddr;
	uint64_t waits, wait_ns, blocked, wakes, woken, reblocked;
	uint64_t woken_waits;		/* of waits, ended by a futex wake seen (added by topcore) */
	uint32_t waiters;		/* distinct threads that waited on it */
	uint32_t wakers;		/* distinct threads whose wakes found waiters */
	uint64_t wakes_by_waiters;	/* of wakes, by threads that also waited on it */
	bool lock;			/* classified a lock (else an event wait) */
};

/* One thread of a process in the interval. */
struct top_thread {
	uint32_t tid;
	char comm[TOP_COMM_LEN];	/* sanitised */
	uint64_t oncpu_ns, runq_ns, runq_count;
	uint64_t switches_voluntary, switches_involuntary;
	uint64_t futex_waits, futex_wait_ns, futex_wakes, futex_woken;
	uint64_t yields;		/* sched_yield calls that switched */
	uint64_t samples, spin_samples;	/* with sampling on: all, and at a spin-wait hint */
};

struct top_proc {
	int32_t pid;
	uint64_t start_time;		/* /proc/PID/stat field 22: tells a reused pid apart */
	char comm[TOP_COMM_LEN];	/* sanitised */
	char container[TOP_CONTAINER_LEN];	/* sanitised; "" on the host */
	char unit[TOP_UNIT_LEN];	/* sanitised; "" when none */
	uint32_t nthreads;		/* threads seen in the interval */
	uint32_t cpus_allowed;		/* CPUs its affinity lets it use */

	uint64_t oncpu_ns, runq_ns, runq_count;
	uint64_t switches_voluntary, switches_involuntary;
	/* Blocked futex waits, split by the word's classification. */
	uint64_t lock_wait_ns, event_wait_ns;
	uint64_t lock_waits, event_waits;
	/* All blocked futex waits, whatever their word (added by topcore):
	 * lock + event is less where a word's record could not be kept. */
	uint64_t futex_waits_all, futex_wait_ns_all;
	uint64_t wakes, woken;		/* wake calls that found waiters, and the waiters they woke */
	uint64_t yields;
	uint64_t samples, spin_samples;
	double cpus_used;		/* oncpu_ns / interval */
	double runnable;		/* (oncpu_ns + runq_ns) / interval: average threads wanting a CPU */

	/* The advisor's most severe finding the scheduler-only data
	 * supports, or "" (JSON null) when none. */
	char verdict[TOP_VERDICT_LEN];
	char verdict_summary[TOP_SUMMARY_LEN];
	int verdict_severity;		/* advisor's enum; 0 when none */
	/* Findings this data cannot support (false sharing, spin hints,
	 * memory order, critical sections): `spinscope -p PID` can. */
	bool needs_full_trace;

	const struct top_thread *threads;	/* may be NULL (not asked for) */
	size_t nthreads_detail;
	const struct top_word *words;		/* the verdict's input */
	size_t nwords;
};

/* The host and the tracer's own cost in the interval. */
struct top_host {
	uint32_t ncpus;
	double load1, load5, load15;
	double busy_cpus;		/* /proc/stat, all processes */
	uint64_t bpf_run_ns;		/* the BPF programs' run time over the interval, estimated from its last eighth (top_bpf__cost_begin()) */
	uint64_t bpf_runs;
	double self_cpu;		/* spinscope's own CPU, share of one CPU */
	uint64_t self_rss_kib;
	uint64_t drops;			/* events the BPF side could not record (maps full) */
	uint32_t processes, threads;	/* on the host, from /proc */
};

struct top_snapshot {
	uint64_t wall_ns;		/* CLOCK_REALTIME at the interval's end */
	uint64_t interval_ns;
	bool sampling;			/* spin_samples measured */
	struct top_host host;
	struct top_proc *procs;		/* any order; renderers sort */
	size_t nprocs;
};

#endif

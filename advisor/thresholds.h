/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every threshold the advisor decides by, in one list: name, value, unit.
 * docs/ADVISOR.md has a row for each with the same value and the reason
 * for it; tests/unit/advisor/test_advisor_thresholds.c reads this list and
 * that table and fails when they differ. Each entry becomes a constant of
 * its name (static const double), so rules write ADV_BUSY_SHARE as before.
 * The reasons live in docs/ADVISOR.md, next to the rule that uses them.
 */
#ifndef SPINSCOPE_ADV_THRESHOLDS_H
#define SPINSCOPE_ADV_THRESHOLDS_H

#include <stddef.h>

#define ADV_THRESHOLDS(X)						\
	/* threads and CPUs (metrics.c) */				\
	X(ADV_BUSY_SHARE, 0.10, "share of the trace on CPU")		\
	X(ADV_RUNNABLE_SHARE, 0.50, "share of the trace runnable")	\
	X(ADV_SATURATED_SHARE, 0.90, "share of the trace runnable")	\
	X(ADV_DEMAND_OVER, 1.25, "runnable threads per CPU")		\
	X(ADV_DEMAND_CRITICAL, 2.0, "runnable threads per CPU")		\
	/* yield spinners (metrics.c, rule_spin_yield.c) */		\
	X(ADV_YIELD_RATE_MIN, 1000, "yields/s per thread")		\
	X(ADV_YIELD_RATE_SWITCHING, 50, "yields/s per thread")		\
	X(ADV_YIELD_SWITCH_SHARE, 0.5, "share of the thread's switches") \
	X(ADV_SPIN_CPU_CRITICAL, 0.5, "share of the target's CPUs")	\
	X(ADV_TRACE_INFLATES, 0.10, "share of the measured figure")	\
	/* futex words (metrics.c, rule_futex_contention.c) */		\
	X(ADV_FUTEX_MIN_WAITS, 20, "blocked waits")			\
	X(ADV_FUTEX_MIN_RATE, 10, "blocked waits/s")			\
	X(ADV_FUTEX_MIN_WAITERS, 2, "distinct waiting threads")		\
	X(ADV_FUTEX_WAKE_RATIO, 0.25, "wakes per wait")			\
	X(ADV_FUTEX_MIN_SHARE, 0.05, "share of the waiters' time")	\
	X(ADV_LOCK_WAKE_SHARE, 0.25, "holder wakes per blocked wait")	\
	X(ADV_BITSET_SHARE, 0.5, "share of the word's waits")		\
	/* how a word is used, by behaviour (metrics.c, adv_futex_use) */	\
	X(ADV_LOCK_WAKER_SHARE, 0.2, "share of the wakes that found waiters") \
	X(ADV_HERD_FANOUT, 2.0, "waiters woken per wake")		\
	X(ADV_HERD_REBLOCK, 0.5, "share of the woken waits")		\
	X(ADV_BARRIER_ALL, 0.6, "share of the other waiters woken per wake") \
	X(ADV_BARRIER_PEER_SHARE, 0.2, "share of the wakes that found waiters") \
	X(ADV_EVENT_TIMEOUT_SHARE, 0.5, "share of the blocked waits")	\
	/* serialization (rule_serialization.c) */			\
	X(ADV_SERIAL_BUSY, 0.8, "share of the trace with a thread runnable") \
	X(ADV_SERIAL_PARALLEL, 0.25, "share of that time with two or more") \
	X(ADV_SERIAL_WAIT_SHARE, 0.25, "share of the active threads' time") \
	X(ADV_SERIAL_MIN_ACTIVE, 0.05, "share of the trace on CPU per thread") \
	/* wake-ups, barriers, blocking under a lock (rule_wake_herd.c,	\
	 * rule_barrier.c, rule_lock_blocking.c) */			\
	X(ADV_HERD_WARN_SHARE, 0.10, "share of the waiters' time")	\
	X(ADV_BARRIER_WARN_SHARE, 0.20, "share of the waiters' time")	\
	X(ADV_BARRIER_LAST_SHARE, 0.5, "share of the wakes that found waiters") \
	X(ADV_BARRIER_WORK_RATIO, 1.5, "CPU time against the other members' median") \
	X(ADV_HELD_BLOCKED_SHARE, 0.10, "share of the trace") \
	X(ADV_AT_ONCE_HOT, 0.5, "share of the word's waits")		\
	X(ADV_LOCK_WARN_SHARE, 0.10, "share of the waiters' time")	\
	X(ADV_LOCK_CRIT_SHARE, 0.30, "share of the waiters' time")	\
	X(ADV_LOCK_ACQUIRE_MIN_SAMPLES, 20, "samples")			\
	/* who holds a lock (critical_section.c) */			\
	X(ADV_RELEASE_DOMINANT, 0.5, "share of the time held while contended") \
	X(ADV_CONVOY_SHARE, 0.5, "share of the releases")		\
	/* spin loops without syscalls (rule_spin_loop.c) */		\
	X(ADV_SPIN_LOOP_SHARE, 0.5, "share of the target's samples")	\
	X(ADV_SPIN_LOOP_MIN_SAMPLES, 20, "samples")			\
	X(ADV_HOT_INSN_SHARE, 0.3, "share of a function's samples")	\
	/* the JVM's own code (rule_jvm.c) */				\
	X(ADV_JVM_MIN_SHARE, 0.03, "share of samples or of the trace")	\
	X(ADV_JVM_WARN_SHARE, 0.15, "share of samples")			\
	X(ADV_JVM_WARN_BLOCKED, 0.5, "threads blocked, on average")	\
	/* host noise (rule_host_busy.c) */				\
	X(ADV_HOST_BUSY_SHARE, 0.25, "share of the host's CPUs")	\
	/* false sharing */						\
	X(ADV_FS_MISS_SHARE, 0.10, "share of cache-miss samples")	\
	X(ADV_FS_CRIT_SHARE, 0.40, "share of cache-miss samples")	\
	X(ADV_FS_CRIT_RATIO, 2.0, "unpadded/padded time")		\
	X(ADV_FS_TIME_SHARE, 0.10, "share of time samples")		\
	X(ADV_FS_LINE_SHARE, 0.05, "share of register samples")	\
	X(ADV_FS_LINE_MIN_SAMPLES, 5, "samples per thread on a line")	\
	X(ADV_FS_LINE_DEFAULT, 64, "bytes")				\
	/* memory order */						\
	X(ADV_FENCE_MIN_SHARE, 0.05, "share of on-CPU samples")		\
	X(ADV_FENCE_WARN_SAVING, 0.10, "share of on-CPU time")		\
	/* NUMA */							\
	X(ADV_NUMA_REMOTE_MIN, 0.10, "share of accesses remote")	\
	X(ADV_NUMA_WARN, 0.10, "latency excess")			\
	X(ADV_NUMA_CRIT, 0.50, "latency excess")			\
	X(ADV_NUMA_CONCENTRATED, 0.70, "share of pages on one node")	\
	/* facts of glibc the advice quotes */				\
	X(ADV_GLIBC_SPIN_DEFAULT, 100, "spins")				\
	X(ADV_SPIN_N_MAX, 32767, "spins")

#define ADV_THRESHOLD_CONST(name, value, unit) static const double name = value;
ADV_THRESHOLDS(ADV_THRESHOLD_CONST)
#undef ADV_THRESHOLD_CONST

struct adv_threshold {
	const char *name;
	double value;
	const char *unit;
};

/* The list above as a table, for the test that holds docs/ADVISOR.md to it. */
extern const struct adv_threshold adv_thresholds[];
extern const size_t adv_nthresholds;

#endif

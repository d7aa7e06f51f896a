/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measurement helpers shared by every reference-kernel family: clocks,
 * statistics over repeated samples, a team of pinned threads released
 * together, and a probe of how busy the host was. Nothing here needs
 * json-c or libbpf, so the kernels also build for the AArch64 driver that
 * has neither (see calib_json.h for the JSON form of the statistics).
 */
#ifndef SPINSCOPE_CALIB_UTIL_H
#define SPINSCOPE_CALIB_UTIL_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- clocks ------------------------------------------------------------ */

uint64_t calib__now_ns(void);		/* CLOCK_MONOTONIC */
uint64_t calib__thread_cpu_ns(void);	/* CLOCK_THREAD_CPUTIME_ID */

/* --- CPU sets ---------------------------------------------------------- */

/* Parses a kernel-style CPU list ("0-3,6,8-9"). Returns 0, or -EINVAL for a
 * malformed list or a CPU number >= CPU_SETSIZE; *set is cleared first. */
int calib__parse_cpulist(const char *list, cpu_set_t *set);
/* The i-th CPU (0-based, wrapping round-robin) of set, or -1 if empty. */
int calib__nth_cpu(const cpu_set_t *set, int i);

/* Reads root + rel ("/proc/loadavg"; root "" or NULL for the live host,
 * else a fake tree) into buf, NUL-terminated, trailing newlines and spaces
 * trimmed. Returns 0 or -errno. */
int calib__read_text(const char *root, const char *rel, char *buf, size_t len);

/* --- statistics over repeated samples ---------------------------------- */

/* Spread limits above which a figure carries a warning: instruction costs
 * repeat tightly, contention figures less so. */
#define CALIB_CV_INSTR		0.05
#define CALIB_CV_CONTENTION	0.10

struct calib_stats {
	double median;
	double min;
	double max;
	double cv;	/* coefficient of variation: stddev / mean (0 if n < 2) */
	int n;
	/* 95% interval of the median (calib_stat.h's rule); the full range
	 * when n < 6, where no interval reaches 95%. */
	double ci_lo, ci_hi;
	/* Median absolute deviation from the median: the repetitions' spread
	 * that one outlying repetition cannot widen (the region rule's noise). */
	double mad;
};

/* Computes the statistics of samples[0..n-1] (not modified). n == 0 gives
 * all zeros. */
void calib_stats__compute(struct calib_stats *st, const double *samples, int n);

/* Repeats measure(arg) up to reps times (each call returns one sample,
 * e.g. ns per operation) and computes the statistics. Stops early, keeping
 * what it has, when *stop becomes non-zero (stop may be NULL). Returns the
 * number of samples taken. */
int calib__repeat(int reps, volatile sig_atomic_t *stop,
		  double (*measure)(void *arg), void *arg, struct calib_stats *st);

/* Time-boxed count for kernels that run "until told": the number of
 * iterations of a loop costing about est_ns each that fits in budget_ns,
 * clamped to [lo, hi]. */
uint64_t calib__iters_for(double budget_ns, double est_ns, uint64_t lo, uint64_t hi);

/* --- teams of pinned threads ------------------------------------------- */

/* One member's record. cpu is where it was pinned; start/end are
 * CLOCK_MONOTONIC stamps taken right after the common release and right
 * after fn returned; cpu_ns is the thread's own CPU time over that span. */
struct calib_team_member {
	int idx;
	int cpu;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t cpu_ns;
};

struct calib_team_result {
	int nthreads;
	uint64_t wall_ns;	/* last end - first start */
	uint64_t cpu_ns_sum;	/* sum of members' cpu_ns */
	/* How much the threads truly ran at once: cpu_ns_sum /
	 * (wall_ns * nthreads). 1.0 = all ran side by side all the time; on an
	 * oversubscribed or busy host it falls (at best ncpus / nthreads). */
	double overlap;
	struct calib_team_member *members;	/* nthreads entries, malloc'd */
};

/* Threads below this overlap did not truly run at once: a family flags
 * its contention figures then, because they measure time slicing. */
#define CALIB_OVERLAP_OK	0.80

/* Starts nthreads threads, member i pinned to calib__nth_cpu(cpus, i)
 * (round-robin), releases them together through one gate, runs
 * fn(i, arg) in each, and joins them. Returns 0 or -errno (thread creation
 * failed; nothing is left running). Free res with calib_team__free(). */
int calib_team__run(const cpu_set_t *cpus, int nthreads,
		    void (*fn)(int idx, void *arg), void *arg,
		    struct calib_team_result *res);
void calib_team__free(struct calib_team_result *res);

/* Pins the calling thread to one CPU. Returns 0 or -errno. */
int calib__pin_self(int cpu);

/* How busy the host was while measuring: calib_conditions.h. */
#include "calib_conditions.h"

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measurement conditions: how busy the host was while a family measured.
 * Two snapshots (before, after) of the load average, the aggregate CPU
 * ticks of /proc/stat, this process's own CPU time and the CPU frequency
 * give the other processes' share of the CPUs during the interval, the
 * time stolen by a hypervisor and the clock the CPUs ran at. A family
 * measured while others took a large share is "busy": its figures are
 * marked, and it never replaces a quieter stored one (calib_merge.h).
 * Plain C, no json-c (the AArch64 driver builds it).
 */
#ifndef SPINSCOPE_CALIB_CONDITIONS_H
#define SPINSCOPE_CALIB_CONDITIONS_H

#include <stdbool.h>
#include <stdint.h>

/* A snapshot of /proc/loadavg, the "cpu" line of /proc/stat, this
 * process's CPU time and the CPUs' clock. */
struct calib_busy_sample {
	double load1;
	uint64_t steal;		/* USER_HZ ticks, cumulative */
	uint64_t idle;		/* idle + iowait ticks, cumulative */
	uint64_t total;		/* all ticks, cumulative */
	uint64_t self_ns;	/* this process's CPU time, all its threads */
	int running;		/* procs_running */
	double cpu_mhz;		/* mean over the CPUs; 0: not exposed */
	bool mhz_cpufreq;	/* from cpufreq (live), else /proc/cpuinfo */
};

/* Verdict over an interval between two samples. */
struct calib_busy {
	double load1;		/* at the start */
	double load1_end;	/* at the end */
	double steal_frac;	/* steal / total ticks during the interval */
	/* Other processes' CPU time over all CPU time of the interval, 0..1:
	 * what the host's load did to the figures (our own threads excluded,
	 * unlike the load average). -1 when unknown. */
	double others_share;
	double cpu_mhz;		/* at the end; 0: not exposed */
	const char *mhz_source;	/* "cpufreq", "cpuinfo" or "" */
	bool busy;		/* others or steal high enough to distort figures */
	char why[160];		/* why busy, in words; "" when not */
};

/* Others' share of the CPUs, or steal, above which the host is busy. */
#define CALIB_BUSY_OTHERS	0.25
#define CALIB_BUSY_STEAL	0.05

/* Reads the snapshot from root ("" or NULL for "/", else a fake tree with
 * proc/loadavg, proc/stat and optionally proc/cpuinfo, sys/devices/system/
 * cpu/cpuN/cpufreq/scaling_cur_freq). self_ns is always the live
 * process's. Returns 0 or -errno. */
int calib_busy__read(const char *root, struct calib_busy_sample *s);
/* Judges an interval. ncpus_online is kept for the load's wording. */
void calib_busy__judge(const struct calib_busy_sample *before,
		       const struct calib_busy_sample *after, int ncpus_online,
		       struct calib_busy *out);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling of one process with a perf event (cache-misses by default,
 * cpu-clock for an on-CPU profile): where its threads are when the event
 * fires, as raw user stacks, plus per-thread cache misses, references and
 * instructions for a miss ratio. The report code never touches maps:
 *
 *   struct samples *s = samples__open(&opts, why, sizeof(why));
 *   samples__start(s);                 // attach: sampling begins
 *   ...
 *   samples__stop(s);                  // optional: detach, keep the counts
 *   struct samples_result r;
 *   samples__read(s, &r);              // cumulative since start
 *   samples__to_json(&r, symbolize, arg);  // report/samples_report.h
 *   samples_result__free(&r);          // model/samples_result.h
 *   samples__free(s);                  // nothing stays attached
 *
 * Without a PMU (most VMs) the hardware events cannot be opened: the object
 * is still returned, marked unavailable with the reason, and the run goes
 * on. Addresses are not symbolized here: the report functions take a
 * symbolize callback.
 */
#ifndef SPINSCOPE_SAMPLES_H
#define SPINSCOPE_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "model/samples_result.h"
#include "sampling.h"
#include "unwind.h"

struct samples_opts {
	pid_t pid;			/* target process (required) */
	pid_t tid;			/* 0: every thread; else only this one */
	const char *event;		/* NULL: "cache-misses" (perf_events.h) */
	__u64 period;			/* events per sample; 0: the event's default */
	__u32 freq;			/* samples per second instead (0: use period) */
	__u32 max_entries;		/* (thread, stack) pairs kept; 0: 4096 */
	__u32 max_stacks;		/* distinct user stacks kept; 0: 2048 */
	__u32 max_threads;		/* threads with counters kept; 0: 4096 */
	bool no_counters;		/* skip the per-thread counting events */
	/* Events counted per thread; NULL entries: cache-misses,
	 * cache-references, instructions (the miss ratio needs these). */
	const char *counter_events[SS_SAMPLE_COUNTERS];
	const char *online_path;	/* NULL: /sys/devices/system/cpu/online */
	const struct ss_unwind_table *unwind;	/* NULL: frame pointers only */
	/* With a clock event (cpu-clock, task-clock: a timer interrupt, the
	 * registers exact), send each sample's user registers to user space
	 * (data addresses, kept in samples_result.regs), through a ring of
	 * regs_ring_bytes
	 * (0: 4 MiB; a power of two of pages), at most max_regs samples kept
	 * (0: 1M); more are counted in regs_lost. */
	bool regs;
	__u32 regs_ring_bytes;
	__u32 max_regs;
};

struct samples;

/* Prepares sampling of opts->pid: opens the perf events (disabled) and
 * loads the BPF programs. Returns NULL on a real failure (errno set: EINVAL
 * bad options, EPERM/EACCES privileges, else BPF), with one line in why. A
 * host without the event is not a failure (see samples__available). */
struct samples *samples__open(const struct samples_opts *o, char *why, size_t whylen);
/* Attaches: samples are counted from here. 0 or -errno (why in errno). */
int samples__start(struct samples *s);
/* Follows CPU hotplug (the online list again): a CPU that came online gets
 * its events, attached at once after samples__start; one that went offline
 * loses them and is named in the result. Call it every fraction of a
 * second during the trace. Returns how many CPUs changed, or -errno. */
int samples__update_cpus(struct samples *s);
/* Takes the register samples waiting in the ring (with regs on); call it
 * every fraction of a second during the trace, so that the ring does not
 * fill. Returns how many it took, or -errno. */
long samples__drain(struct samples *s);
/* Detaches the programs; the counts stay readable. */
void samples__stop(struct samples *s);
bool samples__available(const struct samples *s);
/* Fills *out with everything counted since start (out is owned by the
 * caller: samples_result__free). 0 or -errno. */
int samples__read(struct samples *s, struct samples_result *out);
/* Detaches and closes everything; accepts NULL. */
/* Adds what the sampler's stack unwinder did to sums; whether it ran. */
bool samples__add_unwind_stats(const struct samples *s, __u64 sums[SS_UNWIND_NSTATS]);
void samples__free(struct samples *s);

#endif

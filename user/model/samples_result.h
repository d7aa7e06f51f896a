/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a sampling run found, as plain data: per (thread, user stack) sample
 * counts and per-thread counter totals. trace/samples.c fills it from the
 * BPF maps; report/ and the advice bridge read it. No libbpf here.
 */
#ifndef SPINSCOPE_MODEL_SAMPLES_RESULT_H
#define SPINSCOPE_MODEL_SAMPLES_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "sampling.h"

/* One user stack of one thread and how many samples landed on it. */
struct samples_stack {
	__u32 tid;
	__s32 stack_id;			/* < 0: -errno, no stack was collected */
	__u64 count;
	__u32 depth;			/* frames in ips (0 without a stack) */
	__u32 pad;
	/* Leaf first: ips[0] is the sampled instruction, the others are return
	 * addresses (symbolize ip - 1 to name the call site). Shared between
	 * entries of the same stack id; owned by the result. */
	const __u64 *ips;
};

struct samples_thread {
	__u32 tid;
	bool has_counters;		/* a time slice of it was counted */
	__u64 samples;
	__u64 slices;			/* on-CPU slices counted */
	/* Counts over those slices, scaled by enabled/running when the PMU
	 * multiplexed the counters. */
	double counter[SS_SAMPLE_COUNTERS];
};

struct samples_result {
	const char *event;		/* sampled event's name (static string) */
	bool available;
	char reason[256];		/* why not, when !available */
	__u64 period;			/* events per sample, 0 with freq */
	__u32 freq;			/* samples per second, 0 with period */
	int cpus;			/* CPUs with a sampling event at some time */
	/* CPUs online for only part of the trace (hotplug), ascending: they
	 * were sampled from the update after they came online. */
	int *cpus_offline;
	size_t nr_cpus_offline;
	__u64 total;			/* target samples: counted plus lost */
	__u64 drops[SS_SAMPLE_DROPS];	/* enum ss_sample_drop */
	struct samples_stack *stacks;	/* sorted by count, descending */
	size_t nr_stacks;
	struct samples_thread *threads;	/* sorted by samples, then tid */
	size_t nr_threads;
	bool counters_available;
	char counters_reason[256];	/* why not, when !counters_available */
	const char *counter_names[SS_SAMPLE_COUNTERS];
	__u64 *ip_pool;			/* backing store of the stacks' ips */
	/* The user registers of sampled instructions, in arrival order, when
	 * they were captured (regs_on); regs_lost samples more than the
	 * result keeps (ring overflows are drops[SS_SAMPLE_DROP_REGS_FULL]). */
	bool regs_on;
	struct ss_regs_sample *regs;
	size_t nr_regs;
	__u64 regs_lost;
};

/* Frees what *r owns and empties it; accepts NULL. */
void samples_result__free(struct samples_result *r);

/* Names one address: returns the function name (no offset) or NULL when
 * unknown, and sets *module to the mapping's path or NULL. The strings need
 * only live until the next call. */
typedef const char *(*samples_symbolize_fn)(void *arg, __u64 ip, const char **module);

#endif

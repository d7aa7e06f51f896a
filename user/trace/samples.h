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
 *   samples__to_json(&r, symbolize, arg); samples__write_folded(...);
 *   samples_result__free(&r);
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
#include <stdio.h>
#include <sys/types.h>
#include <json-c/json.h>
#include <linux/types.h>
#include "sampling.h"

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
};

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
	int cpus;			/* CPUs with a sampling event */
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
};

struct samples;

/* Prepares sampling of opts->pid: opens the perf events (disabled) and
 * loads the BPF programs. Returns NULL on a real failure (errno set: EINVAL
 * bad options, EPERM/EACCES privileges, else BPF), with one line in why. A
 * host without the event is not a failure (see samples__available). */
struct samples *samples__open(const struct samples_opts *o, char *why, size_t whylen);
/* Attaches: samples are counted from here. 0 or -errno (why in errno). */
int samples__start(struct samples *s);
/* Detaches the programs; the counts stay readable. */
void samples__stop(struct samples *s);
bool samples__available(const struct samples *s);
/* Fills *out with everything counted since start (out is owned by the
 * caller: samples_result__free). 0 or -errno. */
int samples__read(struct samples *s, struct samples_result *out);
/* Detaches and closes everything; accepts NULL. */
void samples__free(struct samples *s);
void samples_result__free(struct samples_result *r);

/* Names one address: returns the function name (no offset) or NULL when
 * unknown, and sets *module to the mapping's path or NULL. The strings need
 * only live until the next call. */
typedef const char *(*samples_symbolize_fn)(void *arg, __u64 ip, const char **module);

/* Samples aggregated on one leaf instruction address. */
struct samples_leaf {
	__u64 ip;
	__u64 count;
};

/* Aggregates the result's samples by leaf IP (stackless samples are left
 * out), most samples first, ties by address. *out is malloc'd. Returns the
 * number of entries or -ENOMEM. */
long samples__rank_leaves(const struct samples_result *r, struct samples_leaf **out);

/* Samples aggregated on one named function. */
struct samples_top {
	char *symbol;			/* "[unknown]" / "[no user stack]" too */
	char *module;			/* NULL when unknown */
	__u64 count;
};

/* Aggregates leaf IPs by the (symbol, module) symbolize returns, most
 * samples first, ties by name. symbolize may be NULL (names become
 * "0x..." addresses). Returns the number of entries or -ENOMEM. */
long samples__top(const struct samples_result *r, samples_symbolize_fn symbolize, void *arg,
		  struct samples_top **out);
void samples__top_free(struct samples_top *t, long n);

/* The JSON "samples" object: event, available, reason (when unavailable),
 * period, frequency_hz, total, dropped, top [{symbol, module, count}],
 * threads [{tid, samples, counters...}] and counters {available, reason}.
 * NULL on allocation failure. */
json_object *samples__to_json(const struct samples_result *r, samples_symbolize_fn symbolize,
			      void *arg);

/* Writes folded stacks, "kind;root;...;leaf count" per line, one line per
 * distinct symbolized stack (kind_prefix NULL: no kind frame). Returns 0 or
 * -EIO when the write failed. */
int samples__write_folded(const struct samples_result *r, FILE *f, samples_symbolize_fn symbolize,
			  void *arg, const char *kind_prefix);

/* Text section: top_n functions with counts and shares, per-thread counters
 * and miss ratios, the drop counts when non-zero, or one notice line when
 * unavailable. Returns 0 or -EIO. */
int samples__print_text(const struct samples_result *r, FILE *f, samples_symbolize_fn symbolize,
			void *arg, int top_n);

#endif

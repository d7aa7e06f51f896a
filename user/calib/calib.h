/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface every reference-kernel family implements (one file per
 * family, user/calib_<family>.c), and what `spinscope calibrate` drives.
 * Results are JSON objects (json-c): they are saved, loaded by
 * `spinscope -p`, and turned into the advisor's plain structs there.
 */
#ifndef SPINSCOPE_CALIB_H
#define SPINSCOPE_CALIB_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sched.h>
#include <json-c/json.h>

struct calib_ctx {
	bool quick;			/* --quick (default) or --full */
	cpu_set_t cpus;			/* CPUs the kernels may use (--cpus) */
	int ncpus;			/* CPU_COUNT(&cpus) */
	volatile sig_atomic_t *stop;	/* set by SIGINT: stop early, keep results */
	/* Progress: fraction of this family done, 0..1 (may be NULL). */
	void (*progress)(void *arg, double done);
	void *progress_arg;
};

struct calib_family {
	const char *key;		/* JSON key: "false_sharing", ... */
	const char *title;		/* "False sharing and padding" */
	/* Expected run time on a quiet 2-CPU host, for the estimate said up
	 * front and the progress bar (measured there, rounded up:
	 * docs/BENCHMARKS.md; NUMA's a guess, that host has one node); more
	 * CPUs or a busy host take longer. */
	double quick_seconds;
	double full_seconds;
	/* Where a family may skip itself (NULL: never): its expected time
	 * on this host and these CPUs, 0 when it will skip. */
	double (*expected_seconds)(const struct calib_ctx *ctx);
	/* Fills *result with the family's object; on a skip sets "skipped":
	 * true and "reason". Returns 0, or -errno on a real failure. */
	int (*run)(const struct calib_ctx *ctx, json_object *result);
	/* Prints the family's table, headline first, from a result object. */
	void (*print)(const json_object *result, FILE *out);
};

/* Reports progress when the driver asked for it. */
static inline void calib__progress(const struct calib_ctx *ctx, double done)
{
	if (ctx->progress)
		ctx->progress(ctx->progress_arg, done);
}

/* True once Ctrl-C asked to stop: finish the figure at hand, return. */
static inline bool calib__stopped(const struct calib_ctx *ctx)
{
	return ctx->stop && *ctx->stop;
}

extern const struct calib_family calib_false_sharing;
extern const struct calib_family calib_spin_hint;
extern const struct calib_family calib_spin_threshold;
extern const struct calib_family calib_numa;
extern const struct calib_family calib_memory_order;
extern const struct calib_family calib_host_costs;

/* spin_threshold's good region of one contention level (its configurations'
 * "strategy", "spins", "label" and "acq_per_s" figures) as level.region:
 * the family's own step, exposed for its tests. */
void calib_spin_threshold__region(json_object *level, json_object *configs);

#endif

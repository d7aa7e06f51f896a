/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference kernels of the false_sharing, spin_hint and memory_order
 * families, as plain C with no json-c or libbpf: the calibrate families
 * (calib_<family>.c) turn their numbers into JSON, the AArch64 driver
 * prints them. Every kernel also returns what it counted, so tests check
 * that the totals add up exactly.
 */
#ifndef SPINSCOPE_CALIB_KERN_H
#define SPINSCOPE_CALIB_KERN_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "calib_hints.h"

/* --- false sharing: per-thread counters `spacing` bytes apart --------- */

struct calib_fs_result {
	uint64_t total;		/* sum of all counters after the run */
	double ns_per_inc;	/* mean over threads of their time / iters */
	double overlap;		/* calib_team_result.overlap */
};

/* nthreads threads (pinned round-robin on cpus) each increment their own
 * 8-byte counter iters times; counter i sits at base + i * spacing, base
 * page-aligned. atomic: relaxed atomic add, else a plain (volatile)
 * load-add-store. spacing must be a multiple of 8. Returns 0 or -errno. */
int calib_fs__run(const cpu_set_t *cpus, int nthreads, size_t spacing, bool atomic,
		  uint64_t iters, struct calib_fs_result *out);

/* --- spin hints -------------------------------------------------------- */

/* ns per hint: the minimum over nsamples samples of per_sample hints each
 * (a runtime normalizing spin counts takes the minimum: one long sample is
 * fooled by preemption). Returns 0, or -ENOTSUP when h is absent here. */
int calib_sh__hint_cost(enum calib_hint h, int nsamples, uint64_t per_sample,
			double *ns_per_hint);

struct calib_sh_counter {
	uint64_t final;		/* the shared counter at the end: == target */
	uint64_t successes;	/* sum of successful CASes over threads */
	uint64_t failures;	/* failed CASes, each followed by one hint */
	double ns_per_million;	/* wall time per million increments */
	double overlap;
};

/* The shared-counter shape: nthreads threads CAS-increment one counter
 * until it reaches target, spinning with hint h after each failed CAS. */
int calib_sh__shared_counter(const cpu_set_t *cpus, int nthreads, enum calib_hint h,
			     uint64_t target, struct calib_sh_counter *out);

/* --- memory ordering --------------------------------------------------- */

enum calib_mo_op {
	CALIB_MO_STORE_RELAXED,
	CALIB_MO_STORE_RELEASE,
	CALIB_MO_STORE_SEQ_CST,
	CALIB_MO_STORE_FENCE,		/* relaxed store + seq_cst fence */
	CALIB_MO_CAS_SEQ_CST,
	CALIB_MO_CAS_ACQ_REL,
	CALIB_MO_CAS_RELEASE,
	CALIB_MO_CAS_RELAXED,
	CALIB_MO__COUNT
};

const char *calib_mo__name(enum calib_mo_op op);	/* "store_release", ... */
bool calib_mo__is_cas(enum calib_mo_op op);

/* ns per op of n ops on a line no other thread touches; *final gets the
 * word's last value (n for CAS ops, which increment). */
double calib_mo__uncontended(enum calib_mo_op op, uint64_t n, uint64_t *final);

struct calib_mo_result {
	double ns_per_op;	/* mean over threads of time / n */
	uint64_t final;		/* CAS ops: == nthreads * n */
	uint64_t cas_failures;	/* CAS retries lost to other threads */
	double overlap;
};

/* nthreads threads each do n ops on one shared word (CAS ops: n successful
 * increments each, retrying on failure). */
int calib_mo__contended(const cpu_set_t *cpus, int nthreads, enum calib_mo_op op,
			uint64_t n, struct calib_mo_result *out);

#endif

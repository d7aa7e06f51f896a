/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading this host's calibration: which families may be used (present,
 * and measured on this very host), what to say when they may not, and the
 * few figures several rules pick the same way (handoff, yield cost, spin
 * hint, best lock strategy). Getters return 0 or NULL for a figure that may
 * not be used: a rule then says so instead of guessing.
 */
#ifndef SPINSCOPE_ADV_HOSTCAL_H
#define SPINSCOPE_ADV_HOSTCAL_H

#include <stdbool.h>
#include "advisor.h"

/* Calibration families, as bits, named by their JSON keys. */
enum adv_family {
	ADV_FAM_FALSE_SHARING = 1u << 0,
	ADV_FAM_SPIN_HINT = 1u << 1,
	ADV_FAM_SPIN_THRESHOLD = 1u << 2,
	ADV_FAM_HOST_COSTS = 1u << 3,
	ADV_FAM_NUMA = 1u << 4,
	ADV_FAM_MEMORY_ORDER = 1u << 5,
};

/* True when family's figures were measured on this host. */
bool adv_cal__usable(const struct adv_host *h, unsigned family);

/* For the families a finding rests on (a mask): when any of them may not be
 * used, adds one "calibration" evidence line saying why, appends how to
 * measure them to the recommendation, and returns 1 - weight, where weight
 * is how much the finding's conclusion depends on them (0..1). Returns 1
 * when all are usable. */
double adv_cal__note(struct adv_finding *f, const struct adv_host *h, unsigned families,
		     double weight);

/* Futex wake-to-running handoff: across CPUs, or on one CPU when the
 * target has only one; 0 when not usable. */
double adv_cal__handoff_ns(const struct adv_host *h, uint32_t ncpus);
/* Cost of one sched_yield: alone when most yields did not switch (two or
 * more yields per switch), with a runnable peer otherwise; 0 if unknown. */
double adv_cal__yield_ns(const struct adv_host *h, double yields_per_switch);
/* The cheapest spin-wait hint fit for a spin loop (PAUSE on x86; SB or ISB
 * on AArch64: YIELD and NOP do not back off, WFE needs an event); NULL if
 * none is usable. */
const struct adv_hint *adv_cal__hint(const struct adv_host *h);
/* spinscope's own cost per traced event here; 0 when not measured. */
double adv_cal__trace_ns(const struct adv_host *h);
/* An untraced futex call that finds nothing to do (what a wait that
 * returns at once costs without tracing); 0: not measured. */
double adv_cal__futex_call_ns(const struct adv_host *h);
/* The spin-threshold sweep's best strategy at this contention level: the
 * preferred member of its good region. */
const struct adv_best *adv_cal__best(const struct adv_host *h, bool heavy);
/* How a level's verdict stands with the CPUs' distance (struct
 * adv_distance_state): one verdict (the level met one distance, or one
 * of its states had too few runs for a region, or the file predates the
 * states), two states whose regions share configurations (members in
 * common; for files without member_configs, the same preferred strategy
 * with overlapping spin ranges), or two that share none. */
enum adv_lock_states {
	ADV_LOCK_ONE_VERDICT = 0,
	ADV_LOCK_STATES_AGREE,
	ADV_LOCK_STATES_DIFFER,
};

/* The lock strategy to recommend at one contention level. strategy and n
 * are what to quote: the configuration good in both states when they
 * agree (calibrate's preference among the shared ones: parking first,
 * then the fewest spins; n_min..n_max the shared spin range of its
 * strategy), else the level's own pick (best, from
 * all its runs; DIFFER recommends neither state's alone). near and far
 * are the two states when there are two. */
struct adv_lock_choice {
	enum adv_lock_states states;
	const struct adv_best *best;
	char strategy[32];
	uint32_t n, n_min, n_max;
	const struct adv_distance_state *near, *far;
};

/* Fills c for this contention level; false (c zeroed) when the sweep may
 * not be used or settled on nothing there. */
bool adv_cal__lock_choice(const struct adv_host *h, bool heavy, struct adv_lock_choice *c);

/* ", any N from 0 to 255 as good here" or ", the sweep could not separate
 * the strategies (calibrate --full)" (after a --full sweep: "calibrate on
 * idle --cpus"): what the region adds to the best;
 * "" when nothing. Returns buf. */
const char *adv_cal__region_words(const struct adv_host *h, bool heavy, char *buf, size_t len);

#endif

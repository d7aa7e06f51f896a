/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistical rule every calibration verdict follows, so that the same
 * host gives the same verdicts run after run:
 *
 *  - a figure is the median of its repetitions, with the distribution-free
 *    95% confidence interval of the median (order statistics picked by the
 *    binomial distribution: no normality assumed, outliers cannot move it);
 *  - a figure is repeated until that interval is narrow enough for its goal
 *    (relative half-width) or its time budget is spent;
 *  - samples that fall into two well-separated groups are reported as two
 *    modes with their shares, not averaged into a value nobody measured;
 *  - among candidates (lock strategies, spin counts) the "good region" is
 *    the best candidate's natural cluster: sorted by median, each next
 *    candidate joins while its gap to the one before is within the link
 *    distance (a stated share, or the noise of the two medians when that
 *    is larger), and any candidate whose median the noise cannot tell from
 *    the best's joins too. The region's edge then falls where the
 *    candidates really differ, which noise does not move from run to run;
 *    an edge set by a fixed distance from the best would cut through
 *    candidates a few percent apart and move with every run. A
 *    recommendation is drawn from the region by a fixed preference, not by
 *    whichever candidate happened to win this run.
 *
 * Plain C, no json-c: the AArch64 driver builds it too.
 */
#ifndef SPINSCOPE_CALIB_STAT_H
#define SPINSCOPE_CALIB_STAT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define CALIB_CI_LEVEL 0.95

/* 95% interval of the median of sorted[0..n-1] (ascending): sets *lo, *hi
 * and returns the coverage actually reached (below 0.95 when n < 6: then
 * the interval is the full range). n == 0: 0, *lo = *hi = 0. */
double calib_ci__median(const double *sorted, int n, double *lo, double *hi);

/* Relative half-width of an interval around median: (hi - lo) / 2|median|;
 * 1.0 (no precision) when median is 0. */
double calib_ci__rel(double median, double lo, double hi);

/* The relative half-width of the median's interval of samples[0..n-1]
 * (any order): what a figure's goal is checked against; 1.0 for n < 2. */
double calib_ci__rel_of(const double *samples, int n);

/* --- modes ------------------------------------------------------------- */

#define CALIB_MAX_MODES 2
/* Two groups are two modes when the gap between them is at least this
 * factor (upper group's smallest / lower group's largest), each group is
 * tighter than the gap, and each holds at least CALIB_MODE_MIN_SHARE of the
 * samples (and two of them). */
#define CALIB_MODE_GAP 1.5
#define CALIB_MODE_MIN_SHARE 0.15

struct calib_mode {
	double median;
	double share;		/* of the samples, 0..1 */
	int n;
};

/* Splits samples[0..n-1] (any order, not modified) into modes by the rule
 * above. Returns 2 with modes[0] the lower, or 1 (one mode: modes[0] is
 * the median of all); 0 when n == 0 or out of memory. */
int calib_modes__find(const double *samples, int n, struct calib_mode *modes);

/* --- the CPUs' distance during a measurement --------------------------- */

/*
 * A VM's two vCPUs can sit on host cores that share a cache or on cores
 * that do not, and the hypervisor moves them within seconds: a cache
 * line's round trip between them was 50-80 ns or 310-490 ns on this
 * project's 2-vCPU host, and a contended lock's throughput fell to a
 * third in the far state (bench/cpu_distance.c, docs/BENCHMARKS.md,
 * issue 10). A measurement whose round trips, read before its runs,
 * differ by CALIB_DISTANCE_CHANGE or more saw both: its cross-CPU figures
 * mix two hosts. Within one state the readings spread up to 3x (49-149
 * ns); the two states are 3.6x or more apart.
 */
#define CALIB_DISTANCE_CHANGE 3.0

/* Splits round trips ns[0..n-1] (any order; 0: not measured) into the two
 * states when their 90th percentile is CALIB_DISTANCE_CHANGE times their
 * 10th or more: returns 2 with modes[0] the nearer and *cut between them
 * (the two percentiles' geometric mean), at least two readings each side;
 * else 1 (one state: modes[0] the median of all, *cut 0); 0 when nothing
 * was measured. */
int calib_distance__split(const double *ns, int n, struct calib_mode modes[2], double *cut);

/* --- adaptive repetition ----------------------------------------------- */

struct calib_goal {
	double rel_ci;		/* stop once the relative half-width is <= this */
	int min_reps;		/* always this many (at least 3) */
	int max_reps;
	uint64_t budget_ns;	/* stop after this long, even if the goal is missed */
};

/* Relative half-width goals of the headline figures: instruction costs
 * repeat tightly, contended figures less so. */
#define CALIB_GOAL_INSTR	0.03
#define CALIB_GOAL_CONTENTION	0.05

/* What a repeat_until achieved. */
struct calib_reached {
	int n;
	double rel_ci;
	bool goal_met;
	bool budget_spent;	/* stopped by time, not by the goal */
};

/* Repeats measure(arg) per goal into samples[0..max_reps-1] (the caller's
 * array) and returns the number taken; stops early on *stop (may be NULL).
 * *reached (may be NULL) says why it stopped. */
int calib__repeat_until(const struct calib_goal *goal, volatile sig_atomic_t *stop,
			double (*measure)(void *arg), void *arg, double *samples,
			struct calib_reached *reached);

/* --- good region among candidates -------------------------------------- */

#define CALIB_MAX_CANDIDATES 64
/* Link distance: neighbours (sorted by median) within this share of the
 * best median belong to one cluster even when their intervals are tight;
 * a few percent in a contended lock does not survive another host state. */
#define CALIB_REGION_LINK 0.05
/* A cluster reaching further than this below the best, without a break,
 * has no natural edge: the region stops there and the run says it could
 * not separate the candidates. */
#define CALIB_REGION_SPAN 0.25
/* Two medians are told apart when they differ by more than this many
 * combined standard errors (about 95% two-sided). */
#define CALIB_REGION_Z 1.96

struct calib_candidate {
	double median, ci_lo, ci_hi;
	int n;			/* 0: not measured, never in the region */
	int preference;		/* lower is preferred among equivalents */
	/* Robust relative standard error of the median (calib_region__se):
	 * 0 when unknown, then the link distance alone decides. */
	double se_rel;
};

struct calib_region {
	int best;			/* index with the best median; -1: none */
	int pick;			/* the preferred member: what to recommend */
	int nmembers;
	int members[CALIB_MAX_CANDIDATES];	/* indexes, ascending */
	/* false: the run could not tell them apart (every candidate joined, or
	 * the cluster ran past CALIB_REGION_SPAN without a break) */
	bool separated;
	double spread;			/* worst member's median vs the best, 0..1 */
};

/* The relative standard error of a median from its repetitions' median
 * absolute deviation: 1.2533 * 1.4826 * mad / sqrt(n) / |median| (the
 * normal-consistent MAD, and the median's efficiency). 0 when unknown. */
double calib_region__se(double median, double mad, int n);

/* Selects the region of c[0..n-1] (n <= CALIB_MAX_CANDIDATES): higher_better
 * for throughputs, false for costs; link as CALIB_REGION_LINK. Returns the
 * number of members (0 when no candidate was measured). */
int calib_region__select(const struct calib_candidate *c, int n, bool higher_better,
			 double link, struct calib_region *out);

#endif

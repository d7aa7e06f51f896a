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
 *    every candidate whose interval overlaps the best one's, or whose median
 *    is within a stated tolerance of it: they are equivalent here, and a
 *    recommendation is drawn from the region by a fixed preference, not by
 *    whichever happened to win this run.
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
/* Candidates within this share of the best median are equivalent for a
 * recommendation even when the intervals are tight enough to separate
 * them: a 3% difference in a contended lock does not survive another host
 * state. */
#define CALIB_REGION_TOLERANCE 0.03
/* A region holding at least this share of the candidates means the run
 * could not separate them. */
#define CALIB_REGION_UNSEPARATED 0.75

struct calib_candidate {
	double median, ci_lo, ci_hi;
	int n;			/* 0: not measured, never in the region */
	int preference;		/* lower is preferred among equivalents */
};

struct calib_region {
	int best;			/* index with the best median; -1: none */
	int pick;			/* the preferred member: what to recommend */
	int nmembers;
	int members[CALIB_MAX_CANDIDATES];	/* indexes, ascending */
	bool separated;			/* false: the run could not tell them apart */
	double spread;			/* worst member's median vs the best, 0..1 */
};

/* Selects the region of c[0..n-1] (n <= CALIB_MAX_CANDIDATES): higher_better
 * for throughputs, false for costs; tolerance as CALIB_REGION_TOLERANCE.
 * Returns the number of members (0 when no candidate was measured). */
int calib_region__select(const struct calib_candidate *c, int n, bool higher_better,
			 double tolerance, struct calib_region *out);

#endif

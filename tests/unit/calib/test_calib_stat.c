// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the statistical rule behind calibration verdicts
 * (calib_stat.h) on synthetic samples: median intervals, adaptive
 * repetition, modes, and the good region of known-equivalent and
 * known-distinct candidates.
 */
#include <math.h>
#include <stdlib.h>
#include "testlib.h"
#include "calib/kern/calib_stat.h"
#include "calib/kern/calib_util.h"

/* A deterministic noise source: xorshift, uniform in [-1, 1). */
static double noise(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) / (double)(1ull << 52) - 1.0;
}

static void test_median_interval(void **state)
{
	double s[20], lo, hi, cov;

	for (int i = 0; i < 20; i++)
		s[i] = i + 1;
	/* n = 20: ranks 6 and 15 (1-based), coverage 95.9% (tables). */
	cov = calib_ci__median(s, 20, &lo, &hi);
	assert_true(lo == 6 && hi == 15);
	assert_true(cov > 0.958 && cov < 0.960);
	/* n = 5: no interval reaches 95%: the full range, 93.75%. */
	cov = calib_ci__median(s, 5, &lo, &hi);
	assert_true(lo == 1 && hi == 5);
	assert_true(fabs(cov - 0.9375) < 1e-9);
	/* n = 9: ranks 2 and 8, 96.1%. */
	cov = calib_ci__median(s, 9, &lo, &hi);
	assert_true(lo == 2 && hi == 8);
	assert_true(cov > 0.960 && cov < 0.962);
	assert_true(calib_ci__median(s, 0, &lo, &hi) == 0);
	assert_true(fabs(calib_ci__rel(10, 9, 11) - 0.1) < 1e-12);
	assert_true(calib_ci__rel(0, 1, 2) == 1.0);
}

static void test_stats_carry_the_interval(void **state)
{
	/* One wild outlier moves the mean, not the median or its interval. */
	double v[] = { 10, 10.1, 9.9, 10.05, 9.95, 10.02, 9.98, 1000, 10.01 };
	struct calib_stats st;

	calib_stats__compute(&st, v, 9);
	assert_true(st.median == 10.01);
	assert_true(st.ci_lo == 9.95 && st.ci_hi == 10.1);
}

struct synth {
	uint64_t seed;
	double center, rel_noise;
	int calls;
};

static double synth_sample(void *arg)
{
	struct synth *s = arg;

	s->calls++;
	return s->center * (1 + s->rel_noise * noise(&s->seed));
}

static void test_repeat_until_goal_or_budget(void **state)
{
	double samples[200];
	struct synth quiet = { 42, 100, 0.001, 0 }, noisy = { 7, 100, 0.8, 0 };
	struct calib_goal goal = { CALIB_GOAL_INSTR, 5, 200, 5000000000ull };
	struct calib_reached r;
	int n;

	/* Tight samples meet a 3% goal at the minimum. */
	n = calib__repeat_until(&goal, NULL, synth_sample, &quiet, samples, &r);
	assert_int_equal(n, 5);
	assert_true(r.goal_met && !r.budget_spent && r.rel_ci <= CALIB_GOAL_INSTR);
	/* Wide samples need more repetitions, here until max_reps... */
	goal.max_reps = 40;
	n = calib__repeat_until(&goal, NULL, synth_sample, &noisy, samples, &r);
	assert_int_equal(n, 40);
	assert_false(r.goal_met);
	/* ...or until the budget is spent (0 ns: right after the minimum). */
	goal.budget_ns = 0;
	goal.max_reps = 200;
	n = calib__repeat_until(&goal, NULL, synth_sample, &noisy, samples, &r);
	assert_int_equal(n, 5);
	assert_true(r.budget_spent && !r.goal_met);
	/* A figure halfway (±20%) needs more than the minimum, and gets there. */
	struct synth mid = { 9, 100, 0.2, 0 };
	goal = (struct calib_goal){ CALIB_GOAL_CONTENTION, 5, 200, 5000000000ull };
	n = calib__repeat_until(&goal, NULL, synth_sample, &mid, samples, &r);
	assert_true(n > 5 && n < 200);
	assert_true(r.goal_met);
}

static void test_modes_bimodal(void **state)
{
	/* The cache-line round trip seen on this kind of VM: 81-98 ns or
	 * 394-396 ns, never in between. */
	double v[] = { 81, 396, 90, 395, 98, 394, 85, 88, 395, 92 };
	struct calib_mode m[CALIB_MAX_MODES];

	assert_int_equal(calib_modes__find(v, 10, m), 2);
	assert_int_equal(m[0].n, 6);
	assert_int_equal(m[1].n, 4);
	assert_true(m[0].median == 89 && m[1].median == 395);
	assert_true(fabs(m[0].share - 0.6) < 1e-12 && fabs(m[1].share - 0.4) < 1e-12);
}

static void test_modes_unimodal(void **state)
{
	struct calib_mode m[CALIB_MAX_MODES];
	double v[60];
	uint64_t seed = 3;

	/* Broad noise (±30%) is one mode, however wide. */
	for (int i = 0; i < 60; i++)
		v[i] = 100 * (1 + 0.3 * noise(&seed));
	assert_int_equal(calib_modes__find(v, 60, m), 1);
	assert_true(m[0].share == 1.0 && m[0].n == 60);
	/* One outlier is not a mode: a group needs 15% of the samples. */
	double one_out[] = { 10, 10, 11, 10, 10, 11, 10, 10, 10, 50 };
	assert_int_equal(calib_modes__find(one_out, 10, m), 1);
	assert_true(m[0].median == 10);
	assert_int_equal(calib_modes__find(v, 0, m), 0);
}

/* Candidates around centers[] with rel_noise, reps samples each (at most
 * 15); with outlier, each candidate's first repetition is 1.5x its center
 * (one fast run, as seen on this host's lock sweep). */
static void make_candidates_reps(const double *centers, int n, double rel_noise, int reps,
				 bool outlier, uint64_t seed, struct calib_candidate *c)
{
	for (int i = 0; i < n; i++) {
		double s[15];
		struct calib_stats st;

		for (int k = 0; k < reps; k++)
			s[k] = centers[i] * (1 + rel_noise * noise(&seed));
		if (outlier)
			s[0] = centers[i] * 1.5;
		calib_stats__compute(&st, s, reps);
		c[i] = (struct calib_candidate){ st.median, st.ci_lo, st.ci_hi, reps, i,
						 calib_region__se(st.median, st.mad, reps) };
	}
}

static void make_candidates(const double *centers, int n, double rel_noise, uint64_t seed,
			    struct calib_candidate *c)
{
	make_candidates_reps(centers, n, rel_noise, 15, false, seed, c);
}

static void test_region_equivalent_and_distinct(void **state)
{
	/* 0..3 equivalent (the same throughput), 4..5 clearly slower. */
	const double centers[] = { 5.2, 5.2, 5.2, 5.2, 3.8, 3.6 };
	struct calib_candidate c[6];
	struct calib_region r;

	make_candidates(centers, 6, 0.04, 11, c);
	assert_int_equal(calib_region__select(c, 6, true, CALIB_REGION_LINK, &r), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(r.members[i], i);
	assert_true(r.best >= 0 && r.best < 4);
	/* The pick is the preferred member, whichever won this time. */
	assert_int_equal(r.pick, 0);
	assert_true(r.separated);
	assert_true(r.spread < 0.05);

	/* Reversed preference: the pick follows it, the region does not move. */
	for (int i = 0; i < 6; i++)
		c[i].preference = 10 - i;
	calib_region__select(c, 6, true, CALIB_REGION_LINK, &r);
	assert_int_equal(r.nmembers, 4);
	assert_int_equal(r.pick, 3);

	/* Costs: lower is better. */
	const double costs[] = { 13.2, 0.34, 0.34, 20 };
	make_candidates(costs, 4, 0.001, 5, c);
	calib_region__select(c, 4, false, CALIB_REGION_LINK, &r);
	assert_int_equal(r.nmembers, 2);
	assert_true(r.members[0] == 1 && r.members[1] == 2);
}

static void test_region_stable_across_runs(void **state)
{
	/* The verdict must not depend on the run: twenty "runs" of the same
	 * host (new noise each time) give the same pick. */
	const double centers[] = { 5.0, 5.19, 5.2, 5.18, 5.1, 3.9, 3.8 };
	struct calib_candidate c[7];
	struct calib_region r;
	int picks[7] = { 0 }, best_seen[7] = { 0 };

	for (uint64_t run = 1; run <= 20; run++) {
		make_candidates(centers, 7, 0.05, run * 7919, c);
		/* Preference: candidate 1 first, as a fixed rule would say. */
		for (int i = 0; i < 7; i++)
			c[i].preference = i == 1 ? 0 : 1 + i;
		calib_region__select(c, 7, true, CALIB_REGION_LINK, &r);
		picks[r.pick]++;
		best_seen[r.best]++;
	}
	assert_int_equal(picks[1], 20);
	/* ...while the raw winner wandered, as in the five runs. */
	int winners = 0;
	for (int i = 0; i < 7; i++)
		winners += best_seen[i] > 0;
	assert_true(winners >= 2);
}

static void test_region_unseparated(void **state)
{
	/* Noise so wide that every candidate overlaps the best. */
	const double centers[] = { 5.0, 5.5, 4.5, 6.0 };
	struct calib_candidate c[4];
	struct calib_region r;

	make_candidates(centers, 4, 0.9, 13, c);
	assert_int_equal(calib_region__select(c, 4, true, CALIB_REGION_LINK, &r), 4);
	assert_false(r.separated);
	/* Unmeasured candidates are never members. */
	c[2].n = 0;
	calib_region__select(c, 4, true, CALIB_REGION_LINK, &r);
	for (int i = 0; i < r.nmembers; i++)
		assert_int_not_equal(r.members[i], 2);
	for (int i = 0; i < 4; i++)
		c[i].n = 0;
	assert_int_equal(calib_region__select(c, 4, true, CALIB_REGION_LINK, &r), 0);
	assert_int_equal(r.best, -1);
	assert_int_equal(r.pick, -1);
}

static void test_region_edge_at_the_break(void **state)
{
	/* The shape of this host's light-contention sweep (2026-12-01): 23
	 * configurations from 7.9 down to 7.0 M acq/s a few tenths apart, then
	 * a break to 6.0, 5.9 and 4.9; 5 repetitions with 3% noise, and one
	 * outlying fast repetition in every configuration. Twenty runs must
	 * put the edge at the break every time: a fixed distance from the best
	 * would cut through the 7s and move with each run. */
	double centers[26];
	struct calib_candidate c[26];
	struct calib_region r;

	for (int i = 0; i < 23; i++)
		centers[i] = 7.9 - 0.9 * i / 22;
	centers[23] = 6.0, centers[24] = 5.9, centers[25] = 4.9;
	for (uint64_t run = 1; run <= 20; run++) {
		make_candidates_reps(centers, 26, 0.03, 5, run % 2, run * 104729, c);
		assert_int_equal(calib_region__select(c, 26, true, CALIB_REGION_LINK, &r), 23);
		for (int i = 0; i < 23; i++)
			assert_int_equal(r.members[i], i);
		assert_true(r.separated);
		assert_int_equal(r.pick, 0);
		assert_true(r.spread > 0.05 && r.spread < 0.25);
	}
}

static void test_region_no_break_is_unseparated(void **state)
{
	/* An even slope from 8 to 4 with no break: the chain would link them
	 * all; it stops at 25% below the best and says it found no edge. */
	double centers[26];
	struct calib_candidate c[26];
	struct calib_region r;

	for (int i = 0; i < 26; i++)
		centers[i] = 8.0 - 4.0 * i / 25;
	make_candidates(centers, 26, 0.01, 5, c);
	calib_region__select(c, 26, true, CALIB_REGION_LINK, &r);
	assert_false(r.separated);
	assert_true(r.nmembers >= 2 && r.nmembers < 26);
	assert_true(r.spread <= CALIB_REGION_SPAN);
}

/* Per-run readings of one level, as this project's host gave them
 * (bench/cpu_distance.c: near 49-85 ns, far 310-490): near and far split
 * between them; one state, or two groups too close to be two distances,
 * is one state; nothing read is none. */
static void test_distance_split(void **state)
{
	double both[40], near_only[20], close[20], cut;
	const double none[] = { 0, 0, 0 };
	struct calib_mode m[2];

	(void)state;
	for (int i = 0; i < 40; i++)
		both[i] = i < 24 ? 55.0 + i % 7 : 320.0 + 3 * (i % 9);
	assert_int_equal(calib_distance__split(both, 40, m, &cut), 2);
	assert_true(m[0].median > 54 && m[0].median < 62);
	assert_true(m[1].median > 319 && m[1].median < 345);
	assert_true(cut > m[0].median && cut < m[1].median);
	assert_int_equal(m[0].n, 24);
	for (int i = 0; i < 20; i++) {
		near_only[i] = 50.0 + i;
		close[i] = i < 10 ? 60.0 : 130.0;	/* 2.2x apart: not two distances */
	}
	assert_int_equal(calib_distance__split(near_only, 20, m, &cut), 1);
	assert_true(cut == 0 && m[0].median > 50 && m[0].median < 70);
	assert_int_equal(calib_distance__split(close, 20, m, &cut), 1);
	assert_true(cut == 0 && m[0].n == 20);
	assert_int_equal(calib_distance__split(none, 3, m, &cut), 0);
	/* Two readings disturbed (a vCPU descheduled mid-reading) among 40
	 * near ones make no far state. */
	for (int i = 0; i < 40; i++)
		both[i] = i < 2 ? 900.0 : 55.0 + i % 7;
	assert_int_equal(calib_distance__split(both, 40, m, &cut), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_interval),
		cmocka_unit_test(test_stats_carry_the_interval),
		cmocka_unit_test(test_repeat_until_goal_or_budget),
		cmocka_unit_test(test_modes_bimodal),
		cmocka_unit_test(test_modes_unimodal),
		cmocka_unit_test(test_region_equivalent_and_distinct),
		cmocka_unit_test(test_region_stable_across_runs),
		cmocka_unit_test(test_region_unseparated),
		cmocka_unit_test(test_region_edge_at_the_break),
		cmocka_unit_test(test_region_no_break_is_unseparated),
		cmocka_unit_test(test_distance_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

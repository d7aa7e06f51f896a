// SPDX-License-Identifier: GPL-2.0
/*
 * The statistical rule of calibration verdicts (see calib_stat.h): median
 * intervals, modes, adaptive repetition and the good region.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/sort.h"
#include "calib_stat.h"
#include "calib_util.h"

/* Largest k (1-based) with P(k <= B <= n-k) >= level for B ~ Bin(n, 1/2);
 * 0 when even k = 1 falls short. */
static int median_rank(int n, double level)
{
	double pmf, cdf = 0;
	int k = 0;

	if (n > 1000)	/* normal approximation; exact below */
		return (int)floor(n / 2.0 - 1.959964 * sqrt((double)n) / 2.0);
	pmf = pow(0.5, n);
	/* cdf = P(B <= j); coverage of rank j + 1 is 1 - 2 cdf. */
	for (int j = 0; j < n / 2; j++) {
		cdf += pmf;
		if (1 - 2 * cdf < level)
			break;
		k = j + 1;
		pmf = pmf * (n - j) / (j + 1);
	}
	return k;
}

double calib_ci__median(const double *sorted, int n, double *lo, double *hi)
{
	int k;
	double cdf = 0, pmf;

	*lo = *hi = 0;
	if (n <= 0)
		return 0;
	k = median_rank(n, CALIB_CI_LEVEL);
	if (k < 1)
		k = 1;
	*lo = sorted[k - 1];
	*hi = sorted[n - k];
	if (n > 1000)
		return CALIB_CI_LEVEL;
	pmf = pow(0.5, n);
	for (int j = 0; j < k; j++) {
		cdf += pmf;
		pmf = pmf * (n - j) / (j + 1);
	}
	return 1 - 2 * cdf;
}

double calib_ci__rel(double median, double lo, double hi)
{
	if (median == 0 || !isfinite(median))
		return 1.0;
	return (hi - lo) / (2 * fabs(median));
}

double calib_ci__rel_of(const double *samples, int n)
{
	struct calib_stats st;

	if (n < 2)
		return 1.0;
	calib_stats__compute(&st, samples, n);
	return calib_ci__rel(st.median, st.ci_lo, st.ci_hi);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of_sorted(const double *s, int n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Relative width of a sorted group: largest / smallest. */
static double group_width(const double *s, int n)
{
	return s[0] > 0 ? s[n - 1] / s[0] : INFINITY;
}

int calib_distance__split(const double *ns, int n, struct calib_mode modes[2], double *cut)
{
	double *v = malloc(sizeof(*v) * (size_t)(n > 0 ? n : 1)), lo, hi;
	int m = 0, k = 0;

	*cut = 0;
	if (!v)
		return 0;
	for (int i = 0; i < n; i++)
		if (ns[i] > 0)
			v[m++] = ns[i];
	if (!m) {
		free(v);
		return 0;
	}
	ss_sort(v, (size_t)m, sizeof(*v), cmp_double);
	/* The 10th and 90th percentiles, so that a few disturbed readings
	 * (a vCPU descheduled mid-reading) neither make a state nor hide one. */
	lo = v[(m - 1) / 10];
	hi = v[(m - 1) - (m - 1) / 10];
	if (m >= 4 && hi >= CALIB_DISTANCE_CHANGE * lo) {
		*cut = sqrt(lo * hi);
		while (k < m && v[k] < *cut)
			k++;
	}
	if (k < 2 || m - k < 2) {	/* one state: all of them */
		*cut = 0;
		modes[0] = (struct calib_mode){ median_of_sorted(v, m), 1, m };
		free(v);
		return 1;
	}
	modes[0] = (struct calib_mode){ median_of_sorted(v, k), (double)k / m, k };
	modes[1] = (struct calib_mode){ median_of_sorted(v + k, m - k), (double)(m - k) / m, m - k };
	free(v);
	return 2;
}

int calib_modes__find(const double *samples, int n, struct calib_mode *modes)
{
	double *s, gap = 0;
	int min_n, cut = -1;

	if (n <= 0)
		return 0;
	s = malloc(sizeof(*s) * (size_t)n);
	if (!s)
		return 0;
	memcpy(s, samples, sizeof(*s) * (size_t)n);
	ss_sort(s, (size_t)n, sizeof(*s), cmp_double);
	min_n = (int)ceil(CALIB_MODE_MIN_SHARE * n);
	if (min_n < 2)
		min_n = 2;
	/* The widest gap that leaves enough samples on both sides. */
	for (int i = min_n; i <= n - min_n; i++) {
		double g = s[i - 1] > 0 ? s[i] / s[i - 1] : 0;

		if (g > gap) {
			gap = g;
			cut = i;
		}
	}
	if (cut > 0 && gap >= CALIB_MODE_GAP && group_width(s, cut) < gap &&
	    group_width(s + cut, n - cut) < gap) {
		modes[0] = (struct calib_mode){ median_of_sorted(s, cut), (double)cut / n, cut };
		modes[1] = (struct calib_mode){ median_of_sorted(s + cut, n - cut),
						(double)(n - cut) / n, n - cut };
		free(s);
		return 2;
	}
	modes[0] = (struct calib_mode){ median_of_sorted(s, n), 1.0, n };
	free(s);
	return 1;
}

int calib__repeat_until(const struct calib_goal *goal, volatile sig_atomic_t *stop,
			double (*measure)(void *arg), void *arg, double *samples,
			struct calib_reached *reached)
{
	int min_reps = goal->min_reps < 3 ? 3 : goal->min_reps, n = 0;
	uint64_t t0 = calib__now_ns();
	struct calib_reached r = { 0 };
	struct calib_stats st;

	if (min_reps > goal->max_reps)
		min_reps = goal->max_reps;
	while (n < goal->max_reps && !(stop && *stop)) {
		samples[n++] = measure(arg);
		if (n < min_reps)
			continue;
		calib_stats__compute(&st, samples, n);
		r.rel_ci = calib_ci__rel(st.median, st.ci_lo, st.ci_hi);
		if (r.rel_ci <= goal->rel_ci) {
			r.goal_met = true;
			break;
		}
		if (calib__now_ns() - t0 >= goal->budget_ns) {
			r.budget_spent = true;
			break;
		}
	}
	r.n = n;
	if (reached)
		*reached = r;
	return n;
}

/* Whether a is better than b in the region's direction. */
static bool better(double a, double b, bool higher_better)
{
	return higher_better ? a > b : a < b;
}

double calib_region__se(double median, double mad, int n)
{
	if (n <= 0 || median == 0 || !isfinite(mad))
		return 0;
	return 1.2533 * 1.4826 * mad / sqrt((double)n) / fabs(median);
}

/* The noise cannot tell a's median from b's. */
static bool indistinct(const struct calib_candidate *a, const struct calib_candidate *b)
{
	double sa = a->se_rel * fabs(a->median), sb = b->se_rel * fabs(b->median);

	return fabs(a->median - b->median) <= CALIB_REGION_Z * sqrt(sa * sa + sb * sb);
}

/* The measured candidates' indexes into order[], best first; returns how
 * many. Insertion sort: n <= CALIB_MAX_CANDIDATES. */
static int sort_measured(const struct calib_candidate *c, int n, bool higher_better, int *order)
{
	int m = 0;

	for (int i = 0; i < n; i++) {
		int k = m++;

		if (c[i].n <= 0 || !isfinite(c[i].median)) {
			m--;
			continue;
		}
		for (; k > 0 && better(c[i].median, c[order[k - 1]].median, higher_better); k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	return m;
}

/* Walks the sorted candidates from the best: the chain of linked
 * neighbours, plus any the noise cannot tell from the best. Sets in[] and
 * returns whether the chain ran past CALIB_REGION_SPAN (no natural edge). */
static bool cluster(const struct calib_candidate *c, const int *order, int m, double link,
		    bool *in)
{
	const struct calib_candidate *best = &c[order[0]], *prev = best;
	double ref = best->median ? fabs(best->median) : 1;
	bool chained = true, capped = false;

	in[order[0]] = true;
	for (int k = 1; k < m; k++) {
		const struct calib_candidate *j = &c[order[k]];
		bool linked = fabs(prev->median - j->median) / ref <= link || indistinct(prev, j);

		if (chained && linked && fabs(best->median - j->median) / ref > CALIB_REGION_SPAN)
			capped = true;
		chained = chained && linked && !capped;
		if (chained || indistinct(j, best)) {
			in[order[k]] = true;
			prev = j;
		}
	}
	return capped;
}

int calib_region__select(const struct calib_candidate *c, int n, bool higher_better,
			 double link, struct calib_region *out)
{
	int order[CALIB_MAX_CANDIDATES], m;
	bool in[CALIB_MAX_CANDIDATES] = { false }, capped;

	memset(out, 0, sizeof(*out));
	out->best = out->pick = -1;
	if (n > CALIB_MAX_CANDIDATES)
		n = CALIB_MAX_CANDIDATES;
	m = sort_measured(c, n, higher_better, order);
	if (!m)
		return 0;
	out->best = order[0];
	capped = cluster(c, order, m, link, in);
	for (int i = 0; i < n; i++) {
		double gap;

		if (!in[i])
			continue;
		out->members[out->nmembers++] = i;
		if (out->pick < 0 || c[i].preference < c[out->pick].preference)
			out->pick = i;
		gap = fabs(c[out->best].median - c[i].median) /
		      (c[out->best].median ? fabs(c[out->best].median) : 1);
		if (gap > out->spread)
			out->spread = gap;
	}
	/* One candidate alone separates nothing either. */
	out->separated = m > 1 && out->nmembers < m && !capped;
	return out->nmembers;
}

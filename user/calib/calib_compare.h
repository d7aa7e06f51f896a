/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `spinscope calibrate --compare A.json B.json`: the headline figures of
 * two calibrations side by side, B/A ratios, and which differences exceed
 * the noise the two runs measured (their 95% intervals of the median do
 * not overlap), then the verdicts (interference size, lock strategy
 * regions and, where a level met two CPU-distance states, each state's
 * region and what they share, cheapest fit spin hint). What a runtime engineer bringing up new
 * hardware wants: SB against ISB on a new AArch64 part, say.
 */
#ifndef SPINSCOPE_CALIB_COMPARE_H
#define SPINSCOPE_CALIB_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

/* One headline figure: where it is in a family's results (a dot path;
 * numeric segments index arrays), where older files kept it, its words. */
struct calib_headline {
	const char *family;
	const char *path;
	const char *fallback;		/* NULL: none */
	const char *label;
	double scale;			/* divide the stored value by it for unit */
	const char *unit;
};

extern const struct calib_headline calib_headlines[];
extern const int calib_nheadlines;

/* A headline figure of one document: its median and interval (ci_lo ==
 * ci_hi == median when the file kept no spread), whether it was there,
 * and whether its repetitions fell into two modes. */
struct calib_figure {
	bool have;
	bool noise_known;
	bool bimodal;
	double median, ci_lo, ci_hi;
	double mode[2], share[2];	/* when bimodal, lower first */
};

bool calib_compare__figure(const json_object *doc, const struct calib_headline *h,
			   struct calib_figure *out);

/* Prints the comparison of documents a and b (named by their paths) as
 * text, or as one JSON document when json. Returns 0. */
int calib_compare__print(const json_object *a, const char *a_name, const json_object *b,
			 const char *b_name, bool json, FILE *out);

#endif

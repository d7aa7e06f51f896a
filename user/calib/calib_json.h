/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON form of the measurement helpers (calib_util.h) and the small
 * formatting helpers every family's table uses, so that every figure is
 * saved, warned about and printed the same way.
 */
#ifndef SPINSCOPE_CALIB_JSON_H
#define SPINSCOPE_CALIB_JSON_H

#include <stdio.h>
#include <json-c/json.h>
#include "calib/kern/calib_util.h"

/* {"median":..,"min":..,"max":..,"cv":..,"ci_lo":..,"ci_hi":..,"mad":..,"n":..} (ci: the
 * 95% interval of the median, calib_stat.h) plus "warning": "<why>"
 * when cv > cv_limit (CALIB_CV_INSTR or CALIB_CV_CONTENTION), when there
 * were fewer than 3 samples, or when busy says the host was busy (busy may
 * be NULL). Returns NULL only when out of memory. */
json_object *calib_stats__json(const struct calib_stats *st, double cv_limit,
			       const struct calib_busy *busy);
/* Adds to fig what its repetition goal was and what it reached:
 * "rel_ci" (the interval's relative half-width), "rel_ci_goal", and
 * and "goal_met". */
void calib_json__goal(json_object *fig, const struct calib_stats *st, double goal);

/* Reads a figure written by calib_stats__json from obj[key]. Returns false
 * when it is missing or malformed; *warning (may be NULL) gets the warning
 * or NULL. */
bool calib_stats__from_json(const json_object *obj, const char *key,
			    struct calib_stats *st, const char **warning);

/* {"load1","load1_end","others_cpu_share","steal_frac","cpu_mhz",
 * "cpu_mhz_source","busy":bool,"why"}: the conditions of calib_conditions.h */
json_object *calib_busy__json(const struct calib_busy *b);
/* {"threads":N,"overlap":..,"wall_ns":..,"cpus":[..]} plus "warning" when
 * overlap < CALIB_OVERLAP_OK: the threads did not all run at once. */
json_object *calib_team__json(const struct calib_team_result *r);

/* json_object_array_length, 0 for anything that is not an array (NULL
 * included): a file read back may have any shape, and json-c asserts the
 * type (a hand-edited store aborted `calibrate --show`). */
static inline size_t calib_json__len(const json_object *o)
{
	return json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
}

/* json_object_array_get_idx, NULL for anything that is not an array
 * (json-c asserts there too) or past its end. */
static inline json_object *calib_json__at(const json_object *o, size_t i)
{
	return json_object_is_type(o, json_type_array) ? json_object_array_get_idx(o, i) : NULL;
}

/* Marks a family result as skipped with its reason. */
void calib_json__skip(json_object *result, const char *reason);
/* obj[key] as a double / string, or dflt when absent. */
double calib_json__double(const json_object *obj, const char *key, double dflt);
/* The median of a cpu_distance object's readings ({"round_trip_ns":
 * [...]}, zeros "not read", calib_distance.h); 0 when it has none. */
double calib_json__distance_ns(const json_object *cpu_distance);
const char *calib_json__string(const json_object *obj, const char *key, const char *dflt);
/* Whether a family's result was measured by calibrate --full: its "mode",
 * which the driver sets (files from before it say nothing: --quick). */
bool calib_json__full_run(const json_object *family);

/* Table cell for obj[key]: the median with printf format fmt ("%.2f"),
 * then "±N%" and a trailing "!" when the figure carries a warning; "-"
 * when absent. Returns buf. */
const char *calib_json__cell(const json_object *obj, const char *key,
			     const char *fmt, char *buf, size_t len);
/* Prints the "warning"s found in obj (recursively), one line each with the
 * figure named in words ("shared counter, 2 threads, pause"; a
 * family's own warning unnamed), except spread warnings, which the tables mark with
 * "!" and one closing line counts. Returns how many warnings there were. */
int calib_json__print_warnings(const json_object *obj, FILE *out);

#endif

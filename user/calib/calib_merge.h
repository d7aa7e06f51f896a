/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a new calibration run may replace in the stored one, family by
 * family, so that a bad moment never overwrites a good calibration:
 *
 *  - a family measured on a busier host (others' CPU share plus steal, see
 *    calib_conditions.h) does not replace one measured on a quieter host,
 *    unless forced (`calibrate --force`);
 *  - an interrupted (partial) or failed family never replaces a complete
 *    one, nor does a skipped family replace a measured one;
 *  - a family of a --full run is not replaced by one of a --quick run on a
 *    host as quiet, unless forced or older than CALIB_CARRY_MAX_AGE_S:
 *    the steadier measurement stays;
 *  - a stored family whose figures fail calib_host.h's checks is replaced
 *    by anything;
 *  - families this run did not measure are kept;
 *  - a spin_threshold level whose run met one CPU-distance state keeps
 *    the stored verdict of the other state beside its own
 *    (calib_merge__carry_states()).
 *
 * Each family kept over this run's gets one note saying which one was kept
 * and why, in words.
 */
#ifndef SPINSCOPE_CALIB_MERGE_H
#define SPINSCOPE_CALIB_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/* Two families whose busy scores differ by less than this are equally
 * quiet: the newer one is taken. */
#define CALIB_MERGE_QUIETER 0.05

struct calib_merge_note {
	char family[32];
	char text[400];
};

/* How busy a family's host was: others' CPU share plus steal, from its
 * "busy" object; 0 for a quiet family of an older file that only says
 * "busy": false, 1 for one that says true. */
double calib_merge__busy_score(const json_object *family);

/* Merges fresh results into stored ones (stored may be NULL; neither is
 * changed). Returns a new results object, NULL when out of memory; fills
 * notes[0..max-1] and *nnotes with the families where the stored one was
 * kept. */
json_object *calib_merge__results(const json_object *stored, const json_object *fresh,
				  bool force, struct calib_merge_note *notes, size_t max,
				  size_t *nnotes);

/*
 * spin_threshold only (calib_merge_states.c): for each contention level of
 * fresh that met one distance between its CPUs (no cpu_distance.states of
 * its own), where the stored family's level has a verdict for a distance
 * CALIB_DISTANCE_CHANGE times nearer or farther (one of its states, or its
 * whole verdict when it met one state), that verdict becomes fresh's other
 * state, nearest first, marked "carried_from" with the stored family's
 * measured_at (a state carried before keeps its own). Only from a stored
 * family not flagged busy, of the same lock workload (cs_work,
 * outside_work, spin_hint), and a level of the same threads on the same
 * CPUs, and only a verdict measured at most CALIB_CARRY_MAX_AGE_S before
 * fresh (a time that does not read as "YYYY-MM-DD HH:MM:SS UTC" is
 * carried, as before: its time is shown wherever it is used). fresh's
 * "changed" stays what its own readings said. Returns the levels that got
 * one (calib_merge__results then keeps them only if they pass the
 * advisor's checks).
 */
int calib_merge__carry_states(json_object *fresh, const json_object *stored);

/* How old a carried state may be, against the run it is carried into: a
 * week. The other state is a fact of where the VM's vCPUs may sit, which
 * its host's maintenance and migrations change; a verdict carried on run
 * after run would otherwise outlive the placement it was measured on. */
#define CALIB_CARRY_MAX_AGE_S (7 * 24 * 3600L)
/* Whether something measured at from is more than CALIB_CARRY_MAX_AGE_S
 * older than a run measured at now (both as measured_at, "YYYY-MM-DD
 * HH:MM:SS UTC"; either unreadable: not). */
bool calib_merge__too_old(const char *from, const char *now);

/* "2026-12-01 12:26 UTC by --quick, other processes 3% of the CPUs, steal
 * 0%, load 0.99, 2100 MHz (cpufreq)": when, by which run (files from
 * before "mode" say nothing) and under what load a family was measured,
 * for --show and the notes. Returns buf. */
const char *calib_merge__conditions(const json_object *family, char *buf, size_t len);

#endif

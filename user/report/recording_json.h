/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sections that make a JSON report a recording (docs/RECORDING.md):
 * what `spinscope report` and `spinscope diff` need to rebuild the model
 * on another machine. The live --json carries them too: one document.
 */
#ifndef SPINSCOPE_RECORDING_JSON_H
#define SPINSCOPE_RECORDING_JSON_H

#include <json-c/json.h>
#include "report.h"

/* "recording": "MAJOR.MINOR". A reader refuses a newer major (a field
 * changed meaning); a newer minor only added keys it may ignore. */
#define SS_RECORDING_MAJOR 1
#define SS_RECORDING_MINOR 1

/* The columns of an interval's per-thread rows ("interval_thread_columns"):
 * [tid, then these thread counters of that interval]. */
#define SS_INTERVAL_THREAD_COLUMNS(X)						\
	X(futex_wait_ns) X(futex_wait) X(sched_yield) X(oncpu_ns) X(runq_ns)

/* An interval's threads as rows [tid, columns...], only the threads that
 * waited, yielded or ran in it: what diff's thread groups need of the -i
 * series, at a fraction of the per-thread objects' size. */
json_object *recording__interval_threads(const struct ss_profile *interval);

/* Adds the recording's sections to root, a report_to_json() document
 * whose "threads" and "futexes" arrays are in r->profile's order. */
void recording__add_sections(json_object *root, const struct ss_report *r);

#endif

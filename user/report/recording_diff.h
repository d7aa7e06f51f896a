/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two recordings of the same program compared (`spinscope diff`): the
 * totals, each lock (matched by the name its waiters' stacks give it, not
 * by its address, which changes between runs), each sched_yield call site
 * (by function) and each thread group (threads whose names differ only in
 * digits), per second of trace; whether each change exceeds the run-to-run
 * noise the -i series show; and how the findings changed. Pure: models in,
 * rows out.
 */
#ifndef SPINSCOPE_RECORDING_DIFF_H
#define SPINSCOPE_RECORDING_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include "recording_read.h"

enum diff_unit { DIFF_COUNT, DIFF_NS };
enum diff_section { DIFF_TOTALS, DIFF_LOCKS, DIFF_YIELD_SITES, DIFF_THREAD_GROUPS, DIFF_SECTIONS };

/* significance: the change against the noise of its counter. */
enum diff_sig { DIFF_SIG_UNKNOWN = -1, DIFF_SIG_NO = 0, DIFF_SIG_YES = 1 };

struct diff_row {
	enum diff_section section;
	char name[160];			/* lock, site or group; "" for totals */
	const char *metric;		/* "futex_wait_ns", "sched_yield", ... */
	enum diff_unit unit;
	double before, after;		/* per second of trace */
	double noise;			/* the two interval spreads pooled, per second; < 0: unknown */
	enum diff_sig significant;
};

enum diff_change { DIFF_SAME, DIFF_APPEARED, DIFF_DISAPPEARED, DIFF_WORSE, DIFF_BETTER };

struct diff_finding {
	char id[32];
	char title[160];
	const char *before, *after;	/* severity names, NULL: absent */
	enum diff_change change;
};

struct recording_diff {
	struct diff_row *rows;
	size_t nrows;
	struct diff_finding *findings;
	size_t nfindings;
	size_t intervals_before, intervals_after;
	size_t significant;		/* rows that changed beyond noise */
};

/* A change counts when it exceeds this many interval spreads (the stdev of
 * one interval's rate, the two runs' pooled): a run's mean moves less than
 * its intervals, but two runs on a loaded host differ by more than their
 * intervals' spread says, so the margin is wide... */
#define DIFF_NOISE_SPREADS 3.0
/* ... and this share of the larger value (tiny counts move a lot). */
#define DIFF_MIN_SHARE 0.20

int recording_diff__compute(const struct ss_recording *before, const struct ss_recording *after,
			    struct recording_diff *out);
void recording_diff__free(struct recording_diff *d);

/* "worker (app)" from "worker+0x38 (app)"; "worker-#" from "worker-12". */
void diff__site_name(const char *frame, char *buf, size_t len);
void diff__group_name(const char *comm, char *buf, size_t len);

const char *diff__section_name(enum diff_section s);
const char *diff__change_name(enum diff_change c);

#endif

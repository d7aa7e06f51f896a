/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `spinscope calibrate`: its options and family table, exposed so tests
 * check the parser without running the kernels.
 */
#ifndef SPINSCOPE_CALIBRATE_H
#define SPINSCOPE_CALIBRATE_H

#include <sched.h>
#include <stdbool.h>
#include "calib/calib.h"

struct calibrate_opts {
	bool quick;		/* default; --full clears it */
	bool json;
	bool show;		/* print saved results, measure nothing */
	bool help;		/* -h: usage printed, exit 0 */
	bool force;		/* replace stored families even from a busier host */
	const char *compare[2];	/* --compare A B: print both, measure nothing */
	const char *path;	/* -o FILE, or NULL for the default place */
	unsigned only;		/* bit i: families[i] selected */
	cpu_set_t cpus;		/* --cpus, or every CPU this process may use */
};

/* The six families in run order. */
extern const struct calib_family *const calibrate_families[];
extern const int calibrate_nfamilies;

/* Parses argv (argv[0] is "calibrate"). Returns 0, or an exit code after
 * printing one line on stderr (SS_EXIT_USAGE for bad arguments). */
int calibrate__parse_args(int argc, char **argv, struct calibrate_opts *o);

#endif

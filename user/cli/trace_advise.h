/* SPDX-License-Identifier: GPL-2.0 */
/* The advise stage of `spinscope -p` (trace_cmd.c): model in, findings out. */
#ifndef SPINSCOPE_TRACE_ADVISE_H
#define SPINSCOPE_TRACE_ADVISE_H

#include <signal.h>
#include "advisor/advisor.h"
#include "cli.h"
#include "report/advice.h"
#include "report/report.h"

/* Fills the advisor's input from the report's model (profile, stacks,
 * samples). When the findings will rest on families the stored calibration
 * lacks (calib_host__wanted), measures just those first (unless
 * o->no_calibrate; mask is restored in the calibrating child); then runs
 * the advisor once, on the calibration as it is then. *out is NULL when there
 * is nothing to advise on (an empty trace) or on failure. in keeps the
 * advisor's input (the recording holds it); the caller frees it with
 * advice__free_input(). Returns 0 or -errno. */
int trace_advise(const struct ss_report *rep, const struct ss_opts *o, const sigset_t *mask,
		 struct advice_input *in, struct adv_report **out);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The advise stage of `spinscope report`: the advisor runs on the model read
 * from a recording, with the calibration the recording carries or, with
 * --calibration FILE, another host's.
 */
#ifndef SPINSCOPE_REPORT_ADVISE_H
#define SPINSCOPE_REPORT_ADVISE_H

#include <json-c/json.h>
#include "report/advice.h"
#include "report/recording_read.h"

struct report_advice {
	struct advice_input in;
	struct adv_host host;
	struct adv_report *advice;	/* NULL: nothing to advise on */
	json_object *calibration;	/* as the recording will say it, owned */
};

/* 0, or an SS_EXIT_* code with why set (a --calibration file that is not
 * one). */
int report_advise(const struct ss_recording *rec, const char *calibration_path,
		  struct report_advice *out, char *why, size_t whylen);
void report_advise__free(struct report_advice *ra);

#endif

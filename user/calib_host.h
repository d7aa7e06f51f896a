/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between a stored calibration and the advisor: fills struct adv_host from
 * the saved "results" JSON, and says which families a report's findings
 * rest on, so that `spinscope -p` measures just those when none is stored.
 */
#ifndef SPINSCOPE_CALIB_HOST_H
#define SPINSCOPE_CALIB_HOST_H

#include <stddef.h>
#include <json-c/json.h>
#include "advisor/advisor.h"

/* Fills h's families from results (measured on this host: present and
 * matches are set). Families absent or skipped stay !present. */
void calib_host__fill(const json_object *results, const char *machine, struct adv_host *h);

/* Comma-separated calibrate families ("host_costs,spin_threshold") that
 * the findings in r rest on and h lacks; "" when none. Returns buf. */
const char *calib_host__needed(const struct adv_report *r, const struct adv_host *h, char *buf,
			       size_t len);

#endif

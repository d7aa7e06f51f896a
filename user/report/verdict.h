/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict: what a person reads first. Each warning or critical finding
 * in one line (severity, what, where in the user's code, its cost), then
 * the single first thing to do; or one line saying the process is healthy.
 * The text report and --brief print it under the header, the -i series
 * ends with it in one line, JSON carries it as "verdict", the HTML page
 * leads with it.
 */
#ifndef SPINSCOPE_VERDICT_H
#define SPINSCOPE_VERDICT_H

#include <stdio.h>
#include <json-c/json.h>
#include "advisor/advisor.h"

/* At most this many finding lines; the rest are counted in one line. */
#define SS_VERDICT_MAX_LINES 8

/* The VERDICT block, ending with a blank line. */
void verdict__print_text(const struct adv_report *r, FILE *out);
/* The verdict in one line, with its newline: the most severe finding and
 * the first thing to do, or "healthy". */
void verdict__print_line(const struct adv_report *r, FILE *out);
/* {"healthy": bool, "findings": [{id, severity, what, where, cost}],
 *  "first_action": string or null}. */
json_object *verdict__to_json(const struct adv_report *r);
/* The first sentence of a recommendation (its action) into buf. */
const char *verdict__first_sentence(const char *rec, char *buf, size_t len);

#endif

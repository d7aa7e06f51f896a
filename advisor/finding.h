/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building one finding: its id, severity and title, evidence lines (each a
 * label, a value with units and where it was measured) and the
 * recommendation, appended sentence by sentence. Text that does not fit
 * its fixed array is cut, never overflowed.
 */
#ifndef SPINSCOPE_ADV_FINDING_H
#define SPINSCOPE_ADV_FINDING_H

#include <stdbool.h>
#include "advisor.h"

#define ADV_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Clears f and sets its severity and title; the driver sets the id from
 * its rule table, so each id is written in one place. */
void adv_finding__init(struct adv_finding *f, enum adv_severity sev,
		       const char *title_fmt, ...) ADV_PRINTF(3, 4);
/* Adds one evidence line; false when ADV_MAX_EVIDENCE are already there. */
bool adv_finding__evidence(struct adv_finding *f, enum adv_source src, const char *label,
			   const char *fmt, ...) ADV_PRINTF(4, 5);
/* Keeps the recommendation within ADV_REC_MAX: whole sentences past it
 * (a long name can push one over) become an evidence line labelled
 * "then", cut there if need be. The driver calls it after every rule. */
void adv_finding__bound(struct adv_finding *f);
/* A cross-reference to another finding or section: an evidence line
 * labelled "see", so that no finding repeats another's subject. */
#define ADV_SEE_LABEL "see"
void adv_finding__see(struct adv_finding *f, const char *fmt, ...) ADV_PRINTF(2, 3);
/* Appends a sentence to the recommendation, separated by a space. Lead
 * with the action; ADV_REC_MAX characters in all (docs/ADVISOR.md). */
void adv_finding__recommend(struct adv_finding *f, const char *fmt, ...) ADV_PRINTF(2, 3);

#endif

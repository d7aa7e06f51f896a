/* SPDX-License-Identifier: GPL-2.0 */
/*
 * critical_section.c: who holds a contended lock, for the futex-contention
 * rule. From a lock's release sites (where the holders released it while
 * others waited) and holders: the evidence that names its critical
 * section, how long it was held while contended (a lower bound), whether
 * the holders convoy, and the recommendation to shorten or split the
 * section that dominates.
 */
#ifndef SPINSCOPE_ADV_CRITICAL_SECTION_H
#define SPINSCOPE_ADV_CRITICAL_SECTION_H

#include <stdbool.h>
#include <stddef.h>
#include "advisor.h"

/* The site that kept fx longest held while others waited (median bound
 * times holds measured), or with the most wakes when no hold was
 * measured; NULL when fx has none. *share: its part of that total, 0..1. */
const struct adv_release_site *adv_release_top(const struct adv_futex *fx, double *share);
/* Adds the evidence lines (critical section, held while contended,
 * holders, convoy); nothing when fx has no release sites. */
void adv_critical_section_evidence(const struct adv_futex *fx, struct adv_finding *f);
/* "in flush_queue, where it is held longest": where a recommendation to
 * shorten the critical section points, when a release site in the user's
 * code names it; false (buf untouched) otherwise. */
bool adv_critical_section_where(const struct adv_futex *fx, char *buf, size_t size);
/* Adds the sentences on which section to shorten or split. */
void adv_critical_section_recommend(const struct adv_futex *fx, struct adv_finding *f);

#endif

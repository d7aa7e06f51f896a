// SPDX-License-Identifier: GPL-2.0
/* thresholds.c: the advisor's thresholds as a table (thresholds.h). */
#include "thresholds.h"

#define ADV_THRESHOLD_ROW(n, v, u) { #n, v, u },
const struct adv_threshold adv_thresholds[] = { ADV_THRESHOLDS(ADV_THRESHOLD_ROW) };
#undef ADV_THRESHOLD_ROW
const size_t adv_nthresholds = sizeof(adv_thresholds) / sizeof(adv_thresholds[0]);

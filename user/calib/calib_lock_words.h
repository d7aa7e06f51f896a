/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock strategy the advisor would recommend from a calibration, in one
 * line per contention level, for `calibrate --show`: what a trace's advice
 * will quote from these results (advisor/hostcal.h, adv_cal__lock_choice),
 * the CPU-distance states and any state carried from an earlier run
 * included, so that a reader sees it without a trace.
 */
#ifndef SPINSCOPE_CALIB_LOCK_WORDS_H
#define SPINSCOPE_CALIB_LOCK_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/* "spin_then_park N=7; any N from 7 to 255 as good here" (one state),
 * "spin_then_yield N=0 (any N from 0 to 7), good in both
 * CPU-distance states (118 ns, 499 ns apart)", or "depends on the CPUs'
 * distance: spin_then_park N=7 at 118 ns, spin_then_yield N=0 at 499
 * ns"; "" when results hold no usable spin_threshold level. Returns buf. */
const char *calib_lock__advice_words(const json_object *results, bool heavy, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording checked against its schema before anything reads it (issue
 * 30 item 6): the members the report is made of have their types (the
 * target an object with a pid, threads and futexes arrays of objects, a
 * comm a string), every count is an integer from 0 to 2^63 - 1 (a
 * negative one was read as 0, a u64-max one wrapped the totals), the
 * threads' counts add up without passing 2^64, and the "totals" a
 * recording carries agree with them (sums, or the largest for a _max).
 * One clear error naming the first member that is wrong, by its path.
 */
#ifndef SPINSCOPE_RECORDING_CHECK_H
#define SPINSCOPE_RECORDING_CHECK_H

#include <stddef.h>
#include <json-c/json.h>

/* 0, or SS_EXIT_USAGE with "MEMBER: what is wrong" in why. */
int recording__check(json_object *doc, char *why, size_t whylen);

#endif

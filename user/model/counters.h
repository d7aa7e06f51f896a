/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walks over the counter lists of bpf/trace.h (SS_THREAD_COUNTERS,
 * SS_FUTEX_COUNTERS), so that nothing outside that list names every
 * counter: the profile's totals and interval differences, the advisor's
 * input and the tests use these. Each works on any two structs that hold
 * the list's fields (SS_COUNTER_FIELDS), whatever else they hold.
 */
#ifndef SPINSCOPE_COUNTERS_H
#define SPINSCOPE_COUNTERS_H

#include <stddef.h>
#include <linux/types.h>
#include "trace.h"

#include "counter_walk.h"

/* The thread counters by index, for code that picks some of them (the text
 * report's columns) and for tests that walk them all at run time. */
#define SS_CTR_ENUM_C(name, kind, unit, json) SS_CTR_##name,
#define SS_CTR_ENUM_A(name, slots, kind, unit, json) SS_CTR_##name,
enum ss_thread_counter {
	SS_THREAD_COUNTERS(SS_CTR_ENUM_C, SS_CTR_ENUM_A)
	SS_THREAD_NCOUNTERS
};

/* The same for the futex counters (the text report's HOT FUTEXES line). */
#define SS_FCTR_ENUM_C(name, kind, unit, json) SS_FCTR_##name,
#define SS_FCTR_ENUM_A(name, slots, kind, unit, json) SS_FCTR_##name,
enum ss_futex_counter {
	SS_FUTEX_COUNTERS(SS_FCTR_ENUM_C, SS_FCTR_ENUM_A)
	SS_FUTEX_NCOUNTERS
};

enum ss_counter_kind { SS_KIND_SUM, SS_KIND_MAX };
enum ss_counter_unit { SS_UNIT_COUNT, SS_UNIT_NS };
enum ss_counter_json { SS_JSON_NONE, SS_JSON_ALL, SS_JSON_THREAD };

struct ss_counter_desc {
	const char *name;		/* the field's name */
	const char *json_key;		/* NULL: not in JSON */
	size_t offset;			/* in struct ss_thread (ss_futex) */
	size_t slots;			/* 1 for a scalar */
	enum ss_counter_kind kind;
	enum ss_counter_unit unit;
	enum ss_counter_json json;
};

extern const struct ss_counter_desc ss_thread_counter_descs[SS_THREAD_NCOUNTERS];
extern const struct ss_counter_desc ss_futex_counter_descs[SS_FUTEX_NCOUNTERS];

#endif

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

/* dst += src: sums add, maxima keep the larger. */
#define SS_ADD_SUM(d, s) ((d) += (s))
#define SS_ADD_MAX(d, s) ((d) = (d) > (s) ? (d) : (s))
/* dst -= earlier src, for an interval: maxima keep the running maximum. */
#define SS_SUB_SUM(d, s) ((d) -= (s))
#define SS_SUB_MAX(d, s) ((void)0)
#define SS_COPY_SUM(d, s) ((d) = (s))
#define SS_COPY_MAX(d, s) ((d) = (s))

#define SS_WALK_C_(op, name, kind) SS_##op##_##kind(ss_dst_->name, ss_src_->name);
#define SS_WALK_A_(op, name, slots, kind)					\
	for (size_t ss_i_ = 0; ss_i_ < (slots); ss_i_++)			\
		SS_##op##_##kind(ss_dst_->name[ss_i_], ss_src_->name[ss_i_]);
#define SS_ADD_C(name, kind, unit, json) SS_WALK_C_(ADD, name, kind)
#define SS_ADD_A(name, slots, kind, unit, json) SS_WALK_A_(ADD, name, slots, kind)
#define SS_SUB_C(name, kind, unit, json) SS_WALK_C_(SUB, name, kind)
#define SS_SUB_A(name, slots, kind, unit, json) SS_WALK_A_(SUB, name, slots, kind)
#define SS_COPY_C(name, kind, unit, json) SS_WALK_C_(COPY, name, kind)
#define SS_COPY_A(name, slots, kind, unit, json) SS_WALK_A_(COPY, name, slots, kind)

#define SS_COUNTERS_WALK_(list, op, dst, src) do {				\
		__typeof__(dst) ss_dst_ = (dst);				\
		__typeof__(src) ss_src_ = (src);				\
		list(SS_##op##_C, SS_##op##_A)					\
	} while (0)
/* list is SS_THREAD_COUNTERS or SS_FUTEX_COUNTERS; dst and src pointers. */
#define SS_COUNTERS_ADD(list, dst, src) SS_COUNTERS_WALK_(list, ADD, dst, src)
#define SS_COUNTERS_SUB(list, dst, src) SS_COUNTERS_WALK_(list, SUB, dst, src)
#define SS_COUNTERS_COPY(list, dst, src) SS_COUNTERS_WALK_(list, COPY, dst, src)

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

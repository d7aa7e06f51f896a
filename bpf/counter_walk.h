/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walks over a counter list of trace.h (SS_THREAD_COUNTERS,
 * SS_FUTEX_COUNTERS, SS_RELEASE_COUNTERS), so that nothing outside the
 * list names every counter: BPF's merges of a thread's pending counts
 * into a map value and user space's totals and interval differences use
 * the same walk. Each works on any two structs that hold the list's
 * fields (SS_COUNTER_FIELDS), whatever else they hold. No includes: BPF
 * objects include it after vmlinux.h, user space after linux/types.h.
 */
#ifndef SPINSCOPE_COUNTER_WALK_H
#define SPINSCOPE_COUNTER_WALK_H

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
	for (unsigned int ss_i_ = 0; ss_i_ < (slots); ss_i_++)			\
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

#endif

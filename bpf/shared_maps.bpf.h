/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps both BPF objects define alike, written once: the user stack map
 * (user space sizes it with --max-stacks and reads it through
 * user/trace/map_read.c) and the per-CPU drop counters with count_drop().
 * Define SS_DROP_SLOTS (the object's number of drop reasons) first, and
 * include after maps.bpf.h.
 */
#ifndef SPINSCOPE_SHARED_MAPS_BPF_H
#define SPINSCOPE_SHARED_MAPS_BPF_H

#ifndef SS_DROP_SLOTS
#error "define SS_DROP_SLOTS (the number of drop reasons) before shared_maps.bpf.h"
#endif

#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 2048);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SS_MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/*
 * A stack id that is bpf_get_stackid's -EEXIST: the stack was walked but
 * another stack holds its bucket. The kernel's stack map has one bucket
 * per entry (--max-stacks, 2048 by default), indexed by the low bits of
 * a 32-bit hash, and keeps the first stack hashed there, so two of a
 * trace's few dozen stacks share one in a few percent of traces and every
 * event of the second loses its stack. Counted apart from a stack that
 * could not be read, since its remedy is a larger map. (The unwinder's
 * map, bpf/unwind.bpf.h, answers -EEXIST too, at 31 bits of a 64-bit hash.)
 */
static __always_inline bool ss_stack_collided(__s32 id)
{
	return id == -EEXIST;
}

/* Why events were not (fully) recorded; always reported. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SS_DROP_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline void count_drops(__u32 reason, __u64 n)
{
	percpu_add(&drops, reason, n);
}

static __always_inline void count_drop(__u32 reason)
{
	percpu_inc(&drops, reason);
}

#endif

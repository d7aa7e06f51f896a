/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data shared between sampling.bpf.c and user space (user/trace/samples.c): the key
 * of the per-(thread, user stack) sample counts, the drop reasons and the
 * per-thread hardware counter totals. Fixed-width types with explicit
 * padding; the size asserts catch a struct that drifts between the sides.
 */
#ifndef SPINSCOPE_SAMPLING_H
#define SPINSCOPE_SAMPLING_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "common.h"	/* SS_MAX_STACK_DEPTH */

/* Counting events read per thread (for the miss ratio), in this order by
 * default: cache-misses, cache-references, instructions. */
#define SS_SAMPLE_COUNTERS 3

/* Why a sample or a counter reading was not (fully) recorded. Counted per
 * CPU and always reported. */
enum ss_sample_drop {
	SS_SAMPLE_DROP_COUNTS_FULL = 0,	/* (tid, stack) map full: sample lost */
	SS_SAMPLE_DROP_STACK_FAIL,	/* user stack unreadable: counted without one */
	SS_SAMPLE_DROP_STACK_COLLISION,	/* stack map full or hash collision: same */
	SS_SAMPLE_DROP_THREADS_FULL,	/* per-thread counter map full */
	SS_SAMPLE_DROP_COUNTER_READ,	/* bpf_perf_event_read_value failed */
	SS_SAMPLE_DROP_REGS_FULL,	/* register ring buffer full: no data address */
	SS_SAMPLE_DROP_REGS_KERNEL,	/* sampled in the kernel: no user instruction */
	SS_SAMPLE_DROPS,
};

/* Key of the sample counts (value: __u64 samples). A negative stack id is
 * the -errno of bpf_get_stackid: the sample is counted, its stack is not. */
struct ss_sample_key {
	__u32 tid;
	__s32 user_stack_id;
};

/* Counter totals of one thread over the time slices that began after
 * attach. enabled/running are the perf times of those slices: when the PMU
 * multiplexes, value * enabled / running estimates the full count. */
struct ss_sample_thread {
	__u64 value[SS_SAMPLE_COUNTERS];
	__u64 enabled[SS_SAMPLE_COUNTERS];
	__u64 running[SS_SAMPLE_COUNTERS];
	__u64 slices;			/* time slices accounted */
};

/* Per CPU: the counter readings taken when a target thread was switched in. */
struct ss_sample_cpu {
	__u64 value[SS_SAMPLE_COUNTERS];
	__u64 enabled[SS_SAMPLE_COUNTERS];
	__u64 running[SS_SAMPLE_COUNTERS];
	__u32 tid;			/* target thread on this CPU, 0 if none */
	__u32 pad;
};

/* Words of the interrupted user registers a sample keeps: the whole of
 * bpf_user_pt_regs_t (x86-64 struct pt_regs: 21 words, ip at word 16;
 * arm64 user_pt_regs: x0-x30, sp, pc, pstate: 34 words). */
#define SS_REGS_WORDS 34

/* One sample of the target in user mode, with its registers exactly as the
 * timer interrupt found them (data addresses, user/syms/data_addr.c). */
struct ss_regs_sample {
	__u32 tid;
	__u32 pad;
	__u64 regs[SS_REGS_WORDS];	/* bpf_user_pt_regs_t, as is */
};

#ifndef __VMLINUX_H__
_Static_assert(sizeof(struct ss_regs_sample) == 8 * (SS_REGS_WORDS + 1),
	       "struct ss_regs_sample layout");
_Static_assert(sizeof(struct ss_sample_key) == 8, "struct ss_sample_key layout");
_Static_assert(sizeof(struct ss_sample_thread) == 8 * (3 * SS_SAMPLE_COUNTERS + 1),
	       "struct ss_sample_thread layout");
_Static_assert(sizeof(struct ss_sample_cpu) == 8 * (3 * SS_SAMPLE_COUNTERS + 1),
	       "struct ss_sample_cpu layout");
#endif

#endif /* SPINSCOPE_SAMPLING_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both BPF objects (trace.bpf.c, sampling.bpf.c) and user space agree
 * on beyond their own maps: the stack depth kept and the log2 slot rule of
 * every histogram. Compiled on both sides, so each rule exists once.
 */
#ifndef SPINSCOPE_COMMON_H
#define SPINSCOPE_COMMON_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Frames kept per user stack: the kernel's default perf_event_max_stack. */
#define SS_MAX_STACK_DEPTH 127

/* log2 histogram of nanoseconds: slot i holds [2^i, 2^(i+1)), slot 0 also 0;
 * the last slot holds everything from 2^(SS_HIST_SLOTS-1) ns (~34 s) up. */
#define SS_HIST_SLOTS 36

/*
 * The histogram slot of v. Written without loops, builtins or branches
 * that depend on v but two (values from 2^63, and the clamp to the last
 * slot), each with one constant outcome: each step's
 * "v > 2^k - 1" is the sign bit of 2^k - 1 - v, exact below 2^63. A branch
 * per step gave the BPF verifier 64 outcomes to carry through the rest of
 * each caller, and a call to keep it out of them costs a return (through
 * the retbleed/SRSO thunk on such CPUs) at every histogram bump. User space
 * runs the same code.
 */
/* One step: where v > 2^bits - 1 (the sign bit of 2^bits - 1 - v), v is
 * shifted down by bits and bits joins the slot r; else both stay. */
#define SS_LOG2_STEP(v, r, bits)                                               \
	do {                                                                   \
		__u64 s_ = (((1ULL << (bits)) - 1 - (v)) >> 63) * (bits);      \
		(v) >>= s_;                                                    \
		(r) |= s_;                                                     \
	} while (0)

static inline __attribute__((always_inline)) __u32 ss_log2_slot(__u64 v)
{
	__u64 r = 0;

	if (v >> 63)
		return SS_HIST_SLOTS - 1;
	SS_LOG2_STEP(v, r, 32);
	SS_LOG2_STEP(v, r, 16);
	SS_LOG2_STEP(v, r, 8);
	SS_LOG2_STEP(v, r, 4);
	SS_LOG2_STEP(v, r, 2);
	r |= v >> 1;
	return r < SS_HIST_SLOTS ? (__u32)r : SS_HIST_SLOTS - 1;
}

#endif /* SPINSCOPE_COMMON_H */

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

/* The histogram slot of v. Written without loops or builtins so that the
 * verifier accepts it as it is; user space runs the same code. */
static inline __attribute__((always_inline)) __u32 ss_log2_slot(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r < SS_HIST_SLOTS ? r : SS_HIST_SLOTS - 1;
}

#endif /* SPINSCOPE_COMMON_H */

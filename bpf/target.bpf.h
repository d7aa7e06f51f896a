/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target filter every spinscope BPF program applies first (its events
 * fire for the whole host, so the common case must cost one comparison),
 * and the per-CPU counter bump used to count drops. Include once per
 * program, after bpf_helpers.h: it defines the targ_* settings.
 */
#ifndef SPINSCOPE_TARGET_BPF_H
#define SPINSCOPE_TARGET_BPF_H

const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_tid = 0;	/* 0: every thread */

static __always_inline bool is_target(__u32 tgid, __u32 tid)
{
	return tgid == targ_tgid && (!targ_tid || tid == targ_tid);
}

static __always_inline bool current_is_target(__u32 *tid)
{
	__u64 id = bpf_get_current_pid_tgid();

	*tid = (__u32)id;
	return is_target(id >> 32, (__u32)id);
}

#endif

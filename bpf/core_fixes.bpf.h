/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version shims, each in one place.
 */
#ifndef SPINSCOPE_CORE_FIXES_BPF_H
#define SPINSCOPE_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

/*
 * Kernel commit 2f064a59a11f ("sched: Change task_struct::state", 5.14)
 * renamed task_struct::state to __state and made it unsigned int.
 */
static __always_inline __u32 get_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (__u32)BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* The same from a BTF-typed task (a tp_btf argument): plain loads, where
 * BPF_CORE_READ is a bpf_probe_read_kernel call on every switch out. */
static __always_inline __u32 get_task_state_btf(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return (__u32)((struct task_struct___pre514 *)t)->state;
}

/* tp_btf (btf, a constant) or raw_tp: which of the two reads t's state. */
static __always_inline __u32 task_state_of(struct task_struct *t, bool btf)
{
	return btf ? get_task_state_btf(t) : get_task_state(t);
}

#endif

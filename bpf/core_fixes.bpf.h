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

#endif

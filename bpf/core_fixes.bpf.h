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

/*
 * The state __schedule() put prev to sleep in. Since kernel commit
 * c6e7bd7afaeb ("sched/core: Optimize ttwu() spinning on p->on_cpu", 5.8)
 * a waker on another CPU may set TASK_WAKING in prev's __state before
 * sched_switch runs (a task woken just after it was taken off the run
 * queue): read there, a futex wait that slept and was woken at once looked
 * like no sleep of interest (arm64 6.1 under TCG: 205 of 206 waits seen).
 * Commit fa2c3254d7cf ("sched/tracing: Don't re-read p->state when emitting
 * sched_switch event", 5.18) passes the state acted on as the tracepoint's
 * fourth argument; user space sets targ_switch_state where the kernel's
 * btf_trace_sched_switch has it (user/trace/kfeatures.h), and the verifier drops
 * the read of ctx[3] elsewhere (a constant of a frozen map). Before 5.18
 * a TASK_WAKING prev did go to sleep, how is lost: taken as interruptible,
 * the sleep of every wait call these programs look for.
 */
const volatile bool targ_switch_state = false;

/* Task states (include/linux/sched.h; vmlinux.h has no macros): one
 * definition for every program that reads them. */
#define TASK_RUNNING 0x0000
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_WAKING 0x0200

static __always_inline __u32 switch_prev_state(unsigned long long *ctx, struct task_struct *prev, bool btf)
{
	__u32 state;

	if (targ_switch_state)
		return (__u32)ctx[3];
	state = task_state_of(prev, btf);
	return state == TASK_WAKING ? TASK_INTERRUPTIBLE : state;
}

#endif

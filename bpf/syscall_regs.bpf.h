/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system call a task is in, read from its saved user registers
 * (bpf_task_pt_regs, Linux 5.15+): how the scheduler-only tracers
 * (light.bpf.c for one process, top.bpf.c for the host) recognise a
 * blocking futex wait at sched_switch, a futex wake at sched_waking and a
 * yield that switched, with no syscall tracepoint. Include after
 * futex_op.bpf.h and trace.h (enum ss_futex_class).
 */
#ifndef SPINSCOPE_SYSCALL_REGS_BPF_H
#define SPINSCOPE_SYSCALL_REGS_BPF_H

/* System call numbers (unistd.h of each architecture). */
#if defined(__TARGET_ARCH_arm64)
#define NR_futex 98
#define NR_sched_yield 124
#else
#define NR_futex 202
#define NR_sched_yield 24
#endif
#define NR_futex_waitv 449	/* the same on both, as every new syscall */
#define NR_futex_wake 454
#define NR_futex_wait 455

/* The system call a task is in, as its saved user registers say. */
struct syscall_regs {
	long nr;
	__u64 arg0, arg1;
	/* Still inside the call: its handler has not returned. A task may
	 * switch again on its way back to user space (exit_to_user_mode's
	 * reschedule, not a preemption), with the same registers: without
	 * this, one yield could count twice. */
	bool in_call;
};

/* The call in task's registers regs: from bpf_task_pt_regs() (or kept
 * in a record, task_regs.bpf.h), BTF-typed, so its fields are plain
 * (CO-RE relocated) loads, which the verifier guards as it does any
 * tp_btf argument. BPF_CORE_READ would make each a bpf_probe_read_kernel
 * call, four per switch out and up to eight per wake-up. */
static __always_inline void syscall_of(const struct pt_regs *regs, struct syscall_regs *s)
{
#if defined(__TARGET_ARCH_arm64)
	s->nr = (long)regs->regs[8];
	s->arg0 = regs->orig_x0;	/* x0 becomes the return value */
	s->arg1 = regs->regs[1];
	/* arm64 keeps no "not returned yet" mark in pt_regs: x0 holds the
	 * first argument until the handler returns, then the result. */
	s->in_call = true;
#else
	s->nr = (long)regs->orig_ax;
	s->arg0 = regs->di;
	s->arg1 = regs->si;
	/* The entry code stores -ENOSYS in ax; the handler's return replaces it. */
	s->in_call = (long)regs->ax == -38;
#endif
}

/* The futex class and address of a futex-family call; OTHER for others. */
static __always_inline __u32 futex_call(const struct syscall_regs *s, __u64 *uaddr)
{
	*uaddr = s->arg0;
	switch (s->nr) {
	case NR_futex:
		return futex_class((int)s->arg1);
	case NR_futex_wait:
		return SS_FUTEX_CLASS_WAIT;
	case NR_futex_wake:
		return SS_FUTEX_CLASS_WAKE;
	case NR_futex_waitv:
		/* struct futex_waitv { u64 val; u64 uaddr; ... }: the first */
		*uaddr = 0;
		bpf_probe_read_user(uaddr, sizeof(*uaddr), (void *)(s->arg0 + 8));
		return SS_FUTEX_CLASS_WAIT;
	default:
		return SS_FUTEX_CLASS_OTHER;
	}
}

/*
 * Is a wake-up by the futex call waker (on uaddr) one of that call's? A
 * timer interrupt can wake a task while the current task is in a futex
 * wake: the woken task (its registers woken_regs) must then be in a futex
 * wait, on the same address for the plain wakes (the requeue and WAKE_OP
 * family wake on a second address too).
 */
static __always_inline bool woken_by_futex(const struct pt_regs *woken_regs,
					   const struct syscall_regs *waker, __u64 uaddr)
{
	struct syscall_regs s;
	__u64 waited;

	syscall_of(woken_regs, &s);
	if (futex_call(&s, &waited) != SS_FUTEX_CLASS_WAIT)
		return false;
	if (waker->nr == NR_futex_wake)
		return waited == uaddr;
	if (waker->nr == NR_futex && ((waker->arg1 & FUTEX_CMD_MASK) == FUTEX_WAKE ||
				      (waker->arg1 & FUTEX_CMD_MASK) == FUTEX_WAKE_BITSET))
		return waited == uaddr;
	return true;
}

#endif /* SPINSCOPE_SYSCALL_REGS_BPF_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler-only tracer (--light): no syscall tracepoint, no syscall
 * trampoline, so other processes on the host pay nothing per system call.
 * Futex waits that block and yields that switch are recognised at
 * sched_switch from the blocked task's own user registers (the syscall
 * number and arguments it entered with, bpf_task_pt_regs, Linux 5.15+);
 * futex wakes at sched_waking from the waker's registers (sched_waking
 * runs in the waker's context; sched_wakeup may run on the woken CPU).
 *
 * It fills the maps of trace.bpf.c, which user space loads with its
 * syscall programs and its sched_switch and sched_waking programs switched
 * off: the programs here do that on/off-CPU and run-queue accounting too
 * (sched_account.bpf.h), one program per event. User space hands this
 * object those maps (bpf_map__reuse_fd), so the profile, renderers and
 * advisor are the same.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.h"
#include "core_fixes.bpf.h"
#include "target.bpf.h"
#include "maps.bpf.h"
#define SS_DROP_SLOTS SS_DROPS
#include "shared_maps.bpf.h"
#include "futex_op.bpf.h"
#include "hist.bpf.h"
#include "task_regs.bpf.h"
#include "syscall_regs.bpf.h"

/* At most one user stack per thread per interval (0: every event). */
const volatile __u64 targ_stack_interval_ns = 1000000;

/* The maps of trace.bpf.c (one definition, profile_maps.bpf.h): user space
 * replaces them with that object's before load. */
#include "profile_maps.bpf.h"
/* The on/off-CPU accounting, done here with this object's own work in one
 * program per event (trace.bpf.c's scheduler twins are not loaded). */
#include "sched_account.bpf.h"

/* A target thread's registers, task its task: where its record keeps them. */
static __always_inline struct pt_regs *target_regs(struct task_struct *task, struct ss_thread *t)
{
	struct pt_regs *regs = ss_kept_regs(&t->user_regs);

	return regs ? regs : ss_keep_regs(task, &t->user_regs);
}

/* As trace.bpf.c's sampled stacks: one walk per thread per interval. */
static __always_inline __s32 light_stack(void *ctx, __u64 now, __u64 *last_ns, __s32 *last_id)
{
	if (!*last_ns || now - *last_ns >= targ_stack_interval_ns) {
		*last_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		*last_ns = now;
	}
	if (*last_id < 0)
		count_stack_drops(*last_id, 1);
	return *last_id;
}

/* A yield that switched: counted, its call site batched as trace.bpf.c's. */
static __always_inline void yield_switched(void *ctx, struct ss_thread *t, __u64 now)
{
	__u64 *c, zero = 0;
	__s32 site;

	t->sched_yield++;
	if (t->yield_stack_ns && now - t->yield_stack_ns < targ_stack_interval_ns) {
		t->yield_pending++;
		return;
	}
	site = t->yield_stack_id;
	if (t->yield_pending && site < 0) {
		count_stack_drops(site, t->yield_pending);
	} else if (t->yield_pending) {
		c = bpf_map_lookup_or_try_init(&yield_sites, &site, &zero);
		if (c)
			__sync_fetch_and_add(c, t->yield_pending);
		else
			count_drops(SS_DROP_YIELD_SITES_FULL, t->yield_pending);
	}
	t->yield_stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	t->yield_stack_ns = now;
	t->yield_pending = 1;
}

/* Switch-out of a target thread: current, BTF-typed as cur (prev at
 * sched_switch), its record t, state its task state. */
static __always_inline void light_switch_out(void *ctx, bool preempt, __u32 state,
					     struct task_struct *cur, struct ss_thread *t, __u64 now)
{
	struct syscall_regs s;
	__u64 uaddr;

	if (preempt || (state != TASK_RUNNING && !(state & TASK_INTERRUPTIBLE)))
		return;
	syscall_of(target_regs(cur, t), &s);
	if (state == TASK_RUNNING) {
		if (s.nr == NR_sched_yield && s.in_call)
			yield_switched(ctx, t, now);
		return;
	}
	if (futex_call(&s, &uaddr) != SS_FUTEX_CLASS_WAIT)
		return;
	t->cur.uaddr = uaddr;
	t->cur.class = SS_FUTEX_CLASS_WAIT;
	t->cur.stack_id = light_stack(ctx, now, &t->wait_stack_ns, &t->wait_stack_id);
	t->cur.start_ns = now;
}

/* The thread's pending wakes (struct ss_word_pending), ready for one more
 * on uaddr, as its waits (ss_word_wait()): moved to their word's record
 * first at a wake of another word; NULL where uaddr has no record. */
static __always_inline struct ss_word_pending *light_word_wake(struct ss_thread *t, __u64 uaddr)
{
	struct ss_word_pending *wp = &t->word_pending;

	if (wp->wake_uaddr == uaddr && uaddr)
		return wp;
	ss_word_flush_wakes(wp);
	if (!ss_futex_get(uaddr))
		return NULL;
	wp->wake_uaddr = uaddr;
	return wp;
}

/* Switch-in: a blocked futex wait ends; its time is the time off CPU. The
 * outcome (woken, timed out) is the return value, not yet written: unseen. */
static __always_inline void light_switch_in(struct ss_thread *t, __u32 tid, __u64 now)
{
	struct ss_word_pending *wp;
	__u64 dur, uaddr = t->cur.uaddr;
	__u32 slot;

	if (!t->cur.start_ns)
		return;
	dur = now - t->cur.start_ns;
	t->cur.start_ns = 0;
	/* Seen at the scheduler, every wait here blocked (at-once returns
	 * never switch out, so they are not seen at all). */
	t->futex_wait++;
	t->futex_blocked++;
	t->futex_wait_ns += dur;
	if (dur > t->futex_wait_ns_max)
		t->futex_wait_ns_max = dur;
	ss_waiter_add(t, tid, &t->cur, dur, true, false);
	/* The word's counts wait in the record while the thread keeps
	 * waiting on it. */
	wp = ss_word_wait(t, tid, uaddr);
	if (!wp)
		return;
	wp->waits++;
	wp->wait_blocked++;
	wp->wait_ns += dur;
	slot = ss_hist_slot(dur);
	if (slot < SS_HIST_SLOTS)
		wp->wait_hist[slot]++;
}

/* One program for both: the scheduler's accounting of the thread
 * (sched_account.bpf.h) with the futex waits and yields it shows. btf: a
 * constant, true in the tp_btf program, where prev (the current task) is
 * BTF-typed and its state and registers are read without a helper call. */
static __always_inline void light_switch(void *ctx, bool preempt, struct task_struct *prev,
					 __u32 prev_tgid, __u32 prev_tid, struct task_struct *next,
					 __u32 next_tgid, __u32 next_tid, bool btf)
{
	bool prev_is = is_target(prev_tgid, prev_tid), next_is = is_target(next_tgid, next_tid);
	struct ss_thread *t;
	__u32 state;
	__u64 now;

	if (!prev_is && !next_is)
		return;
	now = bpf_ktime_get_ns();
	if (prev_is) {
		state = switch_prev_state(ctx, prev, btf);
		t = switch_out(prev, prev_tid, preempt, state, now);
		if (t)
			light_switch_out(ctx, preempt, state, btf ? prev : bpf_get_current_task_btf(), t,
					 now);
	}
	if (next_is) {
		t = switch_in(next, next_tid, now);
		if (t)
			light_switch_in(t, next_tid, now);
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(light_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	light_switch(ctx, preempt, prev, prev->tgid, prev->pid, next, next->tgid, next->pid, true);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(light_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	light_switch(ctx, preempt, prev, BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid), next,
		     BPF_CORE_READ(next, tgid), BPF_CORE_READ(next, pid), false);
	return 0;
}

/*
 * A target thread in a futex wake call wakes a task: one wake that woke
 * one waiter. A call that woke several counts once per waiter, one that
 * woke none is not seen (stated in the report's blind spots). p: the woken
 * task when BTF-typed (tp_btf), NULL under raw_tp (no check of it then);
 * pt: its record where it is a target thread.
 */
static __always_inline void light_waking(struct task_struct *p, struct ss_thread *pt)
{
	struct ss_word_pending *wp;
	struct syscall_regs s;
	struct ss_thread *t;
	/* BTF-typed: its ids are plain loads, one helper call where
	 * current_is_target() and this took two on every wake-up. */
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tid = cur->pid;
	__u64 uaddr;

	if (!is_target(cur->tgid, tid))
		return;
	/* Its record first, for where its registers lie (the kfunc build):
	 * a wake-up by a target thread outside a futex wake then costs a
	 * lookup it did not need, one in a futex wake (the case that matters
	 * here) a helper call less. Only looked up: a record is created (and
	 * a full map counted) only for a futex wake, below. */
#if SS_KFUNCS
	t = ss_thread_find(tid);
#else
	t = NULL;
#endif
	syscall_of(t ? target_regs(cur, t) : (struct pt_regs *)bpf_task_pt_regs(cur), &s);
	/* Still inside the wake call: an interrupt's wake-up that lands on a
	 * thread back in user space after a wake (its registers still name
	 * the call) is not one (under raw_tp, where p is not checked, the
	 * futex check counted such a fifth wake of four). */
	if (!s.in_call || futex_call(&s, &uaddr) != SS_FUTEX_CLASS_WAKE)
		return;
	if (p && !woken_by_futex(pt ? target_regs(p, pt) : (struct pt_regs *)bpf_task_pt_regs(p),
				 &s, uaddr))
		return;
	if (!t)
		t = thread_get(tid, NULL);
	if (!t)
		return;
	t->futex_wake++;
	t->futex_woken++;
	wp = light_word_wake(t, uaddr);
	if (wp)
		wp->wakes++;
}

/* One program for both: the woken thread's run-queue wait starts
 * (sched_account.bpf.h), and the waker's futex wake is counted. */
SEC("tp_btf/sched_waking")
int BPF_PROG(light_waking_btf, struct task_struct *p)
{
	struct ss_thread *pt = NULL;

	if (is_target(p->tgid, p->pid))
		pt = sched_runnable(p, p->pid, false, bpf_ktime_get_ns());
	light_waking(p, pt);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(light_waking_raw, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);

	if (is_target(BPF_CORE_READ(p, tgid), tid))
		sched_runnable(p, tid, false, bpf_ktime_get_ns());
	light_waking(NULL, NULL);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope top`: every thread of the host, from the scheduler's
 * tracepoints alone (no syscall tracepoint: no process pays per system
 * call). Per thread: time on CPU and in the run queue, switches, futex
 * waits that blocked (recognised at sched_switch from the blocked task's
 * saved user registers, as light.bpf.c does), futex wakes (at
 * sched_waking, from the waker's registers), yields that switched; per
 * thread and futex word, what user space needs to tell a lock from an
 * event wait (advisor/metrics.c adv_futex_use). With --sample, a cpu-clock
 * program counts samples that land at a spin-wait hint.
 *
 * Cost: one hash lookup for each of prev and next per switch, one for the
 * woken task per wake-up; registers are read only on voluntary switches
 * and yields of user tasks, and on wake-ups made by user tasks.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.h"		/* enum ss_futex_class, SS_REBLOCK_NS */
#include "top.h"
#include "core_fixes.bpf.h"
#include "maps.bpf.h"
#include "futex_op.bpf.h"
#include "task_regs.bpf.h"
#include "syscall_regs.bpf.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

/* Wake-ups by one thread of one word's waiters within this long of each
 * other, with no switch between, are taken for one wake call (its fan
 * out): the kernel wakes a call's waiters in one loop (wake_up_q), and a
 * second call goes back through user space. A heuristic: wakes is an
 * estimate, woken exact. */
#define TOP_WAKE_CALL_NS 2000

/* Benchmarks only: -DSS_TOP_DISPATCH_ONLY=1 builds the scheduler
 * programs to return at once, so bench/top_host_cost.sh -f measures what
 * the tracepoints' dispatch alone costs a bystander: the floor under any
 * work these programs could do per switch. */
#ifndef SS_TOP_DISPATCH_ONLY
#define SS_TOP_DISPATCH_ONLY 0
#endif

/* Sampling on: the cpu-clock program is attached. */
const volatile bool targ_sampling = false;

/* Set by user space just before attach: a thread first seen switching out
 * was on its CPU since then at least (as sched_account.bpf.h counts it). */
__u64 start_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TOP_THREAD_SLOTS);
	__type(key, __u32);
	__type(value, struct top_thread_rec);
} top_slots SEC(".maps");

/* The threads whose slot another live thread holds. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TOP_MAX_SPILL);
	__type(key, __u32);
	__type(value, struct top_thread_rec);
} top_spill SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TOP_MAX_WORDS);
	__type(key, struct top_word_key);
	__type(value, struct top_word_counts);
} top_words SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TOP_DROPS);
	__type(key, __u32);
	__type(value, __u64);
} top_drops SEC(".maps");

static const struct top_thread_rec zero_rec;
static const struct top_word_counts zero_word;

static __always_inline void drop(__u32 reason)
{
	percpu_inc(&top_drops, reason);
}

/* task's start time, tgid and PF_KTHREAD: plain loads where the task is
 * BTF-typed (btf, a constant: the tp_btf programs), else helper reads. */
static __always_inline __u64 start_time_of(struct task_struct *task, bool btf)
{
	return btf ? task->start_time : BPF_CORE_READ(task, start_time);
}

static __always_inline bool is_kthread(struct task_struct *task, bool btf)
{
	return (btf ? task->flags : BPF_CORE_READ(task, flags)) & PF_KTHREAD;
}

/* A record of another thread of the same tid starts again from zero;
 * tid stays (the slot is still its). */
static __always_inline void rec_reset(struct top_thread_rec *r, __u32 tgid, __u64 start)
{
	__u64 tid = r->tid;

	__builtin_memset((char *)r + sizeof(r->tid), 0, sizeof(*r) - sizeof(r->tid));
	r->tid = tid;
	r->tgid = tgid;
	r->start_time = start;
}

/* tid's record in the spill hash, made there when missing. */
static __always_inline struct top_thread_rec *spill_get(__u32 tid, __u32 tgid, __u64 start)
{
	struct top_thread_rec *r = bpf_map_lookup_or_try_init(&top_spill, &tid, &zero_rec);

	if (!r) {
		drop(TOP_DROP_THREADS_FULL);
		return NULL;
	}
	if (!r->tid || r->start_time != start) {
		r->tid = tid;
		rec_reset(r, tgid, start);
	}
	return r;
}

/*
 * The record of thread tid of process tgid, made on first sight: its
 * slot's, or the spill hash's where the slot is another's. A record whose
 * start time is not the task's belongs to an earlier thread of the same
 * tid: it starts again from zero (user space keys its differences by tid
 * and start time, so the new thread is new there too).
 */
static __always_inline struct top_thread_rec *rec_get(struct task_struct *task, __u32 tid, __u32 tgid,
						       bool btf)
{
	__u32 slot = tid & (TOP_THREAD_SLOTS - 1);
	struct top_thread_rec *r = bpf_map_lookup_elem(&top_slots, &slot);
	__u64 start = start_time_of(task, btf);

	if (!r)
		return NULL;
	if (r->tid == tid) {
		if (r->start_time != start)
			rec_reset(r, tgid, start);
		return r;
	}
	if (r->tid)
		return spill_get(tid, tgid, start);
	/* A free slot: unless the thread has a record in the hash already
	 * (made while the slot was another's), it takes the slot; of two
	 * CPUs taking it at once, one wins, the other goes to the hash. */
	if (bpf_map_lookup_elem(&top_spill, &tid))
		return spill_get(tid, tgid, start);
	if (__sync_val_compare_and_swap(&r->tid, 0, (__u64)tid) != 0)
		return r->tid == tid ? r : spill_get(tid, tgid, start);
	rec_reset(r, tgid, start);
	return r;
}

static __always_inline struct top_word_counts *word_get(__u32 tgid, __u32 tid, __u64 uaddr)
{
	struct top_word_key k = { .tgid = tgid, .tid = tid, .uaddr = uaddr };
	struct top_word_counts *w = bpf_map_lookup_or_try_init(&top_words, &k, &zero_word);

	if (!w)
		drop(TOP_DROP_WORDS_FULL);
	return w;
}

/* task's user registers: kept in its record after the first read. */
static __always_inline struct pt_regs *rec_regs(struct task_struct *task, struct top_thread_rec *r)
{
	struct pt_regs *regs = ss_kept_regs(&r->user_regs);

	return regs ? regs : ss_keep_regs(task, &r->user_regs);
}

/* A woken wait followed, within SS_REBLOCK_NS of on-CPU time, by another
 * wait: the wake found nothing for it to do (a broadcast herd). */
static __always_inline void reblock_check(struct top_thread_rec *r, __u32 tid)
{
	struct top_word_counts *w;

	if (!r->reblock_oncpu)
		return;
	if (r->c.oncpu_ns + 1 - r->reblock_oncpu < SS_REBLOCK_NS) {
		w = word_get(r->tgid, tid, r->reblock_uaddr);
		if (w)
			w->reblocked++;
	}
	r->reblock_oncpu = 0;
}

/* prev leaves its CPU in task state state. */
static __always_inline void top_switch_out(struct task_struct *prev, struct top_thread_rec *r, __u32 tid,
					   bool preempt, __u32 state, __u64 now, bool btf)
{
	struct syscall_regs s;
	__u64 uaddr;

	if (r->in_ns)
		r->c.oncpu_ns += now - r->in_ns;
	else if (!(r->flags & TOP_THREAD_SEEN) && start_ns && now > start_ns)
		r->c.oncpu_ns += now - start_ns;	/* running since the attach */
	r->flags |= TOP_THREAD_SEEN;
	r->in_ns = 0;
	r->out_ns = now;
	/* The kernel's own rule (nvcsw vs nivcsw in __schedule), as
	 * sched_account.bpf.h: a yield leaves the task runnable. */
	if (preempt || state == TASK_RUNNING) {
		r->c.switches_involuntary++;
		r->runq_since_ns = now;
	} else {
		r->c.switches_voluntary++;
	}
	if (preempt || (state != TASK_RUNNING && !(state & TASK_INTERRUPTIBLE)) ||
	    is_kthread(prev, btf))
		return;
	syscall_of(rec_regs(prev, r), &s);
	if (state == TASK_RUNNING) {
		if (s.nr == NR_sched_yield && s.in_call)
			r->c.yields++;
		return;
	}
	if (futex_call(&s, &uaddr) != SS_FUTEX_CLASS_WAIT)
		return;
	reblock_check(r, tid);
	r->wait_uaddr = uaddr;
	r->wait_start_ns = now;
	r->flags &= ~TOP_THREAD_WOKEN;
}

/* next gets a CPU: its run-queue wait, and the futex wait it was in, end. */
static __always_inline void top_switch_in(struct top_thread_rec *r, __u32 tid, __u64 now)
{
	struct top_word_counts *w;
	__u64 dur;

	r->in_ns = now;
	r->flags |= TOP_THREAD_SEEN;
	if (r->runq_since_ns) {
		r->c.runq_ns += now - r->runq_since_ns;
		r->c.runq_count++;
		r->runq_since_ns = 0;
	}
	if (!r->wait_start_ns)
		return;
	/* Seen at the scheduler, every wait here blocked; its time is the
	 * time off CPU, as --light counts it. */
	dur = now - r->wait_start_ns;
	r->wait_start_ns = 0;
	r->c.futex_waits++;
	r->c.futex_wait_ns += dur;
	w = word_get(r->tgid, tid, r->wait_uaddr);
	if (!w)
		return;
	w->waits++;
	w->wait_ns += dur;
	if (r->flags & TOP_THREAD_WOKEN) {
		w->woken_waits++;
		r->reblock_oncpu = r->c.oncpu_ns + 1;
		r->reblock_uaddr = r->wait_uaddr;
	}
}

static __always_inline void top_switch(unsigned long long *ctx, bool preempt, struct task_struct *prev,
				       struct task_struct *next, bool btf)
{
	__u32 prev_tid = btf ? prev->pid : BPF_CORE_READ(prev, pid);
	__u32 next_tid = btf ? next->pid : BPF_CORE_READ(next, pid);
	struct top_thread_rec *r;
	__u64 now;

	if (SS_TOP_DISPATCH_ONLY)
		return;
	now = bpf_ktime_get_ns();
	/* tid 0: a CPU's idle task, not a thread of any process. */
	if (prev_tid) {
		r = rec_get(prev, prev_tid, btf ? prev->tgid : BPF_CORE_READ(prev, tgid), btf);
		if (r)
			top_switch_out(prev, r, prev_tid, preempt, switch_prev_state(ctx, prev, btf), now, btf);
	}
	if (next_tid) {
		r = rec_get(next, next_tid, btf ? next->tgid : BPF_CORE_READ(next, tgid), btf);
		if (r)
			top_switch_in(r, next_tid, now);
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(top_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	top_switch(ctx, preempt, prev, next, true);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(top_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	top_switch(ctx, preempt, prev, next, false);
	return 0;
}

/*
 * The current task, a user thread in a futex wake call, woke p (its
 * record pr): one waiter woken, and one more wake call unless the last
 * wake-up by the same thread of the same word was this call's.
 */
static __always_inline void top_futex_wake(struct task_struct *p, struct top_thread_rec *pr, bool btf,
					   __u64 now)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct top_word_counts *w;
	struct top_thread_rec *r;
	struct syscall_regs s;
	__u32 tid = cur->pid;
	__u64 uaddr;

	if (!tid || cur->flags & PF_KTHREAD)
		return;
	/* Its record is an inlined array lookup: its kept registers then
	 * cost no helper call (task_regs.bpf.h). */
	r = rec_get(cur, tid, cur->tgid, true);
	if (!r)
		return;
	syscall_of(rec_regs(cur, r), &s);
	/* Still inside the wake call: an interrupt's wake-up that lands on a
	 * thread back in user space after a wake (its registers still name
	 * the call) is not one. */
	if (!s.in_call || futex_call(&s, &uaddr) != SS_FUTEX_CLASS_WAKE)
		return;
	/* Under raw_tp p is not BTF-typed: its registers are not checked. */
	if (btf && !woken_by_futex(pr ? rec_regs(p, pr) : (struct pt_regs *)bpf_task_pt_regs(p), &s, uaddr))
		return;
	if (pr)
		pr->flags |= TOP_THREAD_WOKEN;
	w = word_get(r->tgid, tid, uaddr);
	r->c.futex_woken++;
	if (w)
		w->woken++;
	if (r->wake_uaddr == uaddr && r->wake_in_ns == r->in_ns && now - r->wake_ns < TOP_WAKE_CALL_NS) {
		r->wake_ns = now;
		return;
	}
	r->c.futex_wakes++;
	if (w)
		w->wakes++;
	r->wake_uaddr = uaddr;
	r->wake_in_ns = r->in_ns;
	r->wake_ns = now;
}

/* p becomes runnable: its run-queue wait starts; the waker's futex wake
 * is counted. */
static __always_inline void top_waking(struct task_struct *p, bool btf)
{
	__u32 tid = btf ? p->pid : BPF_CORE_READ(p, pid);
	struct top_thread_rec *pr = NULL;
	__u64 now;

	if (SS_TOP_DISPATCH_ONLY)
		return;
	now = bpf_ktime_get_ns();
	if (tid) {
		pr = rec_get(p, tid, btf ? p->tgid : BPF_CORE_READ(p, tgid), btf);
		if (pr)
			pr->runq_since_ns = now;
	}
	top_futex_wake(p, pr, btf, now);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(top_waking_btf, struct task_struct *p)
{
	top_waking(p, true);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(top_waking_raw, struct task_struct *p)
{
	top_waking(p, false);
	return 0;
}

/* A new thread's life begins in the run queue (as sched_account.bpf.h
 * counts it for -p: the same runq_count). */
static __always_inline void top_wakeup_new(struct task_struct *p, bool btf)
{
	__u32 tid = btf ? p->pid : BPF_CORE_READ(p, pid);
	struct top_thread_rec *r;

	if (!tid)
		return;
	r = rec_get(p, tid, btf ? p->tgid : BPF_CORE_READ(p, tgid), btf);
	if (r) {
		r->runq_since_ns = bpf_ktime_get_ns();
		r->flags |= TOP_THREAD_SEEN;
	}
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(top_wakeup_new_btf, struct task_struct *p)
{
	top_wakeup_new(p, true);
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(top_wakeup_new_raw, struct task_struct *p)
{
	top_wakeup_new(p, false);
	return 0;
}

/* A thread exits: user space takes its last figures and deletes it. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(top_exit, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid), slot = tid & (TOP_THREAD_SLOTS - 1);
	struct top_thread_rec *r = bpf_map_lookup_elem(&top_slots, &slot);

	if (r && r->tid != tid)
		r = bpf_map_lookup_elem(&top_spill, &tid);
	if (r && r->tid == tid && r->start_time == BPF_CORE_READ(p, start_time))
		r->flags |= TOP_THREAD_EXITED;
	return 0;
}

/* Is the code at a sample's user ip a spin-wait hint, or just after one
 * (the sample lands on the hint or on the instruction it was waiting to
 * retire)? x86: PAUSE (f3 90). arm64: ISB, SB, YIELD. */
static __always_inline bool at_spin_hint(__u64 ip)
{
#if defined(__TARGET_ARCH_arm64)
	__u32 insn[2];

	if (bpf_probe_read_user(insn, sizeof(insn), (void *)(ip - 4))) {
		drop(TOP_DROP_SAMPLE_READ);
		return false;
	}
	for (int i = 0; i < 2; i++)
		if (insn[i] == 0xd5033fdf || insn[i] == 0xd50330ff || insn[i] == 0xd503203f)
			return true;
	return false;
#else
	__u8 b[4];

	if (bpf_probe_read_user(b, sizeof(b), (void *)(ip - 2))) {
		drop(TOP_DROP_SAMPLE_READ);
		return false;
	}
	return (b[0] == 0xf3 && b[1] == 0x90) || (b[2] == 0xf3 && b[3] == 0x90);
#endif
}

SEC("perf_event")
int top_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct top_thread_rec *r;
	__u32 tid = cur->pid;
	__u64 ip;

	if (!tid || cur->flags & PF_KTHREAD)
		return 0;
	r = rec_get(cur, tid, cur->tgid, true);
	if (!r)
		return 0;
	r->c.samples++;
	/* The kernel's half of the address space: a sample in the kernel
	 * (as sampling.bpf.c tells them apart; a full-width load, which the
	 * context allows, where a test of cs would be narrowed). */
	ip = PT_REGS_IP(&ctx->regs);
	if ((__s64)ip < 0)
		return 0;
	if (at_spin_hint(ip))
		r->c.spin_samples++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/*
 * Live tracing of one process: futex calls, sched_yield calls and scheduler
 * switches, aggregated in maps (no per-event traffic to user space).
 * Every program first drops events from other processes: they run for the
 * whole host, so the common case must cost one comparison.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.h"
#include "counter_walk.h"
#include "core_fixes.bpf.h"
#include "target.bpf.h"
#include "maps.bpf.h"
#define SS_DROP_SLOTS SS_DROPS
#include "shared_maps.bpf.h"
#include "unwind.bpf.h"
#include "hist.bpf.h"
#include "futex_op.bpf.h"

#define EINTR 4
#define EAGAIN 11
#define ETIMEDOUT 110
#define ERESTARTSYS 512
#define ERESTART_RESTARTBLOCK 516

/* At most one user stack per thread per interval (0: every event). */
const volatile __u64 targ_stack_interval_ns = 1000000;


#include "profile_maps.bpf.h"
#include "sched_account.bpf.h"
#include "thread_exit.bpf.h"

static __always_inline struct ss_thread *current_thread(__u32 tid)
{
	return thread_get(tid, NULL);
}

/*
 * The user stack of the current event, or the thread's previous one when
 * that was taken less than an interval ago for the same event (site: the
 * futex word waited on) from the same call site (sp: the user stack
 * pointer, see call_site_sp()): a thread that yields or waits in a loop does
 * so from one call site, and the walk (through code without frame pointers
 * it faults its way out) costs more than a yield. A wait on another word,
 * or from another frame, takes its own stack, so that a word or a call
 * site is never named by another's stack. Counts stay exact; only their
 * split between call sites is sampled.
 *
 * A call site whose stack a walk found unchanged is walked again less
 * often: the interval doubles with each such walk, up to 2^SS_STACK_BACKOFF
 * intervals, and is back to one as soon as the site's stack pointer or
 * word changes or a walk finds another stack (stack_backoff()). A thread
 * that waits or releases from one call site walked once per interval
 * each, about 4% of spinscope's BPF time on a contended mutex, whose
 * threads make only a dozen calls per interval (docs/BENCHMARKS.md).
 * --stack-interval stays what it says, the most often a stack is taken.
 */
#define SS_STACK_BACKOFF 4

/* The thread's last stack of an event (taken at last_ns for site from
 * last_sp, its interval doubled backoff times) serves this one too. */
static __always_inline bool same_stack_sample(__u64 now, __u64 site, __u64 sp, __u64 last_ns,
					      __u64 last_site, __u64 last_sp, __u8 backoff)
{
	return last_ns && now - last_ns < (targ_stack_interval_ns << (backoff & 7)) &&
	       last_site == site && last_sp == sp;
}

/*
 * The user stack pointer that tells this event's call site: from
 * bpf_task_pt_regs in the unwinding programs, else from the kernel stack
 * at the address the thread's record keeps for its task (found again when
 * another task has the tid). 0 where it could not be read, counted: such
 * events may share a stack with another call site on the same word.
 * unwind: a constant.
 */
static __always_inline __u64 call_site_sp(struct ss_thread *t, bool unwind)
{
	__u64 sp, task;

	if (unwind) {
		sp = ss_user_sp(&t->user_regs);
	} else {
		task = bpf_get_current_task();
		if (t->kstack_task != task) {
			t->kstack_task = task;
			t->kstack_regs = ss_kstack_regs();
		}
		sp = ss_kstack_sp(t->kstack_regs);
	}
	if (!sp)
		count_drop(SS_DROP_CALL_SITE_UNKNOWN);
	return sp;
}

/* The next backoff of a call site's stack interval, after a walk that
 * found id where the last found last_id; again: the same site, only the
 * interval ran out. */
static __always_inline __u8 stack_backoff(__u8 backoff, bool again, __s32 id, __s32 last_id)
{
	if (!again || id < 0 || id != last_id)
		return 0;
	return backoff < SS_STACK_BACKOFF ? backoff + 1 : SS_STACK_BACKOFF;
}

/* Walks the current user stack for a call site whose last stack no longer
 * serves (same_stack_sample()) and makes it the site's last; last_site
 * NULL: the site is its stack pointer alone (yields). */
static __always_inline __s32 walk_stack(void *ctx, __u64 now, __u64 site, __u64 sp,
					__u64 *last_ns, __u64 *last_site, __u64 *last_sp,
					__s32 *last_id, __u8 *backoff, bool unwind)
{
	/* Only the interval ran out: the same call site again. */
	bool again = *last_ns && (!last_site || *last_site == site) && *last_sp == sp;
	__s32 id = ss_user_stackid(ctx, &stacks, unwind);

	*backoff = stack_backoff(*backoff, again, id, *last_id);
	*last_ns = now;
	if (last_site)
		*last_site = site;
	*last_sp = sp;
	*last_id = id;
	return id;
}

static __always_inline __s32 sampled_stack(void *ctx, __u64 now, __u64 site, __u64 sp,
					   __u64 *last_ns, __u64 *last_site, __u64 *last_sp,
					   __s32 *last_id, __u8 *backoff, bool unwind)
{
	__s32 id = same_stack_sample(now, site, sp, *last_ns, *last_site, *last_sp, *backoff) ?
			   *last_id :
			   walk_stack(ctx, now, site, sp, last_ns, last_site, last_sp, last_id,
				      backoff, unwind);

	if (id < 0)
		count_stack_drops(id, 1);
	return id;
}

/* ---- release sites ---------------------------------------------------- */

/* Benchmarks only: -DSS_NO_RELEASE_SITES=1 (make BPF_CFLAGS=...) builds
 * the tracer without the release sites' work, the A side of what they
 * cost (bench/progcost_ab.sh, docs/BENCHMARKS.md); the maps stay, empty. */
#ifndef SS_NO_RELEASE_SITES
#define SS_NO_RELEASE_SITES 0
#endif
/* Benchmarks only: -DSS_NO_RELEASE_STACKS=1 keeps the release sites' counts
 * and bounds but takes no stack for them (no stack pointer read, no walk:
 * every release pends under one key), what the stacks alone cost. */
#ifndef SS_NO_RELEASE_STACKS
#define SS_NO_RELEASE_STACKS 0
#endif
/* Benchmarks only: -DSS_SYSCALLS_FILTER_ONLY=1 builds syscall programs
 * that return right after their target check (the scheduler programs as
 * they are): the floor any exact-path work adds to, what being attached
 * to the syscall tracepoints costs the target. */
#ifndef SS_SYSCALLS_FILTER_ONLY
#define SS_SYSCALLS_FILTER_ONLY 0
#endif

/* Wake calls that found waiters, by word, waker stack and waker thread
 * (struct ss_release_val). Sized by user space to --max-futexes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ss_release_key);
	__type(value, struct ss_release_val);
} release_sites SEC(".maps");

/*
 * The held-while-contended bound (struct ss_release_val) of a release: its
 * wake call's entry minus the wait start of the earliest waiter it woke on
 * its word (the kernel wakes a futex's waiters in queue order, so the
 * earliest still waiting), provided that wait began after the word's
 * previous release. A wait that blocks found the word held when it
 * queued, and every release after that is a wake call (glibc's unlock of
 * a word marked contended always wakes) that wakes a queued waiter, so if
 * this is the first release to wake anyone since the wait began, the
 * holder the wait found kept the lock from before that start until this
 * release. A release that woke nobody since the start came before the
 * waiter queued: the holder may have taken the lock after the start, but
 * before the waiter blocked (its switch out), which the bound then starts
 * from. A waiter that another release passed over (a queue several deep)
 * bounds nothing: the holder took the lock after it began waiting. The
 * release's time is its wake call's entry, just after the unlock: a
 * waker kept off its CPU between the two stretches its bound by as much.
 *
 * The woken waits are seen at sched_waking, which runs in the waker's
 * context on its CPU during the wake call: the wake's entry arms that
 * CPU's entry here (arm_woken_waits()), sched_waking notes the earliest
 * start in it, and the wake's exit on the same CPU takes it. The entry
 * names its waker, so sched_waking need not ask who is running (a helper
 * call on every wake-up, about a third of the release sites' cost on the
 * one-CPU ping-pong, docs/BENCHMARKS.md).
 * The previous releases (any, and the last that woke someone) are in
 * the word's futexes record, last_release_ns and last_handover_ns, which
 * the exits update anyway. Every hold is measured, and nothing shared is
 * written at the wait and wake entries (a wake's writes its CPU's entry
 * only): per-word state written there crossed between the CPUs at every
 * hand-over (docs/BENCHMARKS.md).
 * A waker that moved CPU during its call loses its bound (its exit finds
 * another call's entry, or none). The entry does not prove who woke a
 * waiter it notes: while it is armed, any wake-up on its CPU of a waiter
 * on its word is noted (an interrupt's, or another task's while the armed
 * waker is preempted). The exit takes only its own call's entry (its tid
 * and word) and wake-ups from its call's entry on: such a waiter waited
 * through the same hold all the same. An entry left armed (a wake of
 * nobody, a waker that moved) is armed anew by the CPU's next wake call.
 */
struct ss_woken_wait {
	__u64 uaddr;		/* the word the armed wake call is on */
	__u64 first_start_ns;	/* the earliest start among its woken waits; 0: none yet */
	__u64 first_blocked_ns;	/* when that wait blocked (switched out); 0: unknown */
	__u64 waking_ns;	/* when the first of them was woken */
	__u32 tid;		/* the waker; 0: not armed */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ss_woken_wait);
} woken_waits SEC(".maps");

/* A traced thread's wake call on uaddr enters: arm this CPU's entry for
 * the waits it will wake. A per-CPU line, written by this CPU only. */
static __always_inline void arm_woken_waits(__u32 tid, __u64 uaddr)
{
	struct ss_woken_wait *w;
	__u32 zero = 0;

	if (SS_NO_RELEASE_SITES)
		return;
	w = bpf_map_lookup_elem(&woken_waits, &zero);
	if (!w)
		return;
	w->tid = tid;
	w->uaddr = uaddr;
	w->first_start_ns = 0;
}

/* sched_waking woke a thread in a futex wait on uaddr begun at start and
 * blocked at blocked (0: not seen): note it for the wake call armed on
 * this CPU, if one on that word is. An interrupt's wake-up of a waiter on
 * the same word (a timeout) during the call is taken as the call's: the
 * waiter waited through the hold all the same. */
static __always_inline void note_woken_wait(__u64 uaddr, __u64 start, __u64 blocked, __u64 now)
{
	struct ss_woken_wait *w;
	__u32 zero = 0;

	if (SS_NO_RELEASE_SITES)
		return;
	w = bpf_map_lookup_elem(&woken_waits, &zero);
	if (!w || !w->tid || w->uaddr != uaddr)
		return;
	if (!w->first_start_ns) {
		w->waking_ns = now;
	} else if (start >= w->first_start_ns) {
		return;
	}
	w->first_start_ns = start;
	w->first_blocked_ns = blocked;
}

/*
 * A wake call on f's word that woke woken waiters returned: the bound of
 * the hold it ended (0: none), from the waits it woke (note_woken_wait())
 * and the word's previous releases, which this one then joins (a wake of
 * nobody joins them and is done: most of a lock's wakes where hand-overs
 * are fast, 1.6 M of sysbench's 1.7 M). Two
 * releases' exits racing (a waker preempted in its call) can keep an
 * older previous release: the bound then starts from a wait begun before
 * the newer one.
 */
static __always_inline __u64 held_bound(struct ss_futex *f, const struct ss_inflight *in,
					__u64 woken, __u32 tid)
{
	__u64 release = in->start_ns, prev = f->last_release_ns, prev_woke = f->last_handover_ns;
	__u64 first = 0, blocked = 0, from;
	struct ss_woken_wait *w;
	__u32 zero = 0;

	if (SS_NO_RELEASE_SITES)
		return 0;
	if (release > prev)
		f->last_release_ns = release;
	/* A wake of nobody ends no hold anyone waited through: its entry
	 * stays armed, with nothing noted unless another task's wake-up of a
	 * waiter on the word came on this CPU meanwhile, until the CPU's next
	 * wake call arms it anew. */
	if (!woken)
		return 0;
	if (release > prev_woke)
		f->last_handover_ns = release;
	w = bpf_map_lookup_elem(&woken_waits, &zero);
	if (!w || w->tid != tid)
		return 0;
	if (w->uaddr == in->uaddr && w->first_start_ns && w->waking_ns >= release) {
		first = w->first_start_ns;
		blocked = w->first_blocked_ns;
	}
	w->tid = 0;
	if (!first || first <= prev_woke)
		return 0;	/* none, or passed over by a release that woke another */
	from = first > prev ? first : blocked;
	return from > prev && from < release ? release - from : 0;
}

/* Moves a thread's pending release counts (struct ss_thread's
 * wake_pending) into their release site: once per wake stack taken. */
static __always_inline void flush_release(struct ss_thread *t, __u32 tid)
{
	struct ss_release_key k = { .uaddr = t->wake_stack_site, .stack_id = t->wake_stack_id,
				    .tid = tid };
	static const struct ss_release_val zero;
	struct ss_release_val *v, *p = &t->wake_pending;

	if (!p->wakes)
		return;
	v = bpf_map_lookup_or_try_init(&release_sites, &k, &zero);
	if (!v) {
		count_drops(SS_DROP_RELEASES_FULL, p->wakes);
	} else {
		SS_COUNTERS_ADD(SS_RELEASE_COUNTERS, v, p);
	}
	__builtin_memset(p, 0, sizeof(*p));
}

/*
 * A wake call that found waiters returned: add it to its release site
 * (stack sampled per thread and word as the waiters' are). The counts wait
 * in the thread's record until the next wake stack is taken, so a wake
 * that reuses the stack touches no map. held: see held_bound(). unwind: a
 * constant, see ss_user_stackid().
 */
static __always_inline void record_release(void *ctx, struct ss_thread *t, __u32 tid,
					   const struct ss_inflight *in, __u64 woken, __u64 held,
					   __u64 blocked, bool unwind)
{
	struct ss_release_val *p = &t->wake_pending;
	/* The sampling interval is told by the call's entry: no clock read
	 * at the exit (microseconds apart, against a millisecond interval). */
	__u64 now = in->start_ns, sp;
	__u32 slot;

	if (SS_NO_RELEASE_SITES || !woken)
		return;
	if (!SS_NO_RELEASE_STACKS) {
		sp = call_site_sp(t, unwind);
		/* A new stack first moves the counts kept for the last one. */
		if (!same_stack_sample(now, in->uaddr, sp, t->wake_stack_ns, t->wake_stack_site,
				       t->wake_stack_sp, t->wake_stack_backoff)) {
			flush_release(t, tid);
			walk_stack(ctx, now, in->uaddr, sp, &t->wake_stack_ns,
				   &t->wake_stack_site, &t->wake_stack_sp, &t->wake_stack_id,
				   &t->wake_stack_backoff, unwind);
		}
		if (t->wake_stack_id < 0)
			count_stack_drops(t->wake_stack_id, 1);
	}
	p->wakes++;
	p->woken += woken;
	p->held_blocked_ns += blocked;
	if (!held)
		return;
	p->held_contended++;
	p->held_contended_ns += held;
	if (held > p->held_contended_ns_max)
		p->held_contended_ns_max = held;
	slot = ss_hist_slot(held);
	if (slot < SS_HIST_SLOTS)
		p->held_contended_hist[slot]++;
}

/* ---- futex ------------------------------------------------------------- */

/* unwind: a constant, see ss_user_stackid(). */
static __always_inline int futex_enter(void *ctx, __u32 tid, __u64 uaddr, __u32 class,
				       __u16 flags, bool unwind)
{
	struct ss_thread *t;
	__u64 now;

	if (SS_SYSCALLS_FILTER_ONLY)
		return 0;
	t = current_thread(tid);
	now = bpf_ktime_get_ns();
	if (!t)
		return 0;	/* counted as threads_map_full */
	/* A thread woken from a wait that waits again before it has run
	 * SS_REBLOCK_NS had nothing to do: counted on the word that woke it,
	 * still its pending word (the last it waited on). */
	if (class == SS_FUTEX_CLASS_WAIT && (t->sched_flags & SS_SCHED_WOKEN)) {
		__u64 oncpu = t->oncpu_ns + (t->last_in_ns && now > t->last_in_ns ?
					     now - t->last_in_ns : 0);

		t->sched_flags &= ~SS_SCHED_WOKEN;
		if (oncpu - t->woke_oncpu_ns < SS_REBLOCK_NS && t->word_pending.wait_uaddr)
			t->word_pending.reblocked++;
	}
	t->cur.uaddr = uaddr;
	t->cur.class = class;
	t->cur.flags = flags;
	t->cur.stack_id = -1;
	/* Waiters' stacks name the lock, taken here; a wake's (its release
	 * site) only at its exit, once it is known to have woken someone. */
	if (class == SS_FUTEX_CLASS_WAIT)
		t->cur.stack_id = sampled_stack(ctx, now, uaddr, call_site_sp(t, unwind),
						&t->wait_stack_ns, &t->wait_stack_site,
						&t->wait_stack_sp, &t->wait_stack_id,
						&t->wait_stack_backoff, unwind);
	else if (class == SS_FUTEX_CLASS_WAKE)
		arm_woken_waits(tid, uaddr);
	t->cur.start_ns = now;
	return 0;
}

/* glibc's condition variables, semaphores, joins (and reader-writer
 * locks) wait with FUTEX_WAIT_BITSET for any bit; its mutexes with
 * FUTEX_WAIT. The bitset itself (args[5]) is not read: the op says it, and
 * the programs read only the context words they need. */
static __always_inline __u16 futex_flags(int op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT_BITSET:
		return SS_INFLIGHT_BITSET;
	case FUTEX_UNLOCK_PI:
		return SS_INFLIGHT_UNLOCK_PI;
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		return SS_INFLIGHT_LOCK_PI;
	default:
		return 0;
	}
}

/*
 * The waiters a PI unlock woke: it returns 0, not a count. One that had a
 * waiter queued handed it the lock, and the kernel then leaves the word
 * as the new owner's tid with FUTEX_WAITERS set; one that had none leaves
 * 0 (a locker since may have put its own tid there, without the bit). So
 * at the exit, an owner other than the caller with the bit is a hand-over
 * (wrong only when a fast-path locker and then a waiter came in between:
 * microseconds). One user-memory read, PI unlocks only.
 */
static __always_inline __u64 pi_unlock_woken(const struct ss_inflight *in, __u32 tid)
{
	__u32 word = 0;

	if (bpf_probe_read_user(&word, sizeof(word), (void *)in->uaddr))
		return 0;
	return (word & FUTEX_WAITERS) && (word & FUTEX_TID_MASK) && (word & FUTEX_TID_MASK) != tid;
}

/* struct futex_waitv { u64 val; u64 uaddr; u32 flags; u32 reserved; } */
static __always_inline __u64 waitv_first_uaddr(unsigned long waiters)
{
	__u64 uaddr = 0;

	bpf_probe_read_user(&uaddr, sizeof(uaddr), (void *)(waiters + 8));
	return uaddr;
}

/* The programs that take waiters' stacks come twice (ss_user_stackid()),
 * both calling name##_body(ctx, unwind). */
#define FUTEX_ENTER_TWINS(name, sec)                                                 \
	SEC(sec) int name(struct syscall_trace_enter *ctx)                           \
	{                                                                            \
		return name##_body(ctx, false);                                      \
	}                                                                            \
	SEC(sec) int name##_unw(struct syscall_trace_enter *ctx)                     \
	{                                                                            \
		return name##_body(ctx, true);                                       \
	}

#define FUTEX_ENTER_PROGS(name, sec, uaddr, class, flags)                            \
	static __always_inline int name##_body(struct syscall_trace_enter *ctx,      \
					       bool unwind)                          \
	{                                                                            \
		__u32 tid;                                                           \
										     \
		if (!current_is_target(&tid))                                        \
			return 0;                                                    \
		return futex_enter(ctx, tid, uaddr, class, flags, unwind);           \
	}                                                                            \
	FUTEX_ENTER_TWINS(name, sec)

static __always_inline int futex_enter_futex_body(struct syscall_trace_enter *ctx, bool unwind)
{
	__u32 tid;
	int op;

	if (!current_is_target(&tid))
		return 0;
	op = (int)ctx->args[1];	/* read once: class and flags both come from it */
	return futex_enter(ctx, tid, ctx->args[0], futex_class(op), futex_flags(op), unwind);
}

FUTEX_ENTER_TWINS(futex_enter_futex, "tracepoint/syscalls/sys_enter_futex")
FUTEX_ENTER_PROGS(futex_enter_waitv, "tracepoint/syscalls/sys_enter_futex_waitv",
		  waitv_first_uaddr(ctx->args[0]), SS_FUTEX_CLASS_WAIT, 0)
/* futex2 syscalls (Linux 6.7+): futex_wait, futex_wake, futex_requeue. */
FUTEX_ENTER_PROGS(futex_enter_wait2, "tracepoint/syscalls/sys_enter_futex_wait", ctx->args[0],
		  SS_FUTEX_CLASS_WAIT, 0)

/* Wakers take no stack: one program each. */
SEC("tracepoint/syscalls/sys_enter_futex_wake")
int futex_enter_wake2(struct syscall_trace_enter *ctx)
{
	__u32 tid;

	if (!current_is_target(&tid))
		return 0;
	return futex_enter(ctx, tid, ctx->args[0], SS_FUTEX_CLASS_WAKE, 0, false);
}

SEC("tracepoint/syscalls/sys_enter_futex_requeue")
int futex_enter_requeue2(struct syscall_trace_enter *ctx)
{
	__u32 tid;

	if (!current_is_target(&tid))
		return 0;
	return futex_enter(ctx, tid, waitv_first_uaddr(ctx->args[0]), SS_FUTEX_CLASS_WAKE, 0, false);
}

static __always_inline __u32 wait_outcome(long ret)
{
	if (ret >= 0)
		return SS_FUTEX_WOKEN;
	switch (-ret) {
	case ETIMEDOUT:
		return SS_FUTEX_TIMEDOUT;
	case EAGAIN:
		return SS_FUTEX_AGAIN;
	case EINTR:
	case ERESTARTSYS:
	case ERESTARTSYS + 1:	/* ERESTARTNOINTR */
	case ERESTARTSYS + 2:	/* ERESTARTNOHAND */
	case ERESTART_RESTARTBLOCK:
		return SS_FUTEX_INTR;
	default:
		return SS_FUTEX_OTHER;
	}
}

/*
 * A wait that slept (woken, timed out, interrupted) is a blocked wait: its
 * time goes into wait_ns and the histogram. One that returned at once
 * (EAGAIN: the word changed before the thread could sleep; a LOCK_PI that
 * found the lock free in the kernel and never blocked) or failed is
 * counted as a wait call, so that instant returns never set a lock's wait
 * times; the at-once calls' time is summed apart (at_once_ns), since a lock
 * handed over faster than a futex call costs its waiters those calls.
 */
static __always_inline void record_wait(struct ss_thread *t, __u32 tid, struct ss_inflight *in,
					__u64 dur, long ret)
{
	__u32 outcome = wait_outcome(ret);
	/* A LOCK_PI that found the lock free in the kernel took it without
	 * sleeping: returned at once, as an EAGAIN wait. */
	bool pi_at_once = (in->flags & (SS_INFLIGHT_LOCK_PI | SS_INFLIGHT_SLEPT)) ==
				  SS_INFLIGHT_LOCK_PI && outcome == SS_FUTEX_WOKEN;
	bool at_once = outcome == SS_FUTEX_AGAIN || pi_at_once;
	bool blocked = !pi_at_once && (outcome == SS_FUTEX_WOKEN || outcome == SS_FUTEX_TIMEDOUT ||
				       outcome == SS_FUTEX_INTR);
	__u32 slot = ss_hist_slot(dur);
	struct ss_word_pending *wp;

	t->futex_wait++;
	t->last_wait_uaddr = in->uaddr;
	if (outcome < SS_FUTEX_OUTCOMES)
		t->futex_outcome[outcome]++;
	if (outcome == SS_FUTEX_WOKEN && blocked) {
		/* Its slice began at the wake-up (wait_duration()). */
		t->sched_flags |= SS_SCHED_WOKEN;
		t->woke_oncpu_ns = t->oncpu_ns;
	}
	if (blocked) {
		t->futex_blocked++;
		t->futex_wait_ns += dur;
		if (dur > t->futex_wait_ns_max)
			t->futex_wait_ns_max = dur;
	} else if (at_once) {
		t->futex_returned_at_once++;
	}

	/* The word's counts wait in the record while the thread keeps
	 * waiting on it (struct ss_word_pending). */
	wp = ss_word_wait(t, tid, in->uaddr);
	if (wp) {
		wp->waits++;
		if (outcome < SS_FUTEX_OUTCOMES)
			wp->wait_outcome[outcome]++;
		if (in->flags & SS_INFLIGHT_BITSET)
			wp->wait_bitset++;
		if (blocked) {
			wp->wait_blocked++;
			wp->wait_ns += dur;
			if (slot < SS_HIST_SLOTS)
				wp->wait_hist[slot]++;
		} else if (at_once) {
			wp->wait_at_once++;
			wp->wait_at_once_ns += dur;
		}
	}

	ss_waiter_add(t, tid, in, dur, blocked, at_once);
}

static __always_inline void record_wake(void *ctx, struct ss_thread *t, __u32 tid,
					struct ss_inflight *in, long ret, bool unwind)
{
	__u64 woken = ret > 0 ? ret : 0;
	struct ss_futex *f;

	if (!ret && (in->flags & SS_INFLIGHT_UNLOCK_PI))
		woken = pi_unlock_woken(in, tid);

	t->futex_wake++;
	t->futex_woken += woken;
	f = ss_futex_get(in->uaddr);
	if (f) {
		__sync_fetch_and_add(&f->wakes, 1);
		__sync_fetch_and_add(&f->woken, woken);
		/* Before held_bound() moves it on. */
		__u64 prev_release = f->last_release_ns;
		__u64 held = held_bound(f, in, woken, tid);
		/* The holder's blocking outside futex calls since its last
		 * one, all inside this hold when that call was its wait for
		 * this word (it took the lock there), or its own release of it
		 * that no other release followed while no bound was measured
		 * (it took the lock back on the fast path: others released
		 * it, if at all, with nobody waiting); else at most the hold's
		 * bound (its last call may have been long before it took the
		 * lock). */
		__u64 blocked = t->nf_block_ns - t->nf_mark_ns;
		bool own_hold = t->own_release_uaddr == in->uaddr && t->own_release_ns == prev_release;

		/* The thread that waited on this word now wakes it: it held it
		 * as a lock (a condition variable is signalled by others).
		 * Once per wait, so a later unrelated wake is not counted. */
		if (t->last_wait_uaddr == in->uaddr) {
			__sync_fetch_and_add(&f->holder_wakes, 1);
			t->last_wait_uaddr = 0;
		} else if ((!own_hold || held) && blocked > held) {
			/* A measured bound holds even for its own hold: the
			 * lock may have changed hands silently in between. */
			blocked = held;
		}
		t->own_release_uaddr = in->uaddr;
		t->own_release_ns = in->start_ns;
		record_release(ctx, t, tid, in, woken, held, blocked, unwind);
	}
}

/*
 * A wait that blocked ended when its thread was switched in again: that
 * switch's timestamp (switch_in()) serves, the return to user space follows
 * within microseconds. A wait that did not switch reads the clock; a wake
 * and futex_other never (a release site's stack sampling goes by the
 * wake's entry).
 */
static __always_inline __u64 wait_duration(const struct ss_thread *t)
{
	__u64 start = t->cur.start_ns, in = t->last_in_ns;

	return (in > start ? in : bpf_ktime_get_ns()) - start;
}

/* Which call classes an exit program can end: the futex2 and waitv
 * syscalls are one class each (their entries say which), so their exits
 * carry only that class's code, which the verifier then need not walk:
 * the futex exits were most of spinscope's load time. */
#define SS_EXIT_WAITS 0x1
#define SS_EXIT_WAKES 0x2
#define SS_EXIT_ANY (SS_EXIT_WAITS | SS_EXIT_WAKES)

/* Set by user space when the trace ends, before it closes the links: they
 * close in parallel (tracer.c, destroy_links()), so a call's entry may be
 * unhooked tens of milliseconds before its exit, whose runs then find no
 * entry; on a target making a million futex calls a second that counted
 * thousands of missed exits the trace never missed. */
volatile __u32 stopping = 0;

/* unwind: a constant, see ss_user_stackid(); only wakes take stacks here.
 * classes: a constant SS_EXIT_* (a call of another class counts as other,
 * which its entry never makes). */
static __always_inline int futex_exit(void *ctx, long ret, bool unwind, int classes)
{
	struct ss_thread *t;
	__u32 tid;

	if (!current_is_target(&tid) || SS_SYSCALLS_FILTER_ONLY)
		return 0;
	t = ss_thread_find(tid);
	if (!t || !t->cur.start_ns) {
		/* Entered before we attached (or its thread was not recorded;
		 * or after the entry's link went, see stopping). */
		if (!stopping)
			count_drop(SS_DROP_MISSED_EXIT);
		return 0;
	}
	if ((classes & SS_EXIT_WAITS) && t->cur.class == SS_FUTEX_CLASS_WAIT)
		record_wait(t, tid, &t->cur, wait_duration(t), ret);
	else if ((classes & SS_EXIT_WAKES) && t->cur.class == SS_FUTEX_CLASS_WAKE)
		record_wake(ctx, t, tid, &t->cur, ret, unwind);
	else
		t->futex_other++;
	t->cur.start_ns = 0;
	t->nf_mark_ns = t->nf_block_ns;
	return 0;
}

/* The exits that can end a wake take its release site's stack: twins as
 * the entries that take waiters' stacks. */
#define FUTEX_EXIT_TWINS(name, sec, classes)                                         \
	SEC(sec) int name(struct syscall_trace_exit *ctx)                            \
	{                                                                            \
		return futex_exit(ctx, ctx->ret, false, classes);                    \
	}                                                                            \
	SEC(sec) int name##_unw(struct syscall_trace_exit *ctx)                      \
	{                                                                            \
		return futex_exit(ctx, ctx->ret, true, classes);                     \
	}

FUTEX_EXIT_TWINS(futex_exit_futex, "tracepoint/syscalls/sys_exit_futex", SS_EXIT_ANY)
FUTEX_EXIT_TWINS(futex_exit_wake2, "tracepoint/syscalls/sys_exit_futex_wake", SS_EXIT_WAKES)
FUTEX_EXIT_TWINS(futex_exit_requeue2, "tracepoint/syscalls/sys_exit_futex_requeue",
		 SS_EXIT_WAKES)

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int futex_exit_waitv(struct syscall_trace_exit *ctx)
{
	return futex_exit(ctx, ctx->ret, false, SS_EXIT_WAITS);
}

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int futex_exit_wait2(struct syscall_trace_exit *ctx)
{
	return futex_exit(ctx, ctx->ret, false, SS_EXIT_WAITS);
}

/* ---- sched_yield ------------------------------------------------------- */

/* Adds n yields to a call site's count. */
static __always_inline void add_yields(__s32 stack_id, __u64 n)
{
	__u64 *c, zero = 0;

	if (!n)
		return;
	if (stack_id < 0) {
		count_stack_drops(stack_id, n);
		return;
	}
	c = bpf_map_lookup_or_try_init(&yield_sites, &stack_id, &zero);
	if (c)
		__sync_fetch_and_add(c, n);
	else
		count_drops(SS_DROP_YIELD_SITES_FULL, n);
}

/*
 * A yield loop is the hottest path here, so a yield touches only its
 * thread's record: the yields since the thread's last stack are kept in
 * yield_pending and added to that stack's call site when the next stack is
 * taken (after an interval, or at once from another call site: another
 * user stack pointer); user space adds what is still pending when it reads
 * the maps.
 */
static __always_inline int on_yield(struct syscall_trace_enter *ctx, bool unwind)
{
	struct ss_thread *t;
	__u64 now, sp;
	__u32 tid;

	if (!current_is_target(&tid) || SS_SYSCALLS_FILTER_ONLY)
		return 0;
	t = current_thread(tid);
	if (!t)
		return 0;
	t->sched_yield++;
	now = bpf_ktime_get_ns();
	sp = call_site_sp(t, unwind);
	if (same_stack_sample(now, 0, sp, t->yield_stack_ns, 0, t->yield_stack_sp,
			      t->yield_stack_backoff)) {
		t->yield_pending++;
		return 0;
	}
	add_yields(t->yield_stack_id, t->yield_pending);
	walk_stack(ctx, now, 0, sp, &t->yield_stack_ns, NULL, &t->yield_stack_sp,
		   &t->yield_stack_id, &t->yield_stack_backoff, unwind);
	t->yield_pending = 1;
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_sched_yield")
int yield_enter(struct syscall_trace_enter *ctx)
{
	return on_yield(ctx, false);
}

SEC("tracepoint/syscalls/sys_enter_sched_yield")
int yield_enter_unw(struct syscall_trace_enter *ctx)
{
	return on_yield(ctx, true);
}

/* ---- scheduler --------------------------------------------------------- */

/*
 * Scheduler events fire for every task on the host. Each comes in two
 * variants: tp_btf reads task fields with plain loads (the kernel's BTF
 * types the pointers), raw_tp needs bpf_probe_read_kernel for each. User
 * space loads the tp_btf set when the kernel has BTF, raw_tp otherwise.
 * The bodies below take the ids already read.
 */
/*
 * A thread becomes runnable: at sched_waking, in its waker's context (so a
 * futex wake's woken waits reach its exit: held_bound()), its run-queue
 * wait timed from there (where the wake-up is queued to another CPU, a
 * few microseconds before sched_wakeup, which fires there); at
 * sched_wakeup_new, a new thread.
 */
static __always_inline void on_wakeup(struct task_struct *p, __u32 tid, bool is_new)
{
	__u64 now = bpf_ktime_get_ns();
	struct ss_thread *t = sched_runnable(p, tid, is_new, now);

	/* Off CPU since it blocked in the wait: that switch out. */
	if (t && !is_new && t->cur.start_ns && t->cur.class == SS_FUTEX_CLASS_WAIT)
		note_woken_wait(t->cur.uaddr, t->cur.start_ns,
				!t->last_in_ns && t->last_out_ns > t->cur.start_ns ? t->last_out_ns : 0,
				now);
}

/* btf: a constant, true in the tp_btf program (prev is BTF-typed). */
static __always_inline void on_switch(unsigned long long *ctx, bool preempt, struct task_struct *prev,
				      __u32 prev_tgid, __u32 prev_tid, struct task_struct *next, __u32 next_tgid,
				      __u32 next_tid, bool btf)
{
	bool prev_is = is_target(prev_tgid, prev_tid), next_is = is_target(next_tgid, next_tid);
	__u64 now;

	if (!prev_is && !next_is)
		return;
	now = bpf_ktime_get_ns();
	if (prev_is)
		switch_out(prev, prev_tid, preempt, switch_prev_state(ctx, prev, btf), now);
	if (next_is)
		switch_in(next, next_tid, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(ctx, preempt, prev, prev->tgid, prev->pid, next, next->tgid, next->pid, true);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(sched_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(ctx, preempt, prev, BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid), next,
		  BPF_CORE_READ(next, tgid), BPF_CORE_READ(next, pid), false);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking_btf, struct task_struct *p)
{
	if (is_target(p->tgid, p->pid))
		on_wakeup(p, p->pid, false);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(sched_waking_raw, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);

	if (is_target(BPF_CORE_READ(p, tgid), tid))
		on_wakeup(p, tid, false);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new_btf, struct task_struct *p)
{
	if (is_target(p->tgid, p->pid))
		on_wakeup(p, p->pid, true);
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new_raw, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);

	if (is_target(BPF_CORE_READ(p, tgid), tid))
		on_wakeup(p, tid, true);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p)
{
	struct ss_thread *t;
	__u32 tid;

	if (!current_is_target(&tid))
		return 0;
	t = ss_thread_find(tid);
	if (!t)
		return 0;
	/* Its batches into their maps, its counters into its name's record,
	 * its record freed (thread_exit.bpf.h). */
	add_yields(t->yield_stack_id, t->yield_pending);
	t->yield_pending = 0;
	flush_release(t, tid);
	ss_waiter_flush(t, tid);
	if (t->word_pending.waits)
		ss_word_flush_waits(tid);
	ss_word_flush_wakes(&t->word_pending);
	if (ss_thread_fold(t, tid, bpf_ktime_get_ns()))
		return 0;
	/* No record of its name to be had: the thread keeps its own. */
	t->flags |= SS_THREAD_EXITED;
	/* A task that takes over its tid has its registers elsewhere. */
	t->user_regs = 0;
	t->kstack_task = 0;
	/* Seeded at attach without a name (user space reads the names of
	 * the threads still alive at the end): its last chance to have one. */
	if (!t->comm[0])
		bpf_get_current_comm(t->comm, sizeof(t->comm));
	return 0;
}

/* ---- fentry/fexit: the same bodies on the syscall functions ----------- */

/*
 * Where BPF trampolines work (x86-64 from 5.10), the futex and sched_yield
 * syscall functions themselves are traced: only those calls pay, where a
 * syscall tracepoint puts every syscall of every task on the host on the
 * slow path. Each program is fe_<its tracepoint twin>, so that user space
 * loads one set or the other, and attaches it to its twin's syscall
 * function (user/trace/attach.c names it): the arch's wrapper, whose one
 * argument is the caller's pt_regs; fexit also gets the return value.
 */

/*
 * The wrapper's pt_regs, read with bpf_probe_read_kernel rather than as
 * ctx[0]: 5.10's BTF has struct pt_regs only declared (FWD) in the
 * wrappers' unit, and its verifier refuses a context read of an argument
 * that is not a pointer to a struct. The registers are read the same way.
 */
static __always_inline struct pt_regs *fe_regs(unsigned long long *ctx)
{
	struct pt_regs *regs = NULL;

	bpf_probe_read_kernel(&regs, sizeof(regs), ctx);
	return regs;
}

#define FE_ARG1(ctx) PT_REGS_PARM1_CORE_SYSCALL(fe_regs(ctx))

#define FENTRY_TWINS(name, body)                                                     \
	static __always_inline int name##_body(unsigned long long *ctx, bool unwind) \
	{                                                                            \
		__u32 tid;                                                           \
										     \
		if (!current_is_target(&tid))                                        \
			return 0;                                                    \
		body;                                                                \
	}                                                                            \
	SEC("fentry") int name(unsigned long long *ctx)                              \
	{                                                                            \
		return name##_body(ctx, false);                                      \
	}                                                                            \
	SEC("fentry") int name##_unw(unsigned long long *ctx)                        \
	{                                                                            \
		return name##_body(ctx, true);                                       \
	}

/* ctx[1]: the return value (a long: readable on every kernel). The exits
 * that can end a wake take its release site's stack: twins, as their
 * tracepoint twins. */
#define FEXIT_PROG(name, classes)                                                    \
	SEC("fexit") int name(unsigned long long *ctx)                               \
	{                                                                            \
		return futex_exit(ctx, (long)ctx[1], false, classes);                \
	}

#define FEXIT_TWINS(name, classes)                                                   \
	FEXIT_PROG(name, classes)                                                    \
	SEC("fexit") int name##_unw(unsigned long long *ctx)                         \
	{                                                                            \
		return futex_exit(ctx, (long)ctx[1], true, classes);                 \
	}

static __always_inline int fe_futex_enter(unsigned long long *ctx, __u32 tid, bool unwind)
{
	struct pt_regs *regs = fe_regs(ctx);
	int op = (int)PT_REGS_PARM2_CORE_SYSCALL(regs);
	__u64 uaddr = PT_REGS_PARM1_CORE_SYSCALL(regs);

	return futex_enter(ctx, tid, uaddr, futex_class(op), futex_flags(op), unwind);
}

FENTRY_TWINS(fe_futex_enter_futex, return fe_futex_enter(ctx, tid, unwind))
FENTRY_TWINS(fe_futex_enter_waitv,
	     return futex_enter(ctx, tid, waitv_first_uaddr(FE_ARG1(ctx)), SS_FUTEX_CLASS_WAIT, 0,
				unwind))
FENTRY_TWINS(fe_futex_enter_wait2,
	     return futex_enter(ctx, tid, FE_ARG1(ctx), SS_FUTEX_CLASS_WAIT, 0, unwind))

/* Wakers take no stack: one program each. */
SEC("fentry")
int fe_futex_enter_wake2(unsigned long long *ctx)
{
	__u32 tid;

	if (!current_is_target(&tid))
		return 0;
	return futex_enter(ctx, tid, FE_ARG1(ctx), SS_FUTEX_CLASS_WAKE, 0, false);
}

SEC("fentry")
int fe_futex_enter_requeue2(unsigned long long *ctx)
{
	__u32 tid;

	if (!current_is_target(&tid))
		return 0;
	return futex_enter(ctx, tid, waitv_first_uaddr(FE_ARG1(ctx)), SS_FUTEX_CLASS_WAKE, 0,
			   false);
}

FEXIT_TWINS(fe_futex_exit_futex, SS_EXIT_ANY)
FEXIT_PROG(fe_futex_exit_waitv, SS_EXIT_WAITS)
FEXIT_PROG(fe_futex_exit_wait2, SS_EXIT_WAITS)
FEXIT_TWINS(fe_futex_exit_wake2, SS_EXIT_WAKES)
FEXIT_TWINS(fe_futex_exit_requeue2, SS_EXIT_WAKES)

/* No arguments read (x86-64 attaches it to __do_sys_sched_yield, whose
 * alias the wrapper is); on_yield() checks the target itself. */
SEC("fentry")
int fe_yield_enter(unsigned long long *ctx)
{
	return on_yield((void *)ctx, false);
}

SEC("fentry")
int fe_yield_enter_unw(unsigned long long *ctx)
{
	return on_yield((void *)ctx, true);
}

char LICENSE[] SEC("license") = "GPL";

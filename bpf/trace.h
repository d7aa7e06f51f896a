/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data shared between trace.bpf.c and user space: map keys and values, the
 * drop reasons and the futex classification. Fixed-width types with explicit
 * padding; the size asserts catch a struct that drifts between the sides.
 */
#ifndef SPINSCOPE_TRACE_H
#define SPINSCOPE_TRACE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "common.h"	/* SS_HIST_SLOTS, SS_MAX_STACK_DEPTH */

#define SS_COMM_LEN 16

/* How a futex wait ended, from the syscall's return value. */
enum ss_futex_outcome {
	SS_FUTEX_WOKEN = 0,	/* 0 (or an index for futex_waitv) */
	SS_FUTEX_TIMEDOUT,	/* -ETIMEDOUT */
	SS_FUTEX_AGAIN,		/* -EAGAIN: the value had changed */
	SS_FUTEX_INTR,		/* -EINTR and the -ERESTART* family */
	SS_FUTEX_OTHER,
	SS_FUTEX_OUTCOMES,
};

/* Why an event was not (fully) recorded. Counted per CPU, always reported. */
enum ss_drop {
	SS_DROP_THREADS_FULL = 0,	/* threads map full: thread not tracked */
	SS_DROP_FUTEXES_FULL,		/* futexes map full: address not tracked */
	SS_DROP_WAITERS_FULL,		/* waiter stacks map full */
	SS_DROP_YIELD_SITES_FULL,	/* yield call sites map full */
	SS_DROP_STACK_FAIL,		/* user stack could not be collected */
	SS_DROP_MISSED_EXIT,		/* futex exit with no matching enter */
	SS_DROP_PROG_MISSES,		/* the kernel skipped one of our programs
					 * (recursion; set by user space from
					 * bpf_prog_info.recursion_misses) */
	SS_DROP_RELEASES_FULL,		/* release sites map full */
	SS_DROP_CALL_SITE_UNKNOWN,	/* the user stack pointer could not be
					 * read: the event's stack may be one
					 * taken at another call site of the
					 * same word */
	SS_DROP_EXITED_NAMES_FULL,	/* exited threads folded under the
					 * empty name: too many names */
	SS_DROP_STACK_COLLISION,	/* user stack lost: another stack had
					 * its bucket in the kernel's stack map
					 * (bpf_get_stackid's -EEXIST) */
	SS_DROPS,
};

/* Futex syscall classes. */
enum ss_futex_class {
	SS_FUTEX_CLASS_OTHER = 0,
	SS_FUTEX_CLASS_WAIT = 1,
	SS_FUTEX_CLASS_WAKE = 2,
};

/* The thread records' slots ahead of the threads hash (thread_slots in
 * profile_maps.bpf.h): a tid's slot is tid % SS_THREAD_SLOTS. */
#define SS_THREAD_SLOTS 256

/* Thread flags. */
#define SS_THREAD_EXITED 0x1

/* A thread's futex call between its enter and exit; start_ns 0: none. */
struct ss_inflight {
	__u64 start_ns;
	__u64 uaddr;
	__s32 stack_id;
	__u16 class;			/* enum ss_futex_class */
	__u16 flags;			/* SS_INFLIGHT_* */
};

/* The wait is FUTEX_WAIT_BITSET (glibc's condvar, semaphore, join). */
#define SS_INFLIGHT_BITSET 0x1
/* The wake is a FUTEX_UNLOCK_PI (which returns 0, not the waiters woken). */
#define SS_INFLIGHT_UNLOCK_PI 0x2
/* The wait is a FUTEX_LOCK_PI(2): it returns 0 once the lock is taken,
 * whether it slept for it or found it free in the kernel. */
#define SS_INFLIGHT_LOCK_PI 0x4
/* The thread blocked (a voluntary switch) while the call was in flight:
 * set by sched_switch, so that a LOCK_PI that took a free lock is told
 * from one that waited for it. */
#define SS_INFLIGHT_SLEPT 0x8

/*
 * The counters of a thread and of a futex address, each declared once here.
 * struct ss_thread and struct ss_futex (both sides), the profile's totals
 * and interval differences, the advisor's input, the JSON keys, the text
 * columns and the test fixtures are all generated from or walk these
 * lists: adding a counter is one line here plus its update in trace.bpf.c.
 *
 *   C(name, kind, unit, json)            one __u64
 *   A(name, slots, kind, unit, json)     an array of __u64
 *
 * kind  SUM: totals add it up, an interval subtracts the previous value;
 *       MAX: totals and intervals keep the largest value seen.
 * unit  COUNT or NS: how the text report prints it.
 * json  ALL: in every JSON object of that kind (threads and "totals");
 *       THREAD: in the per-thread objects only; NONE: not in JSON.
 *       Arrays name their JSON key and form: HIST (log2 slots, trailing
 *       empty slots dropped) or OUTCOMES ({name: count} by ss_outcome_names).
 * The JSON shows the ALL scalars in list order, then the arrays, then the
 * THREAD scalars: the order of the keys since schema 1.
 */
#define SS_THREAD_COUNTERS(C, A)						\
	C(sched_yield,		SUM, COUNT, ALL)				\
	C(futex_wait,		SUM, COUNT, ALL)	/* wait-class calls that returned */ \
	C(futex_wait_ns,	SUM, NS, ALL)					\
	C(futex_wait_ns_max,	MAX, NS, THREAD)				\
	C(futex_wake,		SUM, COUNT, ALL)	/* wake-class calls */	\
	C(futex_woken,		SUM, COUNT, ALL)	/* waiters those calls woke */ \
	C(futex_other,		SUM, COUNT, NONE)	/* TRYLOCK_PI, FD, ... */ \
	A(futex_outcome, SS_FUTEX_OUTCOMES, SUM, COUNT, (futex_outcomes, OUTCOMES)) \
	C(switches_voluntary,	SUM, COUNT, ALL)				\
	C(switches_involuntary,	SUM, COUNT, ALL)				\
	C(oncpu_ns,		SUM, NS, ALL)					\
	C(offcpu_ns,		SUM, NS, ALL)		/* includes runq_ns */	\
	C(runq_count,		SUM, COUNT, ALL)	/* waits for a CPU while runnable */ \
	C(runq_ns,		SUM, NS, ALL)					\
	C(runq_ns_max,		MAX, NS, ALL)					\
	/* futex_wait split: slept (woken, timed out, interrupted), or found	\
	 * the word changed (EAGAIN); futex_wait_ns and _max: blocked only */	\
	C(futex_blocked,	SUM, COUNT, ALL)				\
	C(futex_returned_at_once, SUM, COUNT, ALL)				\
	A(runq_hist, SS_HIST_SLOTS, SUM, COUNT, (runq_hist_log2_ns, HIST))

#define SS_FUTEX_COUNTERS(C, A)						\
	C(waits,		SUM, COUNT, ALL)				\
	C(wait_ns,		SUM, NS, ALL)					\
	C(wait_ns_max,		MAX, NS, ALL)					\
	C(wakes,		SUM, COUNT, ALL)				\
	C(woken,		SUM, COUNT, ALL)				\
	/* waits split as the thread's; wait_ns, _max and hist: blocked only */	\
	C(blocked,		SUM, COUNT, ALL)				\
	C(returned_at_once,	SUM, COUNT, ALL)				\
	/* time in the calls that returned at once: a hot lock's cost */	\
	C(at_once_ns,		SUM, NS, ALL)					\
	/* How the word is used: wakes by a thread whose previous futex	\
	 * wait was on it (a lock's holder releasing it), and waits with	\
	 * FUTEX_WAIT_BITSET (glibc's condvar, sem, join) */		\
	C(holder_wakes,		SUM, COUNT, ALL)				\
	C(bitset_waits,		SUM, COUNT, ALL)				\
	/* Waits that ended woken after which the thread waited again (on	\
	 * any word) within SS_REBLOCK_NS of on-CPU time: a wake that found	\
	 * nothing to do, the mark of a broadcast herd */			\
	C(reblocked,		SUM, COUNT, ALL)				\
	A(outcome, SS_FUTEX_OUTCOMES, SUM, COUNT, (outcomes, OUTCOMES))	\
	A(hist, SS_HIST_SLOTS, SUM, COUNT, (hist_log2_ns, HIST))

/* The fields of a list, for a struct that holds its counters. */
#define SS_COUNTER_FIELD(name, kind, unit, json) __u64 name;
#define SS_COUNTER_ARRAY_FIELD(name, slots, kind, unit, json) __u64 name[slots];
#define SS_COUNTER_FIELDS(list) list(SS_COUNTER_FIELD, SS_COUNTER_ARRAY_FIELD)

/*
 * Release sites: wake calls that found waiters, per futex address, waker
 * stack and waker thread (the holder that released the lock). Taken only
 * on wakes that woke someone, so uncontended unlocks cost nothing more.
 *
 * held_contended*: how long the holder kept the lock while others waited,
 * a lower bound. A wait that blocks on a lock word found it held, and a
 * held lock word is released with a wake call (glibc: the unlock of a
 * word marked contended always wakes). So the release that wakes a
 * waiter ends the hold that its wait found, if no release came between:
 * release - (start of the earliest wait it woke) bounds that hold from
 * below when that wait began after the previous release. Measured for
 * every such release; not total hold time (before the first waiter came,
 * the hold is not seen), and not for a hold whose earliest waiter queued
 * during an earlier one: see held_bound() in trace.bpf.c. wakes and woken
 * are exact.
 */
struct ss_release_key {
	__u64 uaddr;
	__s32 stack_id;
	__u32 tid;
};

#define SS_RELEASE_COUNTERS(C, A)						\
	C(wakes,		SUM, COUNT, ALL)	/* wakes that found waiters */ \
	C(woken,		SUM, COUNT, ALL)	/* waiters they woke */	\
	C(held_contended,	SUM, COUNT, ALL)	/* wakes with a held bound */ \
	C(held_contended_ns,	SUM, NS, ALL)		/* the bounds' sum */	\
	C(held_contended_ns_max, MAX, NS, ALL)					\
	/* the holder's time blocked off CPU outside a futex wait (I/O,	\
	 * sleep) in the holds these wakes ended: since it took the lock	\
	 * by a wait, else within the held bound */			\
	C(held_blocked_ns,	SUM, NS, ALL)					\
	A(held_contended_hist, SS_HIST_SLOTS, SUM, COUNT, (held_contended_hist_log2_ns, HIST))

/* Written only by the key's thread: plain adds and compares are exact. */
struct ss_release_val {
	SS_COUNTER_FIELDS(SS_RELEASE_COUNTERS)
};

/* Waiter stacks per futex address and thread: the tid tells user space
 * how many distinct threads queue on an address. */
struct ss_waiter_key {
	__u64 uaddr;
	__s32 stack_id;
	__u32 tid;
};

struct ss_waiter_val {
	__u64 count;
	__u64 wait_ns;
	/* Written only by the key's thread, so a plain compare keeps it exact
	 * without cmpxchg (BPF has it from Linux 5.12 only); user space takes
	 * each address's maximum over its waiters. */
	__u64 wait_ns_max;
	/* Waits of count that returned at once (EAGAIN: the word changed
	 * before the thread could sleep); --light sees none. */
	__u64 at_once;
};

/*
 * A thread's counts for the futexes map, kept in its record as its waiter
 * record is: its waits on wait_uaddr and its wakes on wake_uaddr since
 * that word last changed, not yet in futexes[word] (whose record exists
 * from the change on). A thread mostly waits on one word and wakes one; a
 * lookup and four to eight atomics per wait were a quarter of --light's
 * time on a futex ping-pong (docs/BENCHMARKS.md). User space adds what is
 * pending when it reads the maps (tracer.c). Both tracers fill the waits
 * (profile_maps.bpf.h); the wakes only --light, whose wakes each woke one
 * waiter (the exact path looks the word up at every wake anyway, for its
 * release bound).
 */
struct ss_word_pending {
	__u64 wait_uaddr;
	__u64 waits;
	__u64 wait_blocked;		/* --light: all of them */
	__u64 wait_ns;			/* the blocked ones' */
	__u64 wait_at_once;		/* returned at once, and their time */
	__u64 wait_at_once_ns;
	__u64 wait_bitset;		/* FUTEX_WAIT_BITSET */
	__u64 wait_outcome[SS_FUTEX_OUTCOMES];	/* --light: none seen */
	__u64 wake_uaddr;
	__u64 wakes;
	__u64 reblocked;		/* the word's reblocked count (SS_FUTEX_COUNTERS) */
	__u64 wait_hist[SS_HIST_SLOTS];
};

/* "At once" for a woken waiter that waits again: less on-CPU time than
 * about ten system calls, so that it did no work it was woken for. */
#define SS_REBLOCK_NS 25000ULL

/* struct ss_thread's sched_flags. */
#define SS_SCHED_RUNNING 0x1		/* counted in ss_concurrency.running */
#define SS_SCHED_NF_BLOCKED 0x2		/* blocked outside a traced futex call */
#define SS_SCHED_WOKEN 0x4		/* its last futex wait ended woken */

/*
 * How many of the target's threads were on a CPU at once, over time:
 * time_ns[k] is the time with k running (the last slot: k or more). A
 * lock or interpreter lock that lets one thread run at a time keeps it at
 * 1 while the others block, however many CPUs are free, and on a busy
 * host too; independent threads reach their number or the CPUs'. One
 * record, updated by every CPU at each of the target's switches: two CPUs
 * changing it within the same few nanoseconds misplace that much time.
 */
#define SS_CONC_SLOTS 16
struct ss_concurrency {
	__s64 running;
	__u64 last_ns;
	__u64 time_ns[SS_CONC_SLOTS];
};

/* Per-thread counters: key is the tid (__u32). Each thread's fields are
 * written by the CPU the thread runs on, except enqueue_ns and user_regs
 * (its waker's). */
struct ss_thread {
	SS_COUNTER_FIELDS(SS_THREAD_COUNTERS)
	/* Bookkeeping for the time accounting; user space adds the tail. */
	__u64 last_in_ns;		/* went on CPU; 0 while off CPU */
	__u64 last_out_ns;		/* went off CPU */
	__u64 enqueue_ns;		/* became runnable; 0 when not queued */
	/* Stack sampling: a user stack costs ~0.6 us to walk, more than a
	 * sched_yield; one is taken per interval, events in between reuse it,
	 * a futex wait only for the same word (wait_stack_site), so that a
	 * word is never named by another word's stack, and both only from
	 * the same call site, told by the user stack pointer (_sp; 0 where
	 * it could not be read, counted as call_site_unknown). */
	__u64 yield_stack_ns;
	__u64 yield_pending;		/* yields not yet added to yield_stack_id's site */
	__u64 yield_stack_sp;
	__u64 wait_stack_ns;
	__u64 wait_stack_site;		/* futex word of wait_stack_id */
	__u64 wait_stack_sp;
	__u64 last_wait_uaddr;		/* word of the thread's last futex wait */
	__s32 yield_stack_id;
	__s32 wait_stack_id;
	/* The frame-pointer programs' copy of where this thread's user
	 * registers lie on its kernel stack (ss_kstack_regs()), and the task
	 * it was found for. */
	__u64 kstack_task;
	__u64 kstack_regs;
	/* Where its user registers lie (task_regs.bpf.h: the unwinding
	 * programs' ss_user_sp(), and --light's register reads, which also
	 * keep it from the waker's CPU at a wake-up); 0: not yet found, or
	 * the thread exited. */
	__u64 user_regs;
	/* The same for the stacks of wakes that found waiters (release
	 * sites), per word and call site as the waits'. */
	__u64 wake_stack_ns;
	__u64 wake_stack_site;
	__u64 wake_stack_sp;
	__s32 wake_stack_id;
	/* The yields', waits' and wakes' stack intervals are doubled this
	 * many times: see stack_backoff(). */
	__u8 yield_stack_backoff;
	__u8 wait_stack_backoff;
	__u8 wake_stack_backoff;
	__u8 sched_flags;		/* SS_SCHED_* */
	/* The release site's counts since the wake stack was taken, not yet
	 * in release_sites[wake_stack_site, wake_stack_id, tid]: as
	 * yield_pending, added there when the next wake stack is taken (a
	 * map update per wake cost as much as the stacks); user space adds
	 * what is still pending when it reads the maps. */
	struct ss_release_val wake_pending;
	/* The same for the waits: their waiter record (struct
	 * ss_waiter_val) since the thread's word or waiter stack last
	 * changed, not yet in waiters[wait_pending_uaddr,
	 * wait_pending_stack, tid] (ss_waiter_add()): a thread mostly waits
	 * on one word from one call site, and a map update per wait cost a
	 * lookup and three atomics. */
	struct ss_waiter_val wait_pending;
	__u64 wait_pending_uaddr;
	__s32 wait_pending_stack;
	__u32 wait_pending_pad;
	struct ss_word_pending word_pending;
	/* Its on-CPU time when its last wait ended woken (SS_SCHED_WOKEN),
	 * for the next wait's reblocked test; its time blocked off CPU
	 * outside futex calls, and that sum at its last futex call: a
	 * contended release's held_blocked_ns is their difference. */
	__u64 woke_oncpu_ns;
	__u64 nf_block_ns;
	__u64 nf_mark_ns;
	/* Its last wake call's word and entry, for the next release's test
	 * of whether it kept the lock since (trace.bpf.c, record_wake()). */
	__u64 own_release_uaddr;
	__u64 own_release_ns;
	/* Kept in the thread's own record, which enter and exit look up
	 * anyway: a separate map cost a second lookup and an update per call. */
	struct ss_inflight cur;
	__u32 tid;
	__u32 flags;			/* SS_THREAD_* */
	char comm[SS_COMM_LEN];
};

/* Per futex address (key: __u64 user address). Updated by every thread that
 * uses the address, so all updates are atomic adds. wait_ns_max is not kept
 * here by BPF but merged by user space from the waiters map (see
 * ss_waiter_val), except for waits whose waiter record found no room. */
struct ss_futex {
	/* The entry of the word's latest wake call to return, and of the
	 * latest that woke someone: the releases before the next one's
	 * (held_bound() in trace.bpf.c). First: in the cache line of wakes,
	 * which the same exits write. Not counters. */
	__u64 last_release_ns;
	__u64 last_handover_ns;
	SS_COUNTER_FIELDS(SS_FUTEX_COUNTERS)
};

/* sched_yield call sites (key: __s32 stack id, value: __u64 count). */

#ifndef __VMLINUX_H__
_Static_assert(sizeof(struct ss_thread) ==
	       8 * (34 + SS_FUTEX_OUTCOMES + SS_HIST_SLOTS) + 8 + 24 + 8 + SS_COMM_LEN + 32 +
		       sizeof(struct ss_release_val) + sizeof(struct ss_waiter_val) + 16 +
		       sizeof(struct ss_word_pending),
	       "struct ss_thread layout");
_Static_assert(sizeof(struct ss_word_pending) == 8 * (10 + SS_FUTEX_OUTCOMES + SS_HIST_SLOTS),
	       "struct ss_word_pending layout");
_Static_assert(sizeof(struct ss_futex) ==
	       8 * (13 + SS_FUTEX_OUTCOMES + SS_HIST_SLOTS), "struct ss_futex layout");
_Static_assert(sizeof(struct ss_release_key) == 16, "struct ss_release_key layout");
_Static_assert(sizeof(struct ss_release_val) == 8 * (6 + SS_HIST_SLOTS),
	       "struct ss_release_val layout");
_Static_assert(sizeof(struct ss_waiter_key) == 16, "struct ss_waiter_key layout");
_Static_assert(sizeof(struct ss_waiter_val) == 32, "struct ss_waiter_val layout");
_Static_assert(sizeof(struct ss_concurrency) == 8 * (2 + SS_CONC_SLOTS),
	       "struct ss_concurrency layout");
_Static_assert(sizeof(struct ss_inflight) == 24, "struct ss_inflight layout");
#endif

#endif /* SPINSCOPE_TRACE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What top.bpf.c (`spinscope top`: every process of the host, from the
 * scheduler's tracepoints alone) and user/top/ agree on: the per-thread
 * and per-(thread, futex word) records, their counter lists and the drop
 * reasons, each written once. Counters only grow; user space subtracts
 * the previous refresh's values (user/top/top_collect.c).
 */
#ifndef SPINSCOPE_TOP_H
#define SPINSCOPE_TOP_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The counters of one thread: X(name). */
#define TOP_THREAD_COUNTERS(X)                                                 \
	X(oncpu_ns)                                                            \
	X(runq_ns)		/* runnable, waiting for a CPU */              \
	X(runq_count)                                                          \
	X(switches_voluntary)                                                  \
	X(switches_involuntary)	/* preempted or yielded */                     \
	X(futex_waits)		/* futex waits that blocked */                 \
	X(futex_wait_ns)	/* their time off CPU */                       \
	X(futex_wakes)		/* futex wake calls that woke a waiter */      \
	X(futex_woken)		/* waiters they woke */                        \
	X(yields)		/* sched_yield calls that switched */          \
	X(samples)		/* cpu-clock samples (with --sample) */        \
	X(spin_samples)		/* of them, at a spin-wait hint */

/* The counters of one thread's use of one futex word: X(name). */
#define TOP_WORD_COUNTERS(X)                                                   \
	X(waits)		/* blocked waits on it */                      \
	X(wait_ns)                                                             \
	X(woken_waits)		/* of them, ended by a futex wake seen */      \
	X(wakes)		/* its wake calls that woke a waiter of it */  \
	X(woken)		/* waiters those calls woke */                 \
	X(reblocked)		/* woken waits followed by another wait within \
				 * SS_REBLOCK_NS of on-CPU time */

/* Why an event was not recorded (per-CPU counters, summed by user space
 * into the header's drops): X(enum name, JSON name). */
#define TOP_DROP_REASONS(X)                                                    \
	X(TOP_DROP_THREADS_FULL, "threads_full")                               \
	X(TOP_DROP_WORDS_FULL, "words_full")                                   \
	X(TOP_DROP_SAMPLE_READ, "sample_read_failed")

#define TOP_ENUM(name, json) name,
enum top_drop { TOP_DROP_REASONS(TOP_ENUM) TOP_DROPS };
#undef TOP_ENUM

#define TOP_FIELD(name) __u64 name;
struct top_counts {
	TOP_THREAD_COUNTERS(TOP_FIELD)
};

struct top_word_counts {
	TOP_WORD_COUNTERS(TOP_FIELD)
};
#undef TOP_FIELD

/* A thread's record lies in slot tid % TOP_THREAD_SLOTS of an array (the
 * verifier inlines an array lookup: no call on the hot path), or, where
 * another live thread holds that slot, in a hash keyed by tid. With the
 * default pid_max (32768, or 4194304 on hosts with many CPUs) slots seldom
 * collide. */
#define TOP_THREAD_SLOTS 65536		/* a power of two */
#define TOP_MAX_SPILL 16384
#define TOP_MAX_WORDS 65536

/* A thread left (sched_process_exit): user space takes its last figures
 * and deletes the record. */
#define TOP_THREAD_EXITED 0x1
/* Its current futex wait was ended by a futex wake seen at sched_waking. */
#define TOP_THREAD_WOKEN 0x2
/* Seen switching (or made by sched_wakeup_new): a first switch-out of a
 * thread not seen before ends a slice that began before the attach. */
#define TOP_THREAD_SEEN 0x4

/* One thread, keyed by tid in the threads map. The state fields let user
 * space credit time still running at a refresh (a thread that has spun
 * on a CPU, waited in the run queue or blocked for a whole interval). */
struct top_thread_rec {
	__u64 tid;			/* the slot's owner, 0: a free slot (64 bits:
					 * BPF's compare-and-swap before -mcpu=v3) */
	__u32 tgid;
	__u32 flags;			/* TOP_THREAD_* */
	__u64 start_time;		/* task_struct::start_time: a reused tid is another thread */
	struct top_counts c;
	__u64 in_ns;			/* on a CPU since (bpf_ktime_get_ns); 0: off */
	__u64 out_ns;			/* its last switch out */
	__u64 runq_since_ns;		/* runnable since; 0: not waiting for a CPU */
	__u64 wait_start_ns;		/* blocked in a futex wait since; 0: not */
	__u64 wait_uaddr;
	__u64 wake_ns;			/* its last wake-up of a futex waiter, */
	__u64 wake_uaddr;		/* on this word: groups one call's wake-ups */
	__u64 wake_in_ns;		/* its in_ns then: a switch since ends the call */
	__u64 reblock_oncpu;		/* oncpu_ns + 1 when its last woken wait ended; 0: none */
	__u64 reblock_uaddr;
	__u64 user_regs;		/* task_regs.bpf.h */
};

/* One thread's use of one futex word. */
struct top_word_key {
	__u32 tgid;
	__u32 tid;
	__u64 uaddr;
};

#endif /* SPINSCOPE_TOP_H */

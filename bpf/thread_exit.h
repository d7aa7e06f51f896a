/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads that exited during the trace, shared between thread_exit.bpf.h
 * and user space: at its exit a thread's counters are folded into the
 * record of its name and its own record is freed, so that the threads map
 * holds the live threads only and a thread-per-request server's totals
 * stay exact however many threads come and go (issue 30 item 5).
 */
#ifndef SPINSCOPE_THREAD_EXIT_H
#define SPINSCOPE_THREAD_EXIT_H

#include "trace.h"	/* SS_COMM_LEN, SS_THREAD_COUNTERS */

/* Names kept apart; the threads of further names fold under the empty
 * name (counted: dropped.exited_names_full), their counts still exact. */
#define SS_EXITED_NAMES 256

struct ss_exited_key {
	char comm[SS_COMM_LEN];		/* the thread's name at its exit */
};

/* Per CPU (a BPF_MAP_TYPE_PERCPU_HASH): each CPU folds the threads that
 * exit on it with plain adds; user space adds the CPUs up. */
struct ss_exited {
	__u64 threads;			/* thread lifetimes folded */
	SS_COUNTER_FIELDS(SS_THREAD_COUNTERS)
};

#ifndef __VMLINUX_H__
_Static_assert(sizeof(struct ss_exited_key) == SS_COMM_LEN, "struct ss_exited_key layout");
_Static_assert(sizeof(struct ss_exited) == 8 * (17 + SS_FUTEX_OUTCOMES + SS_HIST_SLOTS),
	       "struct ss_exited layout");
#endif

#endif /* SPINSCOPE_THREAD_EXIT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The waiter and release-site entries of threads that have exited, moved
 * out of their BPF maps during the trace (issue 30 item 3). Both maps key
 * their entries by thread (bpf/trace.h: struct ss_waiter_key,
 * ss_release_key), and a thread-per-request server makes new ones with
 * every thread: in seconds the maps were full and further waits and wakes
 * lost their stacks (counted: waiter_stacks_map_full,
 * release_sites_map_full). An exited thread never writes its entries
 * again (its last batches are flushed at its sched_process_exit, before
 * its /proc entry goes), so they are read, deleted from the maps and kept
 * here, summed per word and stack under tid 0 ("threads that have
 * exited"): kept per thread, hundreds of thousands of them made every
 * per-thread pass of the model quadratic. The waiters' tids are kept, to
 * count a word's waiter threads. Every read of the profile adds all of it
 * back (tracer.c).
 */
#ifndef SPINSCOPE_EXITED_SITES_H
#define SPINSCOPE_EXITED_SITES_H

#include <stddef.h>
#include <linux/types.h>

/* One map's moved entries, summed: n keys (tid 0) and their n values. */
struct moved_entries {
	void *keys, *vals;
	size_t n, cap;
};

/* An exited thread that waited on a word. */
struct exited_waiter {
	__u64 uaddr;
	__u32 tid;
};

struct exited_sites {
	struct moved_entries waiters;	/* ss_waiter_key, ss_waiter_val */
	struct moved_entries releases;	/* ss_release_key, ss_release_val */
	struct exited_waiter *tids;	/* one per thread and word */
	size_t ntids, tidcap;
};

/*
 * Moves the entries of the threads that are gone (no task/TID in proc_dir,
 * the target's /proc folder) from the waiters map wfd and the release-
 * sites map rfd into x. Returns the entries moved, or a negative errno
 * (out of memory: what was not moved stays in the maps).
 */
long exited_sites_drain(struct exited_sites *x, int wfd, int rfd, int proc_dir);

void exited_sites_free(struct exited_sites *x);

#endif

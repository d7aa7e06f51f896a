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
 * its /proc entry goes), so they are read, kept here and deleted from the
 * maps, and every read of the profile adds them back (tracer.c).
 */
#ifndef SPINSCOPE_EXITED_SITES_H
#define SPINSCOPE_EXITED_SITES_H

#include <stddef.h>

/* One map's moved entries: n keys and n values, each of its map's sizes. */
struct moved_entries {
	void *keys, *vals;
	size_t n, cap;
};

struct exited_sites {
	struct moved_entries waiters;	/* ss_waiter_key, ss_waiter_val */
	struct moved_entries releases;	/* ss_release_key, ss_release_val */
};

/*
 * Moves the entries of the threads that are gone (no task/TID in proc_dir,
 * the target's /proc folder) from the waiters map wfd and the release-
 * sites map rfd into x. Returns the entries moved, or a negative errno
 * (out of memory: what was moved so far stays in x, the rest in the maps).
 */
long exited_sites_drain(struct exited_sites *x, int wfd, int rfd, int proc_dir);

void exited_sites_free(struct exited_sites *x);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector's state, shared by its files (top_collect.c: threads,
 * top_procs.c: processes and their names, top_hostinfo.c: the header).
 * Not for other folders: top_collect.h is the interface.
 */
#ifndef SPINSCOPE_TOP_COLLECT_PRIV_H
#define SPINSCOPE_TOP_COLLECT_PRIV_H

#include <stdint.h>
#include "top.h"
#include "top_collect.h"
#include "top_mapread.h"
#include "top_procinfo.h"
#include "top_words.h"
#include "common/hostload.h"

/* Time still running at a refresh, credited before its event ends. */
struct thread_credit {
	uint64_t oncpu, runq, wait, wait_uaddr;
};

/* One thread record as read (what of it later refreshes need), and what
 * was credited at that read. */
struct thread_rec {
	uint32_t key;			/* the map's: a slot, or the spill hash's tid */
	uint32_t tid, tgid, flags;
	uint64_t start_time;
	struct top_counts c;
	struct thread_credit ip;
	bool spilled;			/* in the spill hash, not a slot */
};

/* One thread's figures in the interval. */
struct thread_delta {
	uint32_t tid, tgid;
	uint64_t start_time;
	struct top_counts d;
};

/* A process named from /proc, kept across refreshes while it is seen. */
struct proc_name {
	int32_t pid;
	uint64_t leader_start;		/* its main thread's record start time (BPF); 0: none */
	uint64_t seen;			/* the refresh that last saw it */
	struct top_procinfo info;
	bool gone;			/* /proc had no such process */
};

struct top_host_state {
	struct host_ticks ticks;
	uint64_t drops;
	double self_cpu_s;		/* user + system seconds at the last read */
	uint64_t last_ns;
};

struct top_collector {
	struct top_bpf *bpf;
	struct top_collect_opts o;
	uint64_t last_ns, refreshes;
	struct top_map_table cur, prev;	/* struct thread_rec, by tid */
	struct thread_delta *deltas;
	size_t ndeltas, deltas_cap;
	struct top_wait_credit *credits;
	size_t ncredits, credits_cap;
	struct top_words words;
	struct top_proc *procs;
	size_t *proc_threads_at;	/* each process's first thread in threads */
	size_t procs_cap;
	struct top_thread *threads;	/* the procs' threads arrays, with --threads */
	size_t nthreads, threads_cap;
	struct proc_name *names;	/* by pid */
	size_t nnames, names_cap;
	struct top_host_state host;
};

/* Groups c->deltas into snap->procs (named, words attached). 0 or -ENOMEM. */
int top_procs_build(struct top_collector *c, struct top_snapshot *snap);
void top_procs_free(struct top_collector *c);
void top_hostinfo_start(struct top_host_state *h);
void top_hostinfo_read(struct top_host_state *h, struct top_bpf *bpf, struct top_snapshot *snap);

#endif

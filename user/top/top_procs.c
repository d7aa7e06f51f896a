// SPDX-License-Identifier: GPL-2.0
/*
 * The interval's threads grouped into processes, each named from /proc
 * (cached while the process lives: re-read when its main thread's record
 * is another thread's, a reused pid), its words attached.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/sort.h"
#include "common/grow.h"
#include "common/procfs.h"
#include "top_collect_priv.h"

static int cmp_delta(const void *a, const void *b)
{
	const struct thread_delta *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool active(const struct top_counts *d)
{
	bool any = false;

#define ANY(name) any |= d->name != 0;
	TOP_THREAD_COUNTERS(ANY)
#undef ANY
	return any;
}

static bool wanted(const struct top_collector *c, uint32_t tgid)
{
	if (!tgid)
		return false;
	if (!c->o.pids)
		return true;
	for (size_t i = 0; i < c->o.npids; i++)
		if ((uint32_t)c->o.pids[i] == tgid)
			return true;
	return false;
}

/* The cached name of pid, made (unread) when missing; NULL on ENOMEM. */
static struct proc_name *name_slot(struct top_collector *c, int32_t pid)
{
	size_t lo = 0, hi = c->nnames;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->names[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nnames && c->names[lo].pid == pid)
		return &c->names[lo];
	if (ss_grow((void **)&c->names, c->nnames, &c->names_cap, sizeof(*c->names), 256))
		return NULL;
	memmove(&c->names[lo + 1], &c->names[lo], (c->nnames - lo) * sizeof(*c->names));
	c->nnames++;
	memset(&c->names[lo], 0, sizeof(c->names[lo]));
	c->names[lo].pid = pid;
	c->names[lo].leader_start = UINT64_MAX;	/* never read */
	return &c->names[lo];
}

/* Names p: from the cache while it is the same process, else /proc. */
static int name_proc(struct top_collector *c, struct top_proc *p, uint64_t leader_start)
{
	struct proc_name *n = name_slot(c, p->pid);
	bool stale;

	if (!n)
		return -ENOMEM;
	stale = n->leader_start == UINT64_MAX ||
		(leader_start ? leader_start != n->leader_start
			      : !n->gone && top_proc_start_time(c->o.proc_root, p->pid) != n->info.start_time);
	if (stale) {
		n->gone = top_procinfo_read(c->o.proc_root, p->pid, &n->info) != 0;
		if (n->gone)
			snprintf(n->info.comm, sizeof(n->info.comm), "(exited)");
		n->leader_start = leader_start;
	} else if (!n->gone) {
		/* the same process; an exec since renamed it */
		top_proc_comm(c->o.proc_root, p->pid, n->info.comm, sizeof(n->info.comm));
	}
	n->seen = c->refreshes;
	p->start_time = n->info.start_time;
	memcpy(p->comm, n->info.comm, sizeof(p->comm));
	memcpy(p->container, n->info.container, sizeof(p->container));
	memcpy(p->unit, n->info.unit, sizeof(p->unit));
	p->cpus_allowed = n->info.cpus_allowed;
	return 0;
}

/* Forgets the processes this refresh did not see: the cache holds what runs. */
static void prune_names(struct top_collector *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->nnames; i++)
		if (c->names[i].seen == c->refreshes)
			c->names[k++] = c->names[i];
	c->nnames = k;
}

static void add_counts(struct top_proc *p, const struct top_counts *d)
{
	p->oncpu_ns += d->oncpu_ns;
	p->runq_ns += d->runq_ns;
	p->runq_count += d->runq_count;
	p->switches_voluntary += d->switches_voluntary;
	p->switches_involuntary += d->switches_involuntary;
	p->wakes += d->futex_wakes;
	p->woken += d->futex_woken;
	p->yields += d->yields;
	p->samples += d->samples;
	p->spin_samples += d->spin_samples;
	p->futex_waits_all += d->futex_waits;
	p->futex_wait_ns_all += d->futex_wait_ns;
}

/* Thread tid's name, for --threads: "" when it is gone. */
static void thread_comm(const struct top_collector *c, int32_t pid, uint32_t tid, char *comm)
{
	int dir = proc_open_pid_dir(c->o.proc_root, pid, 0);

	comm[0] = 0;
	if (dir >= 0) {
		proc_read_comm_at(dir, (int)tid, comm, TOP_COMM_LEN);
		close(dir);
	}
}

static int add_thread_detail(struct top_collector *c, int32_t pid, const struct thread_delta *d)
{
	struct top_thread *t;

	if (ss_grow((void **)&c->threads, c->nthreads, &c->threads_cap, sizeof(*c->threads), 1024))
		return -ENOMEM;
	t = &c->threads[c->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = d->tid;
	if (c->o.threads)	/* else only the verdict reads them: no names */
		thread_comm(c, pid, d->tid, t->comm);
#define COPY(name) t->name = d->d.name;
	COPY(oncpu_ns) COPY(runq_ns) COPY(runq_count) COPY(switches_voluntary)
	COPY(switches_involuntary) COPY(futex_wait_ns) COPY(yields) COPY(samples) COPY(spin_samples)
#undef COPY
	t->futex_waits = d->d.futex_waits;
	t->futex_wakes = d->d.futex_wakes;
	t->futex_woken = d->d.futex_woken;
	return 0;
}

/* One process from its run of threads [first, end): 0, or -ENOMEM. */
static int build_one(struct top_collector *c, struct top_proc *p, const struct thread_delta *first,
		     const struct thread_delta *end, double interval_ns)
{
	uint64_t leader_start = 0;
	size_t nwords;

	memset(p, 0, sizeof(*p));
	p->pid = (int32_t)first->tgid;
	for (const struct thread_delta *d = first; d < end; d++) {
		if (d->tid == d->tgid)
			leader_start = d->start_time;
		if (!active(&d->d))
			continue;
		p->nthreads++;
		add_counts(p, &d->d);
		if (add_thread_detail(c, p->pid, d))
			return -ENOMEM;
	}
	p->cpus_used = (double)p->oncpu_ns / interval_ns;
	p->runnable = (double)(p->oncpu_ns + p->runq_ns) / interval_ns;
	p->words = top_words_of(&c->words, first->tgid, &nwords);
	p->nwords = nwords;
	return name_proc(c, p, leader_start);
}

int top_procs_build(struct top_collector *c, struct top_snapshot *snap)
{
	double interval = snap->interval_ns ? (double)snap->interval_ns : 1;
	size_t i = 0, nprocs = 0;

	c->refreshes++;
	c->nthreads = 0;
	if (top_reserve((void **)&c->threads, &c->threads_cap, c->ndeltas, sizeof(*c->threads)))
		return -ENOMEM;
	ss_sort(c->deltas, c->ndeltas, sizeof(*c->deltas), cmp_delta);
	while (i < c->ndeltas) {
		size_t end = i, first_thread = c->nthreads;
		bool any = false;

		for (; end < c->ndeltas && c->deltas[end].tgid == c->deltas[i].tgid; end++)
			any |= active(&c->deltas[end].d);
		if (any && wanted(c, c->deltas[i].tgid)) {
			size_t cap = c->procs_cap;

			if (ss_grow((void **)&c->procs, nprocs, &cap, sizeof(*c->procs), 256) ||
			    ss_grow((void **)&c->proc_threads_at, nprocs, &c->procs_cap,
				    sizeof(*c->proc_threads_at), 256) ||
			    build_one(c, &c->procs[nprocs], &c->deltas[i], &c->deltas[end], interval))
				return -ENOMEM;
			c->proc_threads_at[nprocs] = first_thread;
			c->procs[nprocs++].nthreads_detail = c->nthreads - first_thread;
		}
		i = end;
	}
	/* c->threads has stopped moving now. */
	for (size_t k = 0; c->o.threads && k < nprocs; k++)
		c->procs[k].threads = c->threads + c->proc_threads_at[k];
	prune_names(c);
	snap->procs = c->procs;
	snap->nprocs = nprocs;
	return 0;
}

void top_procs_free(struct top_collector *c)
{
	free(c->procs);
	free(c->proc_threads_at);
	free(c->threads);
	free(c->names);
}

const struct top_thread *top_collect__threads(const struct top_collector *c, const struct top_proc *p,
					      size_t *n)
{
	size_t k = (size_t)(p - c->procs);

	*n = p->nthreads_detail;
	return *n ? c->threads + c->proc_threads_at[k] : NULL;
}

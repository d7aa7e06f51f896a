// SPDX-License-Identifier: GPL-2.0
/*
 * One refresh: the thread records' changes (top_threads), their words'
 * (top_words.c), grouped into processes and named (top_procs.c), and the
 * host's figures (top_hostinfo.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "common/sort.h"
#include "common/errors.h"
#include "common/grow.h"
#include "top.h"
#include "top_bpf.h"
#include "top_collect.h"
#include "top_collect_priv.h"

uint64_t top_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns()'s clock */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct thread_rec *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct top_collector *top_collect__new(struct top_bpf *bpf, const struct top_collect_opts *o)
{
	struct top_collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->bpf = bpf;
	c->o = *o;
	if (!c->o.proc_root)
		c->o.proc_root = "/proc";
	c->cur.rec_size = c->prev.rec_size = sizeof(struct thread_rec);
	c->last_ns = top_mono_ns();
	top_hostinfo_start(&c->host);
	return c;
}

/* Time still running at now, as the record's state says: on a CPU, in the
 * run queue, in a futex wait. */
static void in_progress(const struct top_thread_rec *r, uint64_t now, struct thread_credit *ip)
{
	ip->oncpu = r->in_ns && now > r->in_ns ? now - r->in_ns : 0;
	/* A wait for a CPU goes on only off a CPU, and only where the wake-up
	 * (or preemption) that began it came at or after the last switch
	 * out: a wake-up of a task still running (itself, or one on its way
	 * to sleep) leaves runq_since behind, which the next wake-up or
	 * switch in replaces; crediting it would count the time asleep. */
	ip->runq = !r->in_ns && r->runq_since_ns && r->runq_since_ns >= r->out_ns && now > r->runq_since_ns ?
		   now - r->runq_since_ns : 0;
	ip->wait = r->wait_start_ns && now > r->wait_start_ns ? now - r->wait_start_ns : 0;
	ip->wait_uaddr = r->wait_uaddr;
}

static uint64_t credited(uint64_t counter_delta, uint64_t ip_now, uint64_t ip_before)
{
	int64_t v = (int64_t)counter_delta + (int64_t)ip_now - (int64_t)ip_before;

	return v > 0 ? (uint64_t)v : 0;
}

/* The wait credits of one thread: this refresh's in-progress wait on its
 * word, last refresh's taken back from its word (the counter now holds
 * the whole wait, or the credit is renewed). */
static int push_credits(struct top_collector *c, uint32_t tgid, const struct thread_credit *now,
			const struct thread_credit *before)
{
	const struct thread_credit *both[2] = { now, before };

	for (int i = 0; i < 2; i++) {
		if (!both[i] || !both[i]->wait)
			continue;
		if (ss_grow((void **)&c->credits, c->ncredits, &c->credits_cap, sizeof(*c->credits), 256))
			return -ENOMEM;
		c->credits[c->ncredits++] = (struct top_wait_credit){
			.tgid = tgid, .uaddr = both[i]->wait_uaddr,
			.ns = i == 0 ? (int64_t)both[i]->wait : -(int64_t)both[i]->wait };
	}
	return 0;
}

/* d = the thread's figures since the last refresh. */
static void thread_delta(const struct thread_rec *cur, const struct thread_rec *prev, struct top_counts *d)
{
	const struct thread_credit zero = { 0 };
	const struct thread_credit *before = prev ? &prev->ip : &zero;

#define DELTA(name)                                                                           \
	d->name = prev && cur->c.name >= prev->c.name ? cur->c.name - prev->c.name : cur->c.name;
	TOP_THREAD_COUNTERS(DELTA)
#undef DELTA
	d->oncpu_ns = credited(d->oncpu_ns, cur->ip.oncpu, before->oncpu);
	d->runq_ns = credited(d->runq_ns, cur->ip.runq, before->runq);
	d->futex_wait_ns = credited(d->futex_wait_ns, cur->ip.wait, before->wait);
}

/* An exited thread's record, read for the last time: its slot freed, or
 * its spill entry deleted. */
static void forget(struct top_collector *c, const struct thread_rec *t)
{
	static const struct top_thread_rec free_slot;

	if (t->spilled)
		bpf_map_delete_elem(top_bpf__spill_fd(c->bpf), &t->key);
	else
		bpf_map_update_elem(top_bpf__slots_fd(c->bpf), &t->key, &free_slot, BPF_EXIST);
}

/* Each thread record against the previous refresh's: the changes into
 * c->deltas; exited threads' records deleted once read. */
static int diff_threads(struct top_collector *c)
{
	struct thread_rec *cur = c->cur.recs, *prev = c->prev.recs;
	size_t j = 0, nkeep = 0;

	c->ndeltas = 0;
	c->ncredits = 0;
	if (top_reserve((void **)&c->deltas, &c->deltas_cap, c->cur.n, sizeof(*c->deltas)))
		return -ENOMEM;
	for (size_t i = 0; i < c->cur.n; i++) {
		const struct thread_rec *p = NULL;
		struct thread_delta *d;

		while (j < c->prev.n && prev[j].tid < cur[i].tid)
			j++;
		/* the same tid and start time: the same thread */
		if (j < c->prev.n && prev[j].tid == cur[i].tid && prev[j].start_time == cur[i].start_time)
			p = &prev[j];
		if (ss_grow((void **)&c->deltas, c->ndeltas, &c->deltas_cap, sizeof(*c->deltas), 1024) ||
		    push_credits(c, cur[i].tgid, &cur[i].ip, p ? &p->ip : NULL))
			return -ENOMEM;
		d = &c->deltas[c->ndeltas++];
		d->tid = cur[i].tid;
		d->tgid = cur[i].tgid;
		d->start_time = cur[i].start_time;
		thread_delta(&cur[i], p, &d->d);
		if (cur[i].flags & TOP_THREAD_EXITED) {
			forget(c, &cur[i]);
			continue;
		}
		cur[nkeep++] = cur[i];
	}
	c->cur.n = nkeep;
	return 0;
}

/* The host's threads (/proc/loadavg's "running/total"); 0 when unknown. */
static size_t host_threads(void)
{
	FILE *f = fopen("/proc/loadavg", "re");
	unsigned long running, total = 0;

	if (f && fscanf(f, "%*f %*f %*f %lu/%lu", &running, &total) != 2)
		total = 0;
	if (f)
		fclose(f);
	return total;
}

struct take_ctx {
	uint64_t now;
	bool spilled;
};

/* A used record into the table: what the next refreshes need of it, and
 * the time it has still running now. */
static bool take_thread(void *ctx, void *rec, const void *key, const void *val)
{
	const struct take_ctx *tc = ctx;
	const struct top_thread_rec *r = val;
	struct thread_rec *t = rec;

	if (!r->tid)
		return false;	/* a free slot */
	t->key = *(const uint32_t *)key;
	t->tid = (uint32_t)r->tid;
	t->tgid = r->tgid;
	t->flags = r->flags;
	t->start_time = r->start_time;
	t->c = r->c;
	t->spilled = tc->spilled;
	in_progress(r, tc->now, &t->ip);
	return true;
}

/* The records of both maps, by tid; where a race left a thread in both
 * (two CPUs making its record at once), the first is kept. */
static int read_threads(struct top_collector *c, uint64_t now)
{
	struct take_ctx slots = { .now = now }, spill = { .now = now, .spilled = true };
	struct thread_rec *recs;
	struct top_map_table t;
	size_t k = 0;
	int err;

	c->cur.n = 0;
	/* As many as the last refresh read, or at first as the host runs
	 * threads now: growth by doubling would overshoot by up to half. */
	err = top_map_reserve(&c->cur, (c->prev.n ? c->prev.n : host_threads()) * 5 / 4 + 64);
	err = err ?: top_map_read_all(top_bpf__slots_fd(c->bpf), sizeof(__u32), sizeof(struct top_thread_rec),
				      0, take_thread, &slots, &c->cur);
	err = err ?: top_map_read_all(top_bpf__spill_fd(c->bpf), sizeof(__u32), sizeof(struct top_thread_rec),
				      0, take_thread, &spill, &c->cur);
	if (err)
		return err;
	recs = c->cur.recs;
	ss_sort(recs, c->cur.n, sizeof(struct thread_rec), cmp_thread);
	for (size_t i = 0; i < c->cur.n; i++)
		if (!k || recs[k - 1].tid != recs[i].tid)
			recs[k++] = recs[i];
	c->cur.n = k;
	err = diff_threads(c);
	if (err)
		return err;
	t = c->prev;
	c->prev = c->cur;
	c->cur = t;
	return 0;
}

int top_collect__refresh(struct top_collector *c, struct top_snapshot *snap)
{
	uint64_t now = top_mono_ns();
	struct timespec wall;
	int err;

	memset(snap, 0, sizeof(*snap));
	err = read_threads(c, now);
	if (!err)
		err = top_words_refresh(&c->words, top_bpf__words_fd(c->bpf), c->credits, c->ncredits);
	if (err)
		return err == -ENOMEM ? ss_error(SS_EXIT_RESOURCES, "out of memory reading the top maps")
				      : ss_error(SS_EXIT_BPF, "cannot read the top BPF maps: %s", strerror(-err));
	snap->interval_ns = now - c->last_ns;
	c->last_ns = now;
	clock_gettime(CLOCK_REALTIME, &wall);
	snap->wall_ns = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec;
	snap->sampling = top_bpf__sampling(c->bpf);
	err = top_procs_build(c, snap);
	if (err)
		return ss_error(SS_EXIT_RESOURCES, "out of memory grouping threads into processes");
	top_hostinfo_read(&c->host, c->bpf, snap);
	return 0;
}

struct top_word *top_collect__words(struct top_collector *c, const struct top_proc *p)
{
	size_t n;

	return top_words_of(&c->words, (uint32_t)p->pid, &n);
}

void top_collect__free(struct top_collector *c)
{
	if (!c)
		return;
	free(c->cur.recs);
	free(c->prev.recs);
	free(c->deltas);
	free(c->credits);
	top_words_free(&c->words);
	top_procs_free(c);
	free(c);
}

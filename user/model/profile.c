// SPDX-License-Identifier: GPL-2.0
/* Sorting, totals and interval differences of a trace snapshot. */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "common/sort.h"
#include "profile.h"

const char *const ss_drop_names[SS_DROPS] = {
	[SS_DROP_THREADS_FULL] = "threads_map_full",
	[SS_DROP_FUTEXES_FULL] = "futexes_map_full",
	[SS_DROP_WAITERS_FULL] = "waiter_stacks_map_full",
	[SS_DROP_YIELD_SITES_FULL] = "yield_sites_map_full",
	[SS_DROP_STACK_FAIL] = "stack_failed",
	[SS_DROP_MISSED_EXIT] = "futex_exit_without_enter",
	[SS_DROP_PROG_MISSES] = "bpf_program_misses",
	[SS_DROP_RELEASES_FULL] = "release_sites_map_full",
	[SS_DROP_CALL_SITE_UNKNOWN] = "call_site_unknown",
	[SS_DROP_EXITED_NAMES_FULL] = "exited_names_full",
	[SS_DROP_STACK_COLLISION] = "stack_collisions",
};

#define DESC_JSON_KEY_ALL(name) #name
#define DESC_JSON_KEY_THREAD(name) #name
#define DESC_JSON_KEY_NONE(name) NULL
#define DESC_ARRAY_KEY(key, form) #key
/* One descriptor of counter name_ in struct type_, indexed by prefix_ name_. */
#define DESC_C_(type_, prefix_, name_, kind_, unit_, json_)			\
	[prefix_##name_] = { .name = #name_, .json_key = DESC_JSON_KEY_##json_(name_), \
			     .offset = offsetof(struct type_, name_), .slots = 1,	\
			     .kind = SS_KIND_##kind_, .unit = SS_UNIT_##unit_,	\
			     .json = SS_JSON_##json_ },
#define DESC_A_(type_, prefix_, name_, slots_, kind_, unit_, json_)		\
	[prefix_##name_] = { .name = #name_, .json_key = DESC_ARRAY_KEY json_,	\
			     .offset = offsetof(struct type_, name_), .slots = slots_, \
			     .kind = SS_KIND_##kind_, .unit = SS_UNIT_##unit_,	\
			     .json = SS_JSON_ALL },
#define DESC_C(name_, kind_, unit_, json_) DESC_C_(ss_thread, SS_CTR_, name_, kind_, unit_, json_)
#define DESC_A(name_, slots_, kind_, unit_, json_)				\
	DESC_A_(ss_thread, SS_CTR_, name_, slots_, kind_, unit_, json_)
#define FDESC_C(name_, kind_, unit_, json_) DESC_C_(ss_futex, SS_FCTR_, name_, kind_, unit_, json_)
#define FDESC_A(name_, slots_, kind_, unit_, json_)				\
	DESC_A_(ss_futex, SS_FCTR_, name_, slots_, kind_, unit_, json_)

const struct ss_counter_desc ss_thread_counter_descs[SS_THREAD_NCOUNTERS] = {
	SS_THREAD_COUNTERS(DESC_C, DESC_A)
};

const struct ss_counter_desc ss_futex_counter_descs[SS_FUTEX_NCOUNTERS] = {
	SS_FUTEX_COUNTERS(FDESC_C, FDESC_A)
};

const char *const ss_outcome_names[SS_FUTEX_OUTCOMES] = {
	[SS_FUTEX_WOKEN] = "woken",
	[SS_FUTEX_TIMEDOUT] = "timed_out",
	[SS_FUTEX_AGAIN] = "value_changed",
	[SS_FUTEX_INTR] = "interrupted",
	[SS_FUTEX_OTHER] = "other_error",
};

void profile_close_thread(struct ss_thread *t, __u64 start_ns, __u64 now_ns, bool running)
{
	if (t->flags & SS_THREAD_EXITED)
		return;
	if (t->last_in_ns && now_ns > t->last_in_ns)
		t->oncpu_ns += now_ns - t->last_in_ns;
	else if (t->last_out_ns && now_ns > t->last_out_ns)
		t->offcpu_ns += now_ns - t->last_out_ns;
	else if (!t->last_in_ns && !t->last_out_ns && now_ns > start_ns)
		/* Never switched: on CPU or off it for the whole trace. */
		*(running ? &t->oncpu_ns : &t->offcpu_ns) += now_ns - start_ns;
}

static __u64 thread_weight(const struct ss_thread *t)
{
	/* Waiting time first; yields break ties and rank spinners. */
	return t->futex_wait_ns + t->sched_yield;
}

int profile_thread_cmp(const void *a, const void *b)
{
	const struct ss_thread *x = a, *y = b;
	__u64 wx = thread_weight(x), wy = thread_weight(y);

	if (wx != wy)
		return wx < wy ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int futex_cmp(const void *a, const void *b)
{
	const struct ss_futex_rec *x = a, *y = b;

	if (x->f.wait_ns != y->f.wait_ns)
		return x->f.wait_ns < y->f.wait_ns ? 1 : -1;
	if (x->f.wakes != y->f.wakes)
		return x->f.wakes < y->f.wakes ? 1 : -1;
	return x->uaddr < y->uaddr ? -1 : x->uaddr > y->uaddr;
}

static int stack_cmp(const void *a, const void *b)
{
	const struct ss_waiter_stack *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	return x->stack_id - y->stack_id;
}

static int yield_cmp(const void *a, const void *b)
{
	const struct ss_yield_site *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->stack_id - y->stack_id;
}

static int share_cmp(const void *a, const void *b)
{
	const struct ss_waiter_share *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->stack_id != y->stack_id)
		return x->stack_id < y->stack_id ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void add_thread(struct ss_totals *s, const struct ss_thread *t)
{
	s->threads++;
	SS_COUNTERS_ADD(SS_THREAD_COUNTERS, s, t);
}

/* Exited groups in the threads' order: most futex wait time plus yields. */
static int exited_cmp(const void *a, const void *b)
{
	const struct ss_exited_group *x = a, *y = b;
	__u64 wx = x->x.futex_wait_ns + x->x.sched_yield, wy = y->x.futex_wait_ns + y->x.sched_yield;

	if (wx != wy)
		return wx < wy ? 1 : -1;
	return strncmp(x->comm, y->comm, sizeof(x->comm));
}

void profile_finish(struct ss_profile *p)
{
	memset(&p->totals, 0, sizeof(p->totals));
	ss_sort(p->threads, p->nthreads, sizeof(*p->threads), profile_thread_cmp);
	for (size_t i = 0; i < p->nthreads; i++)
		add_thread(&p->totals, &p->threads[i]);
	ss_sort(p->exited, p->nexited, sizeof(*p->exited), exited_cmp);
	for (size_t i = 0; i < p->nexited; i++) {
		p->totals.threads += p->exited[i].x.threads;
		SS_COUNTERS_ADD(SS_THREAD_COUNTERS, &p->totals, &p->exited[i].x);
	}
	ss_sort(p->futexes, p->nfutexes, sizeof(*p->futexes), futex_cmp);
	for (size_t i = 0; i < p->nfutexes; i++) {
		ss_sort(p->futexes[i].stacks, p->futexes[i].nstacks, sizeof(struct ss_waiter_stack),
		     stack_cmp);
		ss_sort(p->futexes[i].shares, p->futexes[i].nshares, sizeof(struct ss_waiter_share),
		     share_cmp);
	}
	ss_sort(p->yields, p->nyields, sizeof(*p->yields), yield_cmp);
}

static const struct ss_thread *find_tid(const struct ss_profile *p, __u32 tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	return NULL;
}

struct ss_exited_group *profile_exited_group(struct ss_profile *p, const char *comm, size_t cap)
{
	for (size_t i = 0; i < p->nexited; i++)
		if (!strncmp(p->exited[i].comm, comm, SS_COMM_LEN))
			return &p->exited[i];
	if (p->nexited == cap)
		return NULL;
	memset(&p->exited[p->nexited], 0, sizeof(p->exited[0]));
	memcpy(p->exited[p->nexited].comm, comm, strnlen(comm, SS_COMM_LEN - 1));
	return &p->exited[p->nexited++];
}

static const struct ss_exited_group *find_exited(const struct ss_profile *p, const char *comm)
{
	for (size_t i = 0; p && i < p->nexited; i++)
		if (!strncmp(p->exited[i].comm, comm, SS_COMM_LEN))
			return &p->exited[i];
	return NULL;
}

const char *profile_thread_comm(const struct ss_profile *p, __u32 tid)
{
	const struct ss_thread *t = find_tid(p, tid);

	return t ? t->comm : NULL;
}

int profile_diff(const struct ss_profile *cur, const struct ss_profile *prev,
		 struct ss_profile *out)
{
	memset(out, 0, sizeof(*out));
	out->start_ns = prev ? prev->now_ns : cur->start_ns;
	out->now_ns = cur->now_ns;
	out->threads = calloc(cur->nthreads ? cur->nthreads : 1, sizeof(*out->threads));
	if (!out->threads)
		return -ENOMEM;
	for (size_t i = 0; i < cur->nthreads; i++) {
		const struct ss_thread *c = &cur->threads[i];
		const struct ss_thread *o = prev ? find_tid(prev, c->tid) : NULL;
		struct ss_thread *d = &out->threads[out->nthreads];

		*d = *c;
		if (o)
			SS_COUNTERS_SUB(SS_THREAD_COUNTERS, d, o);
		out->nthreads++;
	}
	if (cur->nexited && !(out->exited = calloc(cur->nexited, sizeof(*out->exited)))) {
		profile_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cur->nexited; i++) {
		const struct ss_exited_group *o = find_exited(prev, cur->exited[i].comm);
		struct ss_exited_group *d = &out->exited[out->nexited++];

		*d = cur->exited[i];
		if (o) {
			d->x.threads -= o->x.threads;
			SS_COUNTERS_SUB(SS_THREAD_COUNTERS, &d->x, &o->x);
		}
	}
	for (int i = 0; i < SS_DROPS; i++)
		out->drops[i] = cur->drops[i] - (prev ? prev->drops[i] : 0);
	profile_finish(out);
	return 0;
}

void profile_free(struct ss_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nfutexes; i++) {
		free(p->futexes[i].stacks);
		free(p->futexes[i].tids);
		free(p->futexes[i].shares);
		free(p->futexes[i].releases);
	}
	free(p->futexes);
	free(p->threads);
	free(p->exited);
	free(p->yields);
	memset(p, 0, sizeof(*p));
}

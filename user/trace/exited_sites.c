// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "common/grow.h"
#include "common/sort.h"
#include "model/counters.h"
#include "exited_sites.h"
#include "trace.h"

/* Both keys are a word, a stack and a thread, in one layout. */
_Static_assert(offsetof(struct ss_waiter_key, tid) == offsetof(struct ss_release_key, tid) &&
		       offsetof(struct ss_waiter_key, stack_id) == offsetof(struct ss_release_key, stack_id) &&
		       sizeof(struct ss_waiter_key) == sizeof(struct ss_release_key),
	       "waiter and release keys share a layout");
typedef struct ss_waiter_key site_key;

/* Thread tid of the process in proc_dir has gone: past its exit, and past
 * the sched_process_exit program that flushed its last batches (the
 * kernel unhashes a task after that). */
static bool thread_gone(int proc_dir, __u32 tid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "task/%u", tid);
	return tid && fstatat(proc_dir, path, &st, 0) && errno == ENOENT;
}

static void fold_waiter(void *dst, const void *src)
{
	struct ss_waiter_val *d = dst;
	const struct ss_waiter_val *s = src;

	d->count += s->count;
	d->wait_ns += s->wait_ns;
	d->at_once += s->at_once;
	if (s->wait_ns_max > d->wait_ns_max)
		d->wait_ns_max = s->wait_ns_max;
}

static void fold_release(void *dst, const void *src)
{
	SS_COUNTERS_ADD(SS_RELEASE_COUNTERS, (struct ss_release_val *)dst,
			(const struct ss_release_val *)src);
}

/* The summed entry of k's word and stack in m, made zero if new; NULL:
 * out of memory. A linear search: a program's exited threads wait and
 * wake on a few words from a few stacks. */
static void *sum_of(struct moved_entries *m, const site_key *k, size_t vsz)
{
	site_key *keys = m->keys;

	for (size_t i = 0; i < m->n; i++)
		if (keys[i].uaddr == k->uaddr && keys[i].stack_id == k->stack_id)
			return (char *)m->vals + i * vsz;
	if (m->n == m->cap) {
		size_t kcap = m->cap, vcap = m->cap;

		if (ss_grow(&m->keys, m->n, &kcap, sizeof(site_key), 16) ||
		    ss_grow(&m->vals, m->n, &vcap, vsz, 16))
			return NULL;
		m->cap = kcap;
	}
	((site_key *)m->keys)[m->n] = (site_key){ .uaddr = k->uaddr, .stack_id = k->stack_id };
	return memset((char *)m->vals + m->n++ * vsz, 0, vsz);
}

static int waiter_cmp(const void *a, const void *b)
{
	const struct exited_waiter *x = a, *y = b;

	if (x->uaddr != y->uaddr)
		return x->uaddr < y->uaddr ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Appends (uaddr, tid) to x->tids; after a drain, duplicates are removed
 * from index first on (a thread waits on a word from several stacks). */
static int note_waiter(struct exited_sites *x, __u64 uaddr, __u32 tid)
{
	if (ss_grow((void **)&x->tids, x->ntids, &x->tidcap, sizeof(*x->tids), 256))
		return -ENOMEM;
	x->tids[x->ntids++] = (struct exited_waiter){ .uaddr = uaddr, .tid = tid };
	return 0;
}

static void unique_waiters(struct exited_sites *x, size_t first)
{
	size_t n = first;

	ss_sort(x->tids + first, x->ntids - first, sizeof(*x->tids), waiter_cmp);
	for (size_t i = first; i < x->ntids; i++)
		if (i == first || waiter_cmp(&x->tids[i], &x->tids[n - 1]))
			x->tids[n++] = x->tids[i];
	x->ntids = n;
}

/*
 * The gone threads' entries of map fd (values of vsz bytes) summed into m
 * (and, for the waiters map, their tids into x), then deleted: after the
 * walk, which a deletion would restart. Each entry is read, summed and
 * deleted, or left whole in the map.
 */
static long drain_map(struct exited_sites *x, struct moved_entries *m, int fd, size_t vsz,
		      void (*fold)(void *, const void *), bool waiters, int proc_dir)
{
	site_key key, next, *prev = NULL, *gone = NULL;
	size_t ngone = 0, cap = 0;
	char val[512];
	long err = 0;

	if (vsz > sizeof(val))
		return -EINVAL;
	while (!err && bpf_map_get_next_key(fd, prev, &next) == 0) {
		void *sum;

		if (thread_gone(proc_dir, next.tid) && bpf_map_lookup_elem(fd, &next, val) == 0) {
			if (ss_grow((void **)&gone, ngone, &cap, sizeof(*gone), 64)) {
				err = -ENOMEM;
				break;
			}
			if (!(sum = sum_of(m, &next, vsz)))
				err = -ENOMEM;
			else if (!waiters || !(err = note_waiter(x, next.uaddr, next.tid))) {
				fold(sum, val);
				gone[ngone++] = next;
			}
		}
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < ngone; i++)
		bpf_map_delete_elem(fd, &gone[i]);
	free(gone);
	return err ? err : (long)ngone;
}

long exited_sites_drain(struct exited_sites *x, int wfd, int rfd, int proc_dir)
{
	size_t first = x->ntids;
	long w, r;

	if (proc_dir < 0)
		return 0;
	w = drain_map(x, &x->waiters, wfd, sizeof(struct ss_waiter_val), fold_waiter, true, proc_dir);
	unique_waiters(x, first);
	r = drain_map(x, &x->releases, rfd, sizeof(struct ss_release_val), fold_release, false, proc_dir);
	return w < 0 ? w : r < 0 ? r : w + r;
}

void exited_sites_free(struct exited_sites *x)
{
	free(x->waiters.keys);
	free(x->waiters.vals);
	free(x->releases.keys);
	free(x->releases.vals);
	free(x->tids);
	memset(x, 0, sizeof(*x));
}

// SPDX-License-Identifier: GPL-2.0
/* Release sites and holders of a futex word (see releases.h). */
#include <errno.h>
#include <stdlib.h>
#include "common/sort.h"
#include "counters.h"
#include "releases.h"

static bool waited(const struct ss_futex_rec *r, __u32 tid);

bool releases_word_is_lock(const struct ss_futex_rec *r)
{
	const struct ss_futex *f = &r->f;
	__u64 all = 0, by_waiters = 0;

	if (r->waiters < 2)
		return false;
	/* Handed on by the threads that queue for it, a fifth of the wakes
	 * or more (the advisor's ADV_LOCK_WAKER_SHARE): a lock, whatever
	 * call waits on it. */
	for (size_t i = 0; i < r->nreleases; i++) {
		all += r->releases[i].v.wakes;
		if (waited(r, r->releases[i].tid))
			by_waiters += r->releases[i].v.wakes;
	}
	if (all && 5 * by_waiters >= all)
		return true;
	return 2 * f->bitset_waits < f->waits || 4 * f->holder_wakes >= f->blocked;
}

__u64 releases_wakes(const struct ss_futex_rec *r)
{
	__u64 n = 0;

	for (size_t i = 0; i < r->nreleases; i++)
		n += r->releases[i].v.wakes;
	return n;
}

double releases_usual_held_ns(const struct ss_release_val *v)
{
	__u64 seen = 0;

	for (int i = 0; i < SS_HIST_SLOTS; i++) {
		seen += v->held_contended_hist[i];
		if (v->held_contended && 4 * seen >= v->held_contended)
			return 1.5 * (double)(1ull << i);
	}
	return 0;
}

/* The weight of a site: its usual bound times the holds measured. */
static double site_weight(const struct ss_release_site *s)
{
	return releases_usual_held_ns(&s->v) * (double)s->v.held_contended;
}

static int site_cmp(const void *a, const void *b)
{
	const struct ss_release_site *x = a, *y = b;
	double wx = site_weight(x), wy = site_weight(y);

	if (wx != wy)
		return wx < wy ? 1 : -1;
	if (x->v.wakes != y->v.wakes)
		return x->v.wakes < y->v.wakes ? 1 : -1;
	return x->stack_id - y->stack_id;
}

/* Did another record of this stack, before index k, have this thread? */
static bool thread_counted(const struct ss_futex_rec *r, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (r->releases[i].stack_id == r->releases[k].stack_id &&
		    r->releases[i].tid == r->releases[k].tid)
			return true;
	return false;
}

long releases_sites(const struct ss_futex_rec *r, struct ss_release_site **out)
{
	struct ss_release_site *s;
	size_t n = 0;

	*out = NULL;
	if (!r->nreleases)
		return 0;
	s = calloc(r->nreleases, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k < r->nreleases; k++) {
		const struct ss_release_rec *rec = &r->releases[k];
		size_t i;

		for (i = 0; i < n; i++)
			if (s[i].stack_id == rec->stack_id)
				break;
		if (i == n)
			s[n++].stack_id = rec->stack_id;
		SS_COUNTERS_ADD(SS_RELEASE_COUNTERS, &s[i].v, &rec->v);
		if (!thread_counted(r, k))
			s[i].threads++;
	}
	if (n > 1)
		ss_sort(s, n, sizeof(*s), site_cmp);
	*out = s;
	return (long)n;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct ss_holder *x = a, *y = b;

	if (x->releases != y->releases)
		return x->releases < y->releases ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool waited(const struct ss_futex_rec *r, __u32 tid)
{
	for (size_t i = 0; i < r->waiters; i++)
		if (r->tids && r->tids[i] == tid)
			return true;
	return false;
}

long releases_holders(const struct ss_futex_rec *r, struct ss_holder **out)
{
	struct ss_holder *h;
	size_t n = 0;

	*out = NULL;
	if (!r->nreleases)
		return 0;
	h = calloc(r->nreleases, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (size_t k = 0; k < r->nreleases; k++) {
		const struct ss_release_rec *rec = &r->releases[k];
		size_t i;

		for (i = 0; i < n; i++)
			if (h[i].tid == rec->tid)
				break;
		if (i == n) {
			h[n].tid = rec->tid;
			h[n++].also_waits = waited(r, rec->tid);
		}
		h[i].releases += rec->v.wakes;
		h[i].woken += rec->v.woken;
		h[i].held_contended_ns += rec->v.held_contended_ns;
	}
	if (n > 1)
		ss_sort(h, n, sizeof(*h), holder_cmp);
	*out = h;
	return (long)n;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "common/sort.h"
#include "common/grow.h"
#include "top.h"
#include "top_words.h"

struct word_rec {
	struct top_word_key k;
	struct top_word_counts c;
};

/* By process, word, then thread: a process's words and a word's threads
 * are runs. */
static int cmp_key(const struct top_word_key *a, const struct top_word_key *b)
{
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->uaddr != b->uaddr)
		return a->uaddr < b->uaddr ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_rec(const void *a, const void *b)
{
	return cmp_key(&((const struct word_rec *)a)->k, &((const struct word_rec *)b)->k);
}

/* d = cur - prev, field by field (a counter that went back: a record
 * deleted and made again, counted from zero). True when any moved. */
static bool word_delta(const struct top_word_counts *cur, const struct top_word_counts *prev,
		       struct top_word_counts *d)
{
	bool moved = false;

#define DELTA(name)                                                                     \
	d->name = prev && cur->name >= prev->name ? cur->name - prev->name : cur->name; \
	moved |= d->name != 0;
	TOP_WORD_COUNTERS(DELTA)
#undef DELTA
	return moved;
}

/* A new output word for (tgid, uaddr), or the last one when it is it. */
static struct top_word *out_word(struct top_words *w, uint32_t tgid, uint64_t uaddr)
{
	struct top_word *o;

	if (w->nout && w->out_tgid[w->nout - 1] == tgid && w->out[w->nout - 1].uaddr == uaddr)
		return &w->out[w->nout - 1];
	if (w->nout == w->cap) {
		size_t cap = w->cap;

		if (ss_grow((void **)&w->out, w->nout, &cap, sizeof(*w->out), 256) ||
		    ss_grow((void **)&w->out_tgid, w->nout, &w->cap, sizeof(*w->out_tgid), 256))
			return NULL;
	}
	o = &w->out[w->nout];
	memset(o, 0, sizeof(*o));
	o->uaddr = uaddr;
	w->out_tgid[w->nout++] = tgid;
	return o;
}

/* One thread's change on one word, added to the word's figures. */
static int add_thread(struct top_words *w, const struct top_word_key *k, const struct top_word_counts *d)
{
	struct top_word *o = out_word(w, k->tgid, k->uaddr);

	if (!o)
		return -ENOMEM;
	o->waits += d->waits;
	o->blocked += d->waits;	/* every wait seen at the scheduler blocked */
	o->wait_ns += d->wait_ns;
	o->woken_waits += d->woken_waits;
	o->wakes += d->wakes;
	o->woken += d->woken;
	o->reblocked += d->reblocked;
	o->waiters += d->waits > 0;
	o->wakers += d->wakes > 0;
	if (d->waits)
		o->wakes_by_waiters += d->wakes;
	return 0;
}

/* Compares cur with prev (both sorted), adds each change to the output,
 * deletes the records that did not change (idle words) from the map and
 * keeps the others as the next refresh's prev. */
static int diff_words(struct top_words *w, int fd)
{
	struct word_rec *cur = w->cur.recs, *prev = w->prev.recs, *keep = w->cur.recs;
	size_t j = 0, nkeep = 0;

	for (size_t i = 0; i < w->cur.n; i++) {
		const struct word_rec *p = NULL;
		struct top_word_counts d;

		while (j < w->prev.n && cmp_key(&prev[j].k, &cur[i].k) < 0)
			j++;
		if (j < w->prev.n && !cmp_key(&prev[j].k, &cur[i].k))
			p = &prev[j];
		if (!word_delta(&cur[i].c, p ? &p->c : NULL, &d)) {
			if (!bpf_map_delete_elem(fd, &cur[i].k))
				continue;	/* made again from zero when used */
		} else if (add_thread(w, &cur[i].k, &d)) {
			return -ENOMEM;
		}
		keep[nkeep++] = cur[i];
	}
	w->cur.n = nkeep;
	return 0;
}

static void apply_credits(struct top_words *w, const struct top_wait_credit *credits, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t count;
		struct top_word *o = top_words_of(w, credits[i].tgid, &count);

		for (size_t k = 0; o && k < count; k++)
			if (o[k].uaddr == credits[i].uaddr) {
				int64_t v = (int64_t)o[k].wait_ns + credits[i].ns;

				o[k].wait_ns = v > 0 ? (uint64_t)v : 0;
				break;
			}
	}
}

int top_words_refresh(struct top_words *w, int fd, const struct top_wait_credit *credits, size_t ncredits)
{
	struct top_map_table t;
	int err;

	w->cur.rec_size = w->prev.rec_size = sizeof(struct word_rec);
	w->nout = 0;
	w->cur.n = 0;
	err = top_map_read_all(fd, sizeof(struct top_word_key), sizeof(struct top_word_counts),
			       offsetof(struct word_rec, c), NULL, NULL, &w->cur);
	if (err)
		return err;
	ss_sort(w->cur.recs, w->cur.n, sizeof(struct word_rec), cmp_rec);
	err = diff_words(w, fd);
	if (err)
		return err;
	apply_credits(w, credits, ncredits);
	t = w->prev;	/* swap: the kept records are the next prev */
	w->prev = w->cur;
	w->cur = t;
	return 0;
}

struct top_word *top_words_of(struct top_words *w, uint32_t tgid, size_t *n)
{
	size_t lo = 0, hi = w->nout, first;

	while (lo < hi) {	/* the first with out_tgid >= tgid */
		size_t mid = lo + (hi - lo) / 2;

		if (w->out_tgid[mid] < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < w->nout && w->out_tgid[lo] == tgid)
		lo++;
	*n = lo - first;
	return *n ? &w->out[first] : NULL;
}

void top_words_free(struct top_words *w)
{
	free(w->cur.recs);
	free(w->prev.recs);
	free(w->out);
	free(w->out_tgid);
	memset(w, 0, sizeof(*w));
}

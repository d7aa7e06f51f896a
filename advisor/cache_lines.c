// SPDX-License-Identifier: GPL-2.0
/* cache_lines.c: the samples' data accesses by cache line (cache_lines.h). */
#include <string.h>
#include "cache_lines.h"
#include "hostcal.h"
#include "thresholds.h"

uint32_t adv_lines__size(const struct adv_host *h)
{
	uint32_t n = h->false_sharing.interference_bytes;

	/* A power of two a line can be: anything else is not a line size. */
	if (adv_cal__usable(h, ADV_FAM_FALSE_SHARING) && n >= 32 && n <= ADV_LINE_MAX_BYTES &&
	    !(n & (n - 1)))
		return n;
	return (uint32_t)ADV_FS_LINE_DEFAULT;
}

static void set_bytes(uint64_t *mask, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		mask[i / 64] |= 1ull << (i % 64);
}

static bool overlap(const uint64_t *x, const uint64_t *y)
{
	for (int k = 0; k < ADV_LINE_MAX_BYTES / 64; k++)
		if (x[k] & y[k])
			return true;
	return false;
}

/* Bytes x has that y has not. */
static bool outside(const uint64_t *x, const uint64_t *y)
{
	for (int k = 0; k < ADV_LINE_MAX_BYTES / 64; k++)
		if (x[k] & ~y[k])
			return true;
	return false;
}

static struct adv_line_thread *thread_of(struct adv_line *l, uint32_t tid)
{
	for (size_t i = 0; i < l->nt; i++)
		if (l->t[i].tid == tid)
			return &l->t[i];
	if (l->nt == ADV_LINE_MAX_THREADS)
		return NULL;
	memset(&l->t[l->nt], 0, sizeof(l->t[l->nt]));
	l->t[l->nt].tid = tid;
	return &l->t[l->nt++];
}

/* Every access to the line at addr. */
static void fill(const struct adv_data_addrs *d, uint64_t addr, uint32_t bytes, struct adv_line *l)
{
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	l->bytes = bytes;
	for (size_t i = 0; i < d->naccesses; i++) {
		const struct adv_data_access *a = &d->accesses[i];
		struct adv_line_thread *t;
		uint64_t end;

		/* The runtime's own words (a mutex, the allocator's) are
		 * the lock rules' business, not data to move. */
		if (a->addr + a->size <= addr || a->addr >= addr + bytes ||
		    a->region == ADV_DATA_STACK || a->runtime)
			continue;
		t = thread_of(l, a->tid);
		if (!t)
			continue;
		end = a->addr + a->size > addr + bytes ? addr + bytes : a->addr + a->size;
		set_bytes(a->store ? t->wmask : t->rmask,
			  a->addr > addr ? (uint32_t)(a->addr - addr) : 0, (uint32_t)(end - addr));
		l->samples += a->samples;
		if (a->store) {
			t->write_samples += a->samples;
			if (!t->top_write || a->samples > t->top_write->samples)
				t->top_write = a;
		} else {
			t->read_samples += a->samples;
			if (!t->top_read || a->samples > t->top_read->samples)
				t->top_read = a;
		}
	}
}

/* Picks the heaviest pair of that kind; false when none. */
static bool classify(struct adv_line *l, enum adv_line_kind kind)
{
	const double min = ADV_FS_LINE_MIN_SAMPLES;
	uint64_t best = 0;

	for (size_t i = 0; i < l->nt; i++) {
		const struct adv_line_thread *x = &l->t[i];

		if ((double)x->write_samples < min)
			continue;
		for (size_t j = 0; j < l->nt; j++) {
			const struct adv_line_thread *y = &l->t[j];
			bool both = (double)y->write_samples >= min, shared;
			bool rw = !both && (double)y->read_samples >= min &&
				  outside(y->rmask, x->wmask) && !overlap(y->wmask, x->wmask);
			uint64_t w;

			if (j == i || (!both && !rw))
				continue;
			shared = both && overlap(x->wmask, y->wmask);
			if (shared != (kind == ADV_LINE_TRUE) || (kind == ADV_LINE_TRUE && rw))
				continue;
			w = x->write_samples + (both ? y->write_samples : y->read_samples);
			if (w > best || (w == best && rw < l->read_write)) {
				best = w;
				l->a = i;
				l->b = j;
				l->read_write = rw;
			}
		}
	}
	for (size_t i = 0; best && kind == ADV_LINE_TRUE && i < l->nt; i++)
		l->writers += overlap(l->t[i].wmask, l->t[l->a].wmask) &&
			      (double)l->t[i].write_samples >= min;
	return best > 0;
}

bool adv_lines__worst(const struct adv_data_addrs *d, uint32_t bytes, enum adv_line_kind kind,
		      struct adv_line *out)
{
	struct adv_line l;
	bool found = false;

	if (!d->captured || !d->samples || !bytes)
		return false;
	for (size_t i = 0; i < d->naccesses; i++) {
		uint64_t addr = d->accesses[i].addr & ~(uint64_t)(bytes - 1);
		bool seen = false;

		if (!d->accesses[i].store)
			continue;
		/* Each line once: at its first store. */
		for (size_t j = 0; j < i && !seen; j++)
			seen = d->accesses[j].store &&
			       (d->accesses[j].addr & ~(uint64_t)(bytes - 1)) == addr;
		if (seen)
			continue;
		fill(d, addr, bytes, &l);
		if ((double)l.samples < ADV_FS_LINE_SHARE * (double)d->samples ||
		    (found && l.samples <= out->samples) || !classify(&l, kind))
			continue;
		*out = l;
		found = true;
	}
	return found;
}

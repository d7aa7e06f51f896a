// SPDX-License-Identifier: GPL-2.0
/* parking.c: locks whose waiters park each on a word of its own (parking.h). */
#include <math.h>
#include <string.h>
#include "parking.h"
#include "thresholds.h"

/* Words waited on from the same place: the same waiters' stack as named,
 * user's frame and runtime frames. */
static bool same_place(const struct adv_futex *a, const struct adv_futex *b)
{
	return a->waiters == 1 && a->sole_waiter && b->waiters == 1 &&
	       !strcmp(a->name, b->name) && !strcmp(a->runtime_frames, b->runtime_frames);
}

/* One waiter of the group of words named like fx waited on it. */
static bool group_waiter(const struct adv_profile *p, const struct adv_futex *fx, uint32_t tid)
{
	for (size_t i = 0; tid && i < p->nfutexes; i++) {
		const struct adv_futex *o = &p->futexes[i];

		if (o->sole_waiter == tid && same_place(o, fx))
			return true;
	}
	return false;
}

/* tid waited on a word of the group before word i. */
static bool seen_before(const struct adv_profile *p, size_t first, size_t i, uint32_t tid)
{
	for (size_t k = first; k < i; k++)
		if (p->futexes[k].sole_waiter == tid && same_place(&p->futexes[k], &p->futexes[first]))
			return true;
	return false;
}

/* The time fx's waiter spent on a CPU taking it: its samples there, as a
 * share of its samples, of its time on a CPU. */
static double acquire_ns(const struct adv_profile *p, const struct adv_futex *fx)
{
	if (!fx->acquire_samples || !fx->waiter_samples)
		return 0;
	for (size_t t = 0; p->threads && t < p->nthreads; t++)
		if (p->threads[t].tid == fx->sole_waiter)
			return (double)p->threads[t].c.oncpu_ns *
			       fmin(1.0, (double)fx->acquire_samples / (double)fx->waiter_samples);
	return 0;
}

/* The group of single-waiter words named as fx is (fx its first). */
static void measure_group(const struct adv_profile *p, size_t first, struct adv_parking *g)
{
	const struct adv_futex *fx = &p->futexes[first];

	memset(g, 0, sizeof(*g));
	for (size_t i = first; i < p->nfutexes; i++) {
		const struct adv_futex *o = &p->futexes[i];

		if (!same_place(o, fx))
			continue;
		g->words++;
		if (!seen_before(p, first, i, o->sole_waiter))
			g->threads++;
		g->wait_ns += (double)o->wait_ns;
		g->acquire_ns += acquire_ns(p, o);
		g->acquire_samples += (double)o->acquire_samples;
		g->blocked += (double)o->blocked;
		if (!g->word || o->wait_ns > g->word->wait_ns)
			g->word = o;
		for (size_t h = 0; o->holders && h < o->nholders; h++) {
			g->wakes += (double)o->holders[h].releases;
			if (group_waiter(p, fx, o->holders[h].tid))
				g->by_waiters += (double)o->holders[h].releases;
		}
	}
}

/* fx opens its group: no earlier single-waiter word has its name. */
static bool first_of_group(const struct adv_profile *p, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (same_place(&p->futexes[k], &p->futexes[i]))
			return false;
	return true;
}

bool adv_parking_lock(const struct adv_profile *p, struct adv_parking *out)
{
	bool found = false;

	for (size_t i = 0; p->futexes && i < p->nfutexes; i++) {
		const struct adv_futex *fx = &p->futexes[i];
		struct adv_parking g;

		if (fx->waiters != 1 || !fx->sole_waiter || !fx->name[0] || !first_of_group(p, i))
			continue;
		measure_group(p, i, &g);
		/* Handed on: woken by the threads that park there themselves,
		 * not by a producer that never waits (consumers of a queue). */
		if (g.threads < ADV_FUTEX_MIN_WAITERS || !(g.wakes > 0) ||
		    g.by_waiters < ADV_LOCK_WAKER_SHARE * g.wakes)
			continue;
		if (!found || g.wait_ns > out->wait_ns)
			*out = g;
		found = true;
	}
	return found;
}

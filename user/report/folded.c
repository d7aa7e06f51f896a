// SPDX-License-Identifier: GPL-2.0
/* --folded: the trace's stacks and the samples as folded stack lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/outfile.h"
#include "folded.h"
#include "samples_report.h"
#include "model/releases.h"

/*
 * Folded stacks of the trace's own stacks, through the samples writer:
 * each (stack, weight) becomes one samples_stack of a temporary result.
 */
static int fold_trace_stacks(FILE *f, samples_symbolize_fn sym, void *arg,
			     const struct ss_stacks *stacks,
			     const __s32 *ids, const __u64 *weights, size_t n, const char *kind)
{
	struct samples_result r = { .stacks = calloc(n ? n : 1, sizeof(*r.stacks)) };
	int err;

	if (!r.stacks)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct ss_stack *st = stacks__find(stacks, ids[i]);

		if (!weights[i])
			continue;
		/* A stack that could not be walked keeps its weight, under
		 * [no user stack]: each kind's root is then its whole total. */
		r.stacks[r.nr_stacks++] = (struct samples_stack){
			.stack_id = ids[i], .count = weights[i], .depth = st ? st->depth : 0,
			.ips = st ? st->ips : NULL,
		};
	}
	err = samples__write_folded(&r, f, sym, arg, kind);
	free(r.stacks);
	return err;
}

/* futex-release: the wakes that found waiters by release site, for the
 * words used as locks (model/releases.h). */
static int fold_releases(FILE *f, samples_symbolize_fn sym, void *arg, const struct ss_profile *p,
			 const struct ss_stacks *stacks, __s32 *ids, __u64 *w)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nfutexes; i++) {
		const struct ss_futex_rec *r = &p->futexes[i];

		if (!releases_word_is_lock(r))
			continue;
		for (size_t k = 0; k < r->nreleases; k++, n++) {
			ids[n] = r->releases[k].stack_id;
			w[n] = r->releases[k].v.wakes;
		}
	}
	return fold_trace_stacks(f, sym, arg, stacks, ids, w, n, "futex-release");
}

/* --folded: futex wait time (ns) by waiter stack, release sites' wakes,
 * sched_yield calls by call site, and samples, each kind under its own
 * root frame. */
int folded__write(FILE *f, samples_symbolize_fn sym, void *arg, const struct ss_profile *p,
		  const struct ss_stacks *stacks, const struct samples_result *sr)
{
	size_t n = 0, cap = p->nyields;
	__s32 *ids;
	__u64 *w;
	int err;

	for (size_t i = 0; i < p->nfutexes; i++)
		cap += p->futexes[i].nstacks + p->futexes[i].nreleases;
	ids = calloc(cap + 1, sizeof(*ids));
	w = calloc(cap + 1, sizeof(*w));
	if (!ids || !w) {
		free(ids);
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nfutexes; i++)
		for (size_t k = 0; k < p->futexes[i].nstacks; k++, n++) {
			ids[n] = p->futexes[i].stacks[k].stack_id;
			w[n] = p->futexes[i].stacks[k].wait_ns;
		}
	err = fold_trace_stacks(f, sym, arg, stacks, ids, w, n, "futex-wait-ns");
	err = err ?: fold_releases(f, sym, arg, p, stacks, ids, w);
	for (n = 0; n < p->nyields; n++) {
		ids[n] = p->yields[n].stack_id;
		w[n] = p->yields[n].count;
	}
	err = err ?: fold_trace_stacks(f, sym, arg, stacks, ids, w, n, "sched-yield");
	if (!err && sr && sr->available) {
		char kind[64];

		snprintf(kind, sizeof(kind), "samples-%s", sr->event);
		err = samples__write_folded(sr, f, sym, arg, kind);
	}
	free(ids);
	free(w);
	return err;
}


struct folded_args {
	samples_symbolize_fn sym;
	void *arg;
	const struct ss_profile *p;
	const struct ss_stacks *stacks;
	const struct samples_result *sr;
};

static int fill(FILE *f, void *arg)
{
	const struct folded_args *a = arg;

	return folded__write(f, a->sym, a->arg, a->p, a->stacks, a->sr);
}

int folded__save(const char *path, samples_symbolize_fn sym, void *arg, const struct ss_profile *p,
		 const struct ss_stacks *stacks, const struct samples_result *sr, char *why,
		 size_t whylen)
{
	struct folded_args a = { .sym = sym, .arg = arg, .p = p, .stacks = stacks, .sr = sr };

	return outfile__save_stream(path, fill, &a, why, whylen);
}

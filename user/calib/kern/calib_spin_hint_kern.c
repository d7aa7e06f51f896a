// SPDX-License-Identifier: GPL-2.0
/*
 * Spin-hint kernels: the cost of one hint, and the shared-counter shape
 * where threads CAS-increment one counter and spin with the hint after
 * each failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calib_kern.h"
#include "calib_util.h"

int calib_sh__hint_cost(enum calib_hint h, int nsamples, uint64_t per_sample,
			double *ns_per_hint)
{
	double best = 0;

	*ns_per_hint = 0;
	if (per_sample == 0 || nsamples <= 0)
		return -EINVAL;
	for (int s = 0; s < nsamples; s++) {
		uint64_t t0 = calib__now_ns();
		int err = calib_hints__exec(h, per_sample);
		double ns = (double)(calib__now_ns() - t0) / (double)per_sample;

		if (err)
			return err;
		if (s == 0 || ns < best)
			best = ns;
	}
	*ns_per_hint = best;
	return 0;
}

/* Per-thread tallies, each on its own 128-byte block so the tallies do
 * not false-share with each other or with the counter. */
struct sh_tally {
	uint64_t successes;
	uint64_t failures;
	char pad[128 - 2 * sizeof(uint64_t)];
};

struct sh_arg {
	uint64_t counter __attribute__((aligned(128)));
	char pad[120];
	uint64_t target;
	enum calib_hint hint;
	struct sh_tally *tally;
};

static void sh_thread(int idx, void *p)
{
	struct sh_arg *a = p;
	struct sh_tally *t = &a->tally[idx];
	uint64_t old = __atomic_load_n(&a->counter, __ATOMIC_RELAXED);

	while (old < a->target) {
		if (__atomic_compare_exchange_n(&a->counter, &old, old + 1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			t->successes++;
			old++;
		} else {
			/* old now holds the value seen: back off, then retry. */
			t->failures++;
			calib_hints__spin_once(a->hint, &a->counter);
			old = __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
		}
	}
}

int calib_sh__shared_counter(const cpu_set_t *cpus, int nthreads, enum calib_hint h,
			     uint64_t target, struct calib_sh_counter *out)
{
	struct calib_team_result team;
	struct sh_arg *a;
	int err;

	memset(out, 0, sizeof(*out));
	if (nthreads <= 0 || h >= CALIB_HINT__COUNT)
		return -EINVAL;
	if (!(calib_hints__available() & CALIB_HINT_BIT(h)))
		return -ENOTSUP;
	a = aligned_alloc(128, sizeof(*a));
	if (!a)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	a->target = target;
	a->hint = h;
	a->tally = aligned_alloc(128, sizeof(*a->tally) * (size_t)nthreads);
	if (!a->tally) {
		free(a);
		return -ENOMEM;
	}
	memset(a->tally, 0, sizeof(*a->tally) * (size_t)nthreads);
	err = calib_team__run(cpus, nthreads, sh_thread, a, &team);
	if (!err) {
		out->final = a->counter;
		for (int i = 0; i < nthreads; i++) {
			out->successes += a->tally[i].successes;
			out->failures += a->tally[i].failures;
		}
		out->ns_per_million = target ? (double)team.wall_ns * 1e6 / (double)target : 0;
		out->overlap = team.overlap;
		calib_team__free(&team);
	}
	free(a->tally);
	free(a);
	return err;
}

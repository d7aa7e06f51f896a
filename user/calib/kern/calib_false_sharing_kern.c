// SPDX-License-Identifier: GPL-2.0
/*
 * False-sharing kernel: threads increment their own counters placed a
 * chosen distance apart, so the distance alone decides whether they fight
 * over a cache line (or an adjacent-line prefetch pair).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calib_kern.h"
#include "calib_util.h"

struct fs_arg {
	char *base;
	size_t spacing;
	bool atomic;
	uint64_t iters;
};

static void fs_thread(int idx, void *p)
{
	struct fs_arg *a = p;
	uint64_t *c = (uint64_t *)(a->base + (size_t)idx * a->spacing);

	if (a->atomic) {
		for (uint64_t i = 0; i < a->iters; i++)
			__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
	} else {
		/* volatile: one load and one store per increment, as a plain
		 * counter field in a loop that calls out would get. */
		volatile uint64_t *v = c;

		for (uint64_t i = 0; i < a->iters; i++)
			*v = *v + 1;
	}
}

int calib_fs__run(const cpu_set_t *cpus, int nthreads, size_t spacing, bool atomic,
		  uint64_t iters, struct calib_fs_result *out)
{
	struct fs_arg a = { .spacing = spacing, .atomic = atomic, .iters = iters };
	struct calib_team_result team;
	size_t size;
	double sum = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (nthreads <= 0 || spacing < sizeof(uint64_t) || spacing % sizeof(uint64_t))
		return -EINVAL;
	/* Page-aligned and rounded to pages, so the first counter starts a
	 * line and nothing else of ours shares the block. */
	size = ((size_t)nthreads * spacing + 4095) & ~(size_t)4095;
	a.base = aligned_alloc(4096, size);
	if (!a.base)
		return -ENOMEM;
	memset(a.base, 0, size);
	err = calib_team__run(cpus, nthreads, fs_thread, &a, &team);
	if (!err) {
		for (int i = 0; i < nthreads; i++) {
			const struct calib_team_member *m = &team.members[i];

			out->total += *(uint64_t *)(a.base + (size_t)i * spacing);
			sum += (double)(m->end_ns - m->start_ns) / (double)(iters ? iters : 1);
		}
		out->ns_per_inc = sum / nthreads;
		out->overlap = team.overlap;
		calib_team__free(&team);
	}
	free(a.base);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/errors.h"
#include "top_collect.h"
#include "top_live.h"
#include "top_verdict.h"

#define TOP_STOP_POLL_NS 100000000ull	/* how soon a stop request is seen */
/* The share of each interval over which the tracing cost is measured
 * (top_bpf__cost_begin(): the measurement costs every BPF program run on
 * the host, so it is kept to the interval's last eighth). */
#define TOP_COST_WINDOW_SHARE 8

struct top_live {
	struct top_bpf *bpf;
	struct top_collector *collect;
	struct top_verdict_scratch *scratch;
	uint64_t interval_ns, deadline_ns;
};

struct top_live *top_live__open(const struct top_live_opts *o, int *code)
{
	struct top_live *l = calloc(1, sizeof(*l));
	char why[512];

	/* The refresh's tables (MiBs with 20000 threads) resized every
	 * interval: from mmap, given back whole when freed or moved, rather
	 * than carved from a heap whose holes RSS keeps (glibc otherwise
	 * raises this threshold to the largest block freed). */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	*code = SS_EXIT_RESOURCES;
	if (!l || !(l->scratch = malloc(sizeof(*l->scratch)))) {
		free(l);
		ss_error(*code, "out of memory");
		return NULL;
	}
	l->interval_ns = o->interval_ns;
	l->bpf = top_bpf__open(&o->bpf, code, why, sizeof(why));
	if (!l->bpf)
		goto fail;
	*code = top_bpf__attach(l->bpf, why, sizeof(why));
	if (*code)
		goto fail;
	l->collect = top_collect__new(l->bpf, &o->collect);
	if (!l->collect) {
		*code = SS_EXIT_RESOURCES;
		snprintf(why, sizeof(why), "out of memory");
		goto fail;
	}
	l->deadline_ns = top_mono_ns() + l->interval_ns;
	return l;
fail:
	ss_error(*code, "%s", why);
	top_live__close(l);
	return NULL;
}

void top_live__set_interval(struct top_live *l, uint64_t interval_ns)
{
	l->interval_ns = interval_ns;
}

/* Sleeps until deadline, in steps short enough to see *stop soon. */
static void wait_until(uint64_t deadline, volatile int *stop)
{
	for (uint64_t now = top_mono_ns(); now < deadline && !(stop && *stop); now = top_mono_ns()) {
		uint64_t step = deadline - now < TOP_STOP_POLL_NS ? deadline - now : TOP_STOP_POLL_NS;
		struct timespec ts = { .tv_sec = (time_t)(step / 1000000000ull),
				       .tv_nsec = (long)(step % 1000000000ull) };

		nanosleep(&ts, NULL);	/* a signal ends it early: *stop is checked */
	}
}

int top_live_refresh(void *ctx, struct top_snapshot *snap, volatile int *stop)
{
	struct top_live *l = ctx;
	int code;

	wait_until(l->deadline_ns - l->interval_ns / TOP_COST_WINDOW_SHARE, stop);
	top_bpf__cost_begin(l->bpf, top_mono_ns());
	wait_until(l->deadline_ns, stop);
	top_bpf__cost_end(l->bpf, top_mono_ns());
	code = top_collect__refresh(l->collect, snap);
	/* The next interval ends one interval after this read: a slow read
	 * (a loaded host) shifts the intervals rather than shortening one. */
	l->deadline_ns = top_mono_ns() + l->interval_ns;
	if (code)
		return code;
	for (size_t i = 0; i < snap->nprocs; i++) {
		struct top_proc *p = &snap->procs[i];
		struct top_verdict_input in = { .interval_ns = snap->interval_ns,
						.host_cpus = snap->host.ncpus,
						.words = top_collect__words(l->collect, p),
						.nwords = p->nwords };

		in.threads = top_collect__threads(l->collect, p, &in.nthreads);
		top_verdict_apply(p, &in, l->scratch);
	}
	return 0;
}

void top_live__close(struct top_live *l)
{
	if (!l)
		return;
	top_bpf__detach(l->bpf);
	top_collect__free(l->collect);
	top_bpf__free(l->bpf);
	free(l->scratch);
	free(l);
}

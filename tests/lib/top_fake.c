// SPDX-License-Identifier: GPL-2.0
/* Canned refreshes for the top tests (see top_fake.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/errors.h"
#include "top_fake.h"

#define NS 1000000000ull

struct fake_shape {
	int32_t pid;
	const char *comm, *container, *unit, *verdict;
	uint32_t nthreads, allowed;
	/* per interval, in intervals' worth (times) or per second (counts) */
	double oncpu, runq, lock_wait, event_wait;
	double wakes, woken, yields, spin;
};

static const struct fake_shape shapes[TOP_FAKE_FIXED] = {
	{ FAKE_LOCKY, "locky", "docker:3f2a9c0d1e7b", "docker-3f2a9c0d1e7b.scope", "futex-contention",
	  4, 2, 0.5, 0.2, 3.0, 0.0, 2000, 2400, 0, 10 },
	{ FAKE_SPINNER, "spinner", "", "spin.service", "yield-spin",
	  2, 2, 1.0, 0.5, 0.0, 0.0, 0, 0, 60000, 400 },
	{ FAKE_IDLE, "idlepool", "", "pool.service", "",
	  8, 2, 0.0, 0.0, 0.0, 8.0, 2, 2, 0, 0 },
	{ FAKE_HOG, "hog", "k8s:pod/0d4c", "kubepods-pod0d4c.slice", "oversubscribed",
	  6, 2, 2.0, 3.0, 0.0, 0.0, 0, 0, 0, 0 },
	/* Names the model would have cleaned; the renderers must hold anyway. */
	{ FAKE_ODD, "odd\x1b[31m", "k8s:pod/a\"b\\c", "odd.service", "",
	  1, 1, 0.01, 0.0, 0.0, 0.0, 0, 0, 1, 0 },
};

static void fill_proc(struct top_proc *p, const struct fake_shape *s, double interval_s)
{
	double iv = interval_s * NS;

	*p = (struct top_proc){ .pid = s->pid, .start_time = 1000 + (uint64_t)s->pid,
				.nthreads = s->nthreads, .cpus_allowed = s->allowed };
	snprintf(p->comm, sizeof(p->comm), "%s", s->comm);
	snprintf(p->container, sizeof(p->container), "%s", s->container);
	snprintf(p->unit, sizeof(p->unit), "%s", s->unit);
	snprintf(p->verdict, sizeof(p->verdict), "%s", s->verdict);
	if (*s->verdict)
		snprintf(p->verdict_summary, sizeof(p->verdict_summary), "%s in %s", s->verdict, s->comm);
	p->verdict_severity = *s->verdict ? 2 : 0;
	p->needs_full_trace = true;
	p->oncpu_ns = (uint64_t)(s->oncpu * iv);
	p->runq_ns = (uint64_t)(s->runq * iv);
	p->lock_wait_ns = (uint64_t)(s->lock_wait * iv);
	p->event_wait_ns = (uint64_t)(s->event_wait * iv);
	p->lock_waits = s->lock_wait > 0 ? 100 : 0;
	p->event_waits = s->event_wait > 0 ? 8 : 0;
	p->wakes = (uint64_t)(s->wakes * interval_s);
	p->woken = (uint64_t)(s->woken * interval_s);
	p->yields = (uint64_t)(s->yields * interval_s);
	p->spin_samples = (uint64_t)(s->spin * interval_s);
	p->samples = p->spin_samples * 2 + (uint64_t)(s->oncpu * 100 * interval_s);
	p->cpus_used = s->oncpu;
	p->runnable = s->oncpu + s->runq;
}

int top_fake_init(struct top_fake *f, unsigned int interval_ms, unsigned int nnoise)
{
	*f = (struct top_fake){ .interval_ms = interval_ms, .nnoise = nnoise };
	f->procs = calloc(TOP_FAKE_FIXED + nnoise, sizeof(*f->procs));
	return f->procs ? 0 : -ENOMEM;
}

void top_fake_free(struct top_fake *f)
{
	free(f->procs);
	f->procs = NULL;
}

void top_fake_fill(struct top_fake *f, struct top_snapshot *snap)
{
	double s = f->interval_ms / 1e3;
	size_t n = 0;

	for (int i = 0; i < TOP_FAKE_FIXED; i++)
		fill_proc(&f->procs[n++], &shapes[i], s);
	for (unsigned int i = 0; i < 4; i++) {
		f->threads[i] = (struct top_thread){ .tid = FAKE_LOCKY + i,
			.oncpu_ns = (uint64_t)((0.05 + 0.1 * i) * s * NS),
			.futex_wait_ns = (uint64_t)(0.75 * s * NS), .futex_waits = 25 + i };
		snprintf(f->threads[i].comm, sizeof(f->threads[i].comm), "locky-w%u", i);
	}
	f->procs[0].threads = f->threads;
	f->procs[0].nthreads_detail = 4;
	for (unsigned int i = 0; i < f->nnoise; i++) {
		/* Noise: a little lock wait and a few yields, each its own name. */
		struct fake_shape z = { (int32_t)(1000 + i), "", "", "", "", 1, 2,
					0.001 * (i % 7), 0.0001, 0.0001 * (1 + i % 11), 0.001,
					1, 1, (double)(i % 5), 0 };
		char comm[TOP_COMM_LEN];

		snprintf(comm, sizeof(comm), "noise%u", i);
		z.comm = comm;
		fill_proc(&f->procs[n++], &z, s);
	}
	*snap = (struct top_snapshot){
		.wall_ns = (uint64_t)time(NULL) * NS, .interval_ns = (uint64_t)(s * NS),
		.sampling = true, .procs = f->procs, .nprocs = n,
		.host = { .ncpus = 2, .load1 = 1.25, .load5 = 0.75, .load15 = 0.5, .busy_cpus = 1.5,
			  .bpf_run_ns = (uint64_t)(0.002 * s * NS), .bpf_runs = 12345,
			  .self_cpu = 0.004, .self_rss_kib = 9216, .drops = 3,
			  .processes = (uint32_t)n, .threads = 22 + f->nnoise },
	};
}

int top_fake_refresh(void *ctx, struct top_snapshot *snap, volatile int *stop)
{
	struct top_fake *f = ctx;
	struct timespec step = { 0, 10000000 };

	for (unsigned int waited = 0; waited < f->interval_ms && !*stop; waited += 10)
		nanosleep(&step, NULL);
	if (f->fail_after && f->refreshes + 1 >= f->fail_after)
		return SS_EXIT_ERROR;
	f->refreshes++;
	top_fake_fill(f, snap);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Text like `top -b` and one JSON document per snapshot. Every name in a
 * snapshot is sanitised by the collector already (common/names.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include "top_render.h"

static double v_lock(const struct top_proc *p) { return (double)p->lock_wait_ns; }
static double v_event(const struct top_proc *p) { return (double)p->event_wait_ns; }
static double v_yields(const struct top_proc *p) { return (double)p->yields; }
static double v_spin(const struct top_proc *p) { return (double)p->spin_samples; }
static double v_cpu(const struct top_proc *p) { return (double)p->oncpu_ns; }
static double v_runq(const struct top_proc *p) { return (double)p->runq_ns; }
static double v_wakes(const struct top_proc *p) { return (double)p->woken; }
static double v_pid(const struct top_proc *p) { return -(double)p->pid; }

/* The sort keys: one row each, the value a process is ranked by. */
static const struct {
	const char *name;
	double (*value)(const struct top_proc *p);
} keys[TOP_SORT_KEYS] = {
	[TOP_SORT_LOCK_WAIT] = { "lock", v_lock },
	[TOP_SORT_EVENT_WAIT] = { "event", v_event },
	[TOP_SORT_YIELDS] = { "yields", v_yields },
	[TOP_SORT_SPIN] = { "spin", v_spin },
	[TOP_SORT_CPU] = { "cpu", v_cpu },
	[TOP_SORT_RUNQ] = { "runq", v_runq },
	[TOP_SORT_WAKES] = { "wakes", v_wakes },
	[TOP_SORT_PID] = { "pid", v_pid },
};

const char *top_sort_name(enum top_sort_key k)
{
	return k < TOP_SORT_KEYS ? keys[k].name : "?";
}

int top_sort_parse(const char *name)
{
	for (int k = 0; k < TOP_SORT_KEYS; k++)
		if (!strcmp(keys[k].name, name))
			return k;
	return -1;
}

const char *top_sort_names(void)
{
	static char buf[128];

	buf[0] = 0;
	for (int k = 0; k < TOP_SORT_KEYS; k++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", k ? ", " : "", keys[k].name);
	return buf;
}

static int cmp_order(const void *a, const void *b, void *key)
{
	const struct top_proc *x = *(const struct top_proc *const *)a, *y = *(const struct top_proc *const *)b;
	enum top_sort_key k = *(const enum top_sort_key *)key;
	double vx = keys[k].value(x), vy = keys[k].value(y);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->oncpu_ns != y->oncpu_ns)	/* ties: the busier first */
		return x->oncpu_ns > y->oncpu_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void top_sort_procs(const struct top_proc *procs, size_t n, enum top_sort_key key,
		    const struct top_proc **order)
{
	for (size_t i = 0; i < n; i++)
		order[i] = &procs[i];
	if (key >= TOP_SORT_KEYS)
		key = TOP_SORT_LOCK_WAIT;
	qsort_r(order, n, sizeof(*order), cmp_order, &key);
}

/* "12.3ms", "1.20s", "850us": a duration in a 7-column cell. */
static const char *dur(uint64_t ns, char *buf, size_t size)
{
	if (ns >= 10000000000ull)
		snprintf(buf, size, "%.1fs", (double)ns / 1e9);
	else if (ns >= 1000000000ull)
		snprintf(buf, size, "%.2fs", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, size, "%.1fms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, size, "%.0fus", (double)ns / 1e3);
	else
		snprintf(buf, size, "%" PRIu64 "ns", ns);
	return buf;
}

static void text_header(FILE *f, const struct top_snapshot *s)
{
	const struct top_host *h = &s->host;
	time_t t = (time_t)(s->wall_ns / 1000000000ull);
	double iv = s->interval_ns ? (double)s->interval_ns : 1;
	char when[16];
	struct tm tm;

	strftime(when, sizeof(when), "%H:%M:%S", gmtime_r(&t, &tm));
	fprintf(f, "spinscope top - %s UTC, interval %.2f s, load average %.2f %.2f %.2f, %u CPUs (%.1f busy), %u processes, %u threads\n",
		when, iv / 1e9, h->load1, h->load5, h->load15, h->ncpus, h->busy_cpus, h->processes,
		h->threads);
	fprintf(f, "tracing cost: BPF programs %.2f%% of a CPU (%" PRIu64 " runs), spinscope %.2f%% of a CPU, %" PRIu64 " MiB; %" PRIu64 " events dropped%s\n",
		100 * (double)h->bpf_run_ns / iv, h->bpf_runs, 100 * h->self_cpu, h->self_rss_kib / 1024,
		h->drops, s->sampling ? "; sampling on" : "");
	fprintf(f, "\n%7s %-15s %-24s %5s %5s %8s %8s %7s %7s %5s %s\n", "PID", "COMMAND", "CONTAINER/UNIT",
		"CPU", "RUNBL", "LOCKWAIT", "EVWAIT", "YIELDS", "WOKEN", "SPIN", "VERDICT");
}

static void text_row(FILE *f, const struct top_proc *p, bool sampling)
{
	char lock[16], ev[16], spin[16];

	snprintf(spin, sizeof(spin), "%s", "-");
	if (sampling && p->samples)
		snprintf(spin, sizeof(spin), "%.0f%%", 100.0 * (double)p->spin_samples / (double)p->samples);
	fprintf(f, "%7d %-15.15s %-24.24s %5.2f %5.2f %8s %8s %7" PRIu64 " %7" PRIu64 " %5s %s%s\n", p->pid,
		p->comm, p->container[0] ? p->container : p->unit, p->cpus_used, p->runnable,
		dur(p->lock_wait_ns, lock, sizeof(lock)), dur(p->event_wait_ns, ev, sizeof(ev)), p->yields,
		p->woken, spin, p->verdict[0] ? p->verdict : "-", p->needs_full_trace ? " (+ -p)" : "");
}

static void text_threads(FILE *f, const struct top_proc *p)
{
	for (size_t i = 0; p->threads && i < p->nthreads_detail; i++) {
		const struct top_thread *t = &p->threads[i];
		char cpu[16], runq[16], wait[16];

		fprintf(f, "%7s   %-13.13s tid %-8u cpu %8s runq %8s futex %8s yields %" PRIu64 "\n", "",
			t->comm, t->tid, dur(t->oncpu_ns, cpu, sizeof(cpu)), dur(t->runq_ns, runq, sizeof(runq)),
			dur(t->futex_wait_ns, wait, sizeof(wait)), t->yields);
	}
}

int top_render_text(FILE *f, const struct top_snapshot *s, const struct top_render_opts *o)
{
	const struct top_proc **order = calloc(s->nprocs ? s->nprocs : 1, sizeof(*order));
	size_t n = o->rows && o->rows < s->nprocs ? o->rows : s->nprocs;

	if (!order)
		return -ENOMEM;
	top_sort_procs(s->procs, s->nprocs, o->sort, order);
	text_header(f, s);
	for (size_t i = 0; i < n; i++) {
		text_row(f, order[i], s->sampling);
		if (o->threads)
			text_threads(f, order[i]);
	}
	fprintf(f, "\n");
	free(order);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* report and diff on top recordings (see top_report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/sort.h"
#include "common/errors.h"
#include "top/top_html.h"
#include "top/top_read.h"
#include "top/top_render.h"
#include "top_report.h"

/* Reads doc (taken over) into rec: 0 or an exit code, said. */
static int read_top(const char *path, json_object *doc, struct top_recording *rec)
{
	char why[256];
	int code = top_read__from_json(doc, rec, why, sizeof(why));

	return code ? ss_error(code, "cannot read the recording %s: %s", path, why) : 0;
}

/* A top recording holds no stacks: only its page among the files. */
static int refuse_stack_files(const struct ss_output_paths *out)
{
	for (int k = 0; k < SS_NOUTPUTS; k++)
		if (out->path[k] && k != SS_OUT_HTML)
			return ss_error(SS_EXIT_USAGE, "--%s: a recording of spinscope top has no stacks; "
				       "record one process with spinscope -p PID -o FILE for it",
				       ss_outputs[k].option);
	return 0;
}

static int write_page(const char *page, const struct top_recording *rec,
		      const struct top_render_opts *ro)
{
	json_object *doc;
	char why[512];
	int err = top_render_doc(&rec->snap, ro, &doc);

	/* the page shows the document as read and cleaned, not the file's bytes */
	if (!err && top_html__save(page, doc, why, sizeof(why)))
		err = ss_error(SS_EXIT_ERROR, "cannot write the HTML page to %s: %s", page, why);
	else if (err)
		err = ss_error(SS_EXIT_RESOURCES, "out of memory rendering the page");
	json_object_put(doc);
	return err;
}

int top_report_run(const char *path, json_object *doc, bool json, bool brief,
		   const struct ss_output_paths *out)
{
	struct top_recording rec;
	struct top_render_opts ro = { 0 };
	struct top_snapshot view;
	int code = refuse_stack_files(out);

	if (code) {
		json_object_put(doc);
		return code;
	}
	code = read_top(path, doc, &rec);
	ro.sort = rec.sort;
	for (size_t i = 0; !code && i < rec.snap.nprocs; i++)
		ro.threads |= rec.snap.procs[i].threads != NULL;
	if (!code && out->path[SS_OUT_HTML])
		code = write_page(out->path[SS_OUT_HTML], &rec, &ro);
	view = rec.snap;
	/* --brief: the processes with a verdict only */
	if (!code && brief) {
		size_t n = 0;

		for (size_t i = 0; i < view.nprocs; i++)
			if (view.procs[i].verdict[0])
				view.procs[n++] = view.procs[i];
		view.nprocs = n;
	}
	if (!code && (json ? top_render_json : top_render_text)(stdout, &view, &ro))
		code = ss_error(SS_EXIT_RESOURCES, "out of memory rendering the recording");
	if (!code && fflush(stdout) == EOF)
		code = ss_error(SS_EXIT_ERROR, "cannot write the report to stdout");
	top_read__free(&rec);
	return code;
}

/* ---- diff ---------------------------------------------------------------- */

/* A program across both windows: its processes summed, rates per second. */
struct side {
	bool seen;
	double lock_wait, event_wait, runq, cpus, yields, wakes;	/* per second */
	char verdict[TOP_VERDICT_LEN];
	int severity;
};

struct program {
	char comm[TOP_COMM_LEN], container[TOP_CONTAINER_LEN], unit[TOP_UNIT_LEN];
	struct side side[2];
};

static bool same_program(const struct program *g, const struct top_proc *p)
{
	return !strcmp(g->comm, p->comm) && !strcmp(g->container, p->container) &&
	       !strcmp(g->unit, p->unit);
}

/* Adds p (of a window of secs) to its program in v (n of them, room for
 * all): the most severe verdict of its processes stays. */
static void add_proc(struct program *v, size_t *n, const struct top_proc *p, int which, double secs)
{
	struct program *g = NULL;
	struct side *s;

	for (size_t i = 0; i < *n && !g; i++)
		if (same_program(&v[i], p))
			g = &v[i];
	if (!g) {
		g = &v[(*n)++];
		memset(g, 0, sizeof(*g));
		snprintf(g->comm, sizeof(g->comm), "%s", p->comm);
		snprintf(g->container, sizeof(g->container), "%s", p->container);
		snprintf(g->unit, sizeof(g->unit), "%s", p->unit);
	}
	s = &g->side[which];
	s->seen = true;
	s->lock_wait += (double)p->lock_wait_ns / 1e9 / secs;
	s->event_wait += (double)p->event_wait_ns / 1e9 / secs;
	s->runq += (double)p->runq_ns / 1e9 / secs;
	s->cpus += (double)p->oncpu_ns / 1e9 / secs;
	s->yields += (double)p->yields / secs;
	s->wakes += (double)p->wakes / secs;
	if (p->verdict_severity > s->severity) {
		s->severity = p->verdict_severity;
		snprintf(s->verdict, sizeof(s->verdict), "%s", p->verdict);
	}
}

static int by_change(const void *x, const void *y)
{
	const struct program *a = x, *b = y;
	double da = a->side[1].lock_wait - a->side[0].lock_wait;
	double db = b->side[1].lock_wait - b->side[0].lock_wait;

	/* the largest change in lock wait, either way, first */
	da = da < 0 ? -da : da;
	db = db < 0 ? -db : db;
	return (da < db) - (da > db);
}

static json_object *side_json(const struct side *s)
{
	json_object *o;

	if (!s->seen)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "lock_wait_per_s", json_object_new_double(s->lock_wait));
	json_object_object_add(o, "event_wait_per_s", json_object_new_double(s->event_wait));
	json_object_object_add(o, "runq_per_s", json_object_new_double(s->runq));
	json_object_object_add(o, "cpus_used", json_object_new_double(s->cpus));
	json_object_object_add(o, "yields_per_s", json_object_new_double(s->yields));
	json_object_object_add(o, "wakes_per_s", json_object_new_double(s->wakes));
	json_object_object_add(o, "verdict", s->verdict[0] ? json_object_new_string(s->verdict) : NULL);
	return o;
}

static void print_diff_json(const struct program *v, size_t n, const char *const paths[2])
{
	json_object *doc = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(doc, "kind", json_object_new_string("spinscope top diff"));
	json_object_object_add(doc, "before", json_object_new_string(paths[0]));
	json_object_object_add(doc, "after", json_object_new_string(paths[1]));
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "comm", json_object_new_string(v[i].comm));
		json_object_object_add(o, "container", json_object_new_string(v[i].container));
		json_object_object_add(o, "unit", json_object_new_string(v[i].unit));
		json_object_object_add(o, "before", side_json(&v[i].side[0]));
		json_object_object_add(o, "after", side_json(&v[i].side[1]));
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "programs", arr);
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

static void side_text(char *buf, size_t len, const struct side *s, double v)
{
	if (s->seen)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "-");
}

static void print_diff_text(const struct program *v, size_t n, const struct top_recording r[2])
{
	printf("spinscope diff: two top recordings, %.1f s before and %.1f s after; rates per second\n"
	       "of each window, processes matched by command, container and unit\n\n",
	       (double)r[0].snap.interval_ns / 1e9, (double)r[1].snap.interval_ns / 1e9);
	printf("%-16s %-16s %19s %17s %15s  %s\n", "COMMAND", "CONTAINER", "LOCK WAIT s/s",
	       "YIELDS/s", "CPUs", "VERDICT");
	for (size_t i = 0; i < n; i++) {
		const struct side *a = &v[i].side[0], *b = &v[i].side[1];
		char l0[16], l1[16], y0[16], y1[16], c0[16], c1[16];

		side_text(l0, sizeof(l0), a, a->lock_wait);
		side_text(l1, sizeof(l1), b, b->lock_wait);
		side_text(y0, sizeof(y0), a, a->yields);
		side_text(y1, sizeof(y1), b, b->yields);
		side_text(c0, sizeof(c0), a, a->cpus);
		side_text(c1, sizeof(c1), b, b->cpus);
		printf("%-16.16s %-16.16s %8s -> %-8s %7s -> %-7s %6s -> %-6s %s -> %s\n", v[i].comm,
		       v[i].container[0] ? v[i].container : v[i].unit[0] ? v[i].unit : "-", l0, l1, y0,
		       y1, c0, c1, a->verdict[0] ? a->verdict : "-", b->verdict[0] ? b->verdict : "-");
	}
}

int top_diff_run(const char *const paths[2], json_object *docs[2], bool json)
{
	struct top_recording rec[2];
	struct program *v = NULL;
	size_t n = 0;
	int code;

	memset(rec, 0, sizeof(rec));
	code = read_top(paths[0], docs[0], &rec[0]);
	if (code)
		json_object_put(docs[1]);
	code = code ?: read_top(paths[1], docs[1], &rec[1]);
	if (!code && !(v = calloc(rec[0].snap.nprocs + rec[1].snap.nprocs + 1, sizeof(*v))))
		code = ss_error(SS_EXIT_RESOURCES, "diff: out of memory");
	for (int w = 0; !code && w < 2; w++)
		for (size_t i = 0; i < rec[w].snap.nprocs; i++)
			add_proc(v, &n, &rec[w].snap.procs[i], w, (double)rec[w].snap.interval_ns / 1e9);
	if (!code) {
		ss_sort(v, n, sizeof(*v), by_change);
		if (json)
			print_diff_json(v, n, paths);
		else
			print_diff_text(v, n, rec);
		if (fflush(stdout) == EOF)
			code = ss_error(SS_EXIT_ERROR, "cannot write the diff to stdout");
	}
	free(v);
	top_read__free(&rec[0]);
	top_read__free(&rec[1]);
	return code;
}

// SPDX-License-Identifier: GPL-2.0
/* The live view's rows, sort, filter and lines (see top_table.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/grow.h"
#include "top_table.h"

/* How a column reads a row: a number to sort by, and its cell text. */
typedef double (*col_num_fn)(const struct top_row *r);
typedef void (*col_text_fn)(const struct top_row *r, char *buf, size_t size);

struct top_colspec {
	const char *title;
	const char *thread_title;	/* in the threads view, when it means else */
	unsigned int width;		/* the last column takes what is left */
	char key;			/* sorts by it */
	bool text;			/* left-aligned, sorted A to Z */
	const char *(*str)(const struct top_row *r);	/* text columns */
	col_num_fn num;			/* numeric columns: sorted biggest first */
	col_text_fn fmt;
};

static void fmt_ns(uint64_t ns, char *buf, size_t size)
{
	if (ns == 0)
		snprintf(buf, size, "0");
	else if (ns < 1000000)
		snprintf(buf, size, "%.0fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, ns < 100000000 ? "%.1fms" : "%.0fms", ns / 1e6);
	else
		snprintf(buf, size, ns < 10000000000ull ? "%.2fs" : "%.1fs", ns / 1e9);
}

static void fmt_count(uint64_t n, char *buf, size_t size)
{
	if (n < 100000)
		snprintf(buf, size, "%llu", (unsigned long long)n);
	else if (n < 100000000)
		snprintf(buf, size, "%.1fk", n / 1e3);
	else
		snprintf(buf, size, "%.1fM", n / 1e6);
}

static const char *row_comm(const struct top_row *r) { return r->comm; }
static const char *row_container(const struct top_row *r) { return r->container; }
static const char *row_verdict(const struct top_row *r) { return r->verdict; }

static double num_pid(const struct top_row *r) { return r->id; }
static double num_cpu(const struct top_row *r) { return r->cpu; }
/* Runnable threads per allowed CPU: oversubscription sorts first. */
static double num_runnable(const struct top_row *r)
{
	return r->allowed ? r->runnable / r->allowed : r->runnable;
}
static double num_runq(const struct top_row *r) { return (double)r->runq_ns; }
static double num_lockwait(const struct top_row *r) { return (double)r->lock_wait_ns; }
static double num_evwait(const struct top_row *r) { return (double)r->event_wait_ns; }
static double num_wakes(const struct top_row *r) { return (double)r->wakes; }
static double num_yields(const struct top_row *r) { return (double)r->yields; }
static double num_spin(const struct top_row *r) { return (double)r->spin_samples; }

static void fmt_pid(const struct top_row *r, char *b, size_t n) { snprintf(b, n, "%d", r->id); }
static void fmt_cpu(const struct top_row *r, char *b, size_t n)
{
	snprintf(b, n, r->cpu < 0.1 ? "%.1f%%" : "%.0f%%", r->cpu * 100);
}
static void fmt_runnable(const struct top_row *r, char *b, size_t n)
{
	if (r->allowed)
		snprintf(b, n, "%.1f/%u", r->runnable, r->allowed);
	else
		snprintf(b, n, "%.1f", r->runnable);
}
static void fmt_runq(const struct top_row *r, char *b, size_t n) { fmt_ns(r->runq_ns, b, n); }
static void fmt_lockwait(const struct top_row *r, char *b, size_t n) { fmt_ns(r->lock_wait_ns, b, n); }
static void fmt_evwait(const struct top_row *r, char *b, size_t n)
{
	if (r->proc && r->id != r->proc->pid && !r->event_wait_ns)
		snprintf(b, n, "-");	/* a thread: waits are not split */
	else
		fmt_ns(r->event_wait_ns, b, n);
}
/* Wakes that found waiters, and how many each woke on average. */
static void fmt_wakes(const struct top_row *r, char *b, size_t n)
{
	char c[16];

	fmt_count(r->wakes, c, sizeof(c));
	if (r->wakes)
		snprintf(b, n, "%s(%.1f)", c, (double)r->woken / r->wakes);
	else
		snprintf(b, n, "%s", c);
}
static void fmt_yields(const struct top_row *r, char *b, size_t n) { fmt_count(r->yields, b, n); }
static void fmt_spin(const struct top_row *r, char *b, size_t n) { fmt_count(r->spin_samples, b, n); }

static const struct top_colspec top_cols[TOP_NCOLS] = {
	[TOP_COL_PID] = { "PID", "TID", 7, 'p', false, NULL, num_pid, fmt_pid },
	[TOP_COL_COMM] = { "COMM", NULL, 15, 'c', true, row_comm, NULL, NULL },
	[TOP_COL_CONTAINER] = { "CONTAINER", NULL, 20, 'n', true, row_container, NULL, NULL },
	[TOP_COL_CPU] = { "CPU", NULL, 5, 'u', false, NULL, num_cpu, fmt_cpu },
	[TOP_COL_RUNNABLE] = { "RUN/CPUS", "RUN", 9, 'r', false, NULL, num_runnable, fmt_runnable },
	[TOP_COL_RUNQ] = { "RUNQ", NULL, 7, 'd', false, NULL, num_runq, fmt_runq },
	[TOP_COL_LOCKWAIT] = { "LOCKWAIT", "FUTEXWT", 9, 'l', false, NULL, num_lockwait, fmt_lockwait },
	[TOP_COL_EVWAIT] = { "EVWAIT", NULL, 7, 'e', false, NULL, num_evwait, fmt_evwait },
	[TOP_COL_WAKES] = { "WAKES(FAN)", NULL, 11, 'w', false, NULL, num_wakes, fmt_wakes },
	[TOP_COL_YIELDS] = { "YIELDS", NULL, 7, 'y', false, NULL, num_yields, fmt_yields },
	[TOP_COL_SPIN] = { "SPIN", NULL, 6, 's', false, NULL, num_spin, fmt_spin },
	[TOP_COL_VERDICT] = { "VERDICT", NULL, 10, 'v', true, row_verdict, NULL, NULL },
};

static bool col_shown(enum top_col c, bool sampling)
{
	return c != TOP_COL_SPIN || sampling;
}

int top_table_sort_key(int key)
{
	for (int c = 0; c < TOP_NCOLS; c++)
		if (top_cols[c].key == key)
			return c;
	return -1;
}

enum top_col top_table_sort_step(enum top_col c, int dir, bool sampling)
{
	int n = c;

	do
		n = (n + dir + TOP_NCOLS) % TOP_NCOLS;
	while (!col_shown(n, sampling));
	return n;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct top_table_view *v = arg;
	const struct top_colspec *c = &top_cols[v->sort];
	const struct top_row *a = pa, *b = pb;
	int d;

	if (c->text) {
		const char *x = c->str(a), *y = c->str(b);

		/* Names A to Z, the empty ones (no container, no verdict) last. */
		d = !*x != !*y ? (*x ? -1 : 1) : strcmp(x, y);
	} else {
		double x = c->num(a), y = c->num(b);

		/* Numbers biggest first, except the pid: it reads upwards. */
		d = x < y ? 1 : x > y ? -1 : 0;
		if (v->sort == TOP_COL_PID)
			d = -d;
	}
	if (v->reverse)
		d = -d;
	/* Ties by id, so that equal rows keep their places between refreshes. */
	return d ? d : (a->id > b->id) - (a->id < b->id);
}

static bool row_matches(const struct top_row *r, const char *unit, const char *filter)
{
	return !*filter || strcasestr(r->comm, filter) || strcasestr(r->container, filter) ||
	       (unit && strcasestr(unit, filter));
}

static void proc_row(struct top_row *r, const struct top_proc *p)
{
	*r = (struct top_row){
		.id = p->pid, .comm = p->comm, .container = p->container, .verdict = p->verdict,
		.cpu = p->cpus_used, .runnable = p->runnable, .allowed = p->cpus_allowed,
		.runq_ns = p->runq_ns, .lock_wait_ns = p->lock_wait_ns,
		.event_wait_ns = p->event_wait_ns, .wakes = p->wakes, .woken = p->woken,
		.yields = p->yields, .spin_samples = p->spin_samples, .proc = p,
	};
}

static void thread_row(struct top_row *r, const struct top_proc *p, const struct top_thread *t,
		       double interval)
{
	*r = (struct top_row){
		.id = (int32_t)t->tid, .comm = t->comm, .container = p->container, .verdict = "",
		.cpu = t->oncpu_ns / interval, .runnable = (t->oncpu_ns + t->runq_ns) / interval,
		.runq_ns = t->runq_ns, .lock_wait_ns = t->futex_wait_ns, .wakes = t->futex_wakes,
		.woken = t->futex_woken, .yields = t->yields, .spin_samples = t->spin_samples,
		.proc = p,
	};
}

static int push(struct top_rows *out, const struct top_row *r)
{
	if (ss_grow((void **)&out->v, out->n, &out->cap, sizeof(*out->v), 64))
		return -ENOMEM;
	out->v[out->n++] = *r;
	return 0;
}

static int build_threads(const struct top_snapshot *s, const struct top_table_view *v,
			 struct top_rows *out, double interval)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct top_proc *p = &s->procs[i];

		if (p->pid != v->threads_of || !p->threads)
			continue;
		for (size_t t = 0; t < p->nthreads_detail; t++) {
			struct top_row r;

			thread_row(&r, p, &p->threads[t], interval);
			if (row_matches(&r, NULL, v->filter) && push(out, &r))
				return -ENOMEM;
		}
	}
	return 0;
}

int top_table_build(const struct top_snapshot *s, const struct top_table_view *v,
		    struct top_rows *out)
{
	double interval = s->interval_ns ? (double)s->interval_ns : 1.0;

	out->n = 0;
	out->threads = v->threads_of != 0;
	out->sampling = s->sampling;
	if (out->threads) {
		if (build_threads(s, v, out, interval))
			return -ENOMEM;
	} else {
		for (size_t i = 0; i < s->nprocs; i++) {
			struct top_row r;

			proc_row(&r, &s->procs[i]);
			if (row_matches(&r, s->procs[i].unit, v->filter) && push(out, &r))
				return -ENOMEM;
		}
	}
	qsort_r(out->v, out->n, sizeof(*out->v), cmp_rows, (void *)v);
	return 0;
}

void top_table_free(struct top_rows *r)
{
	free(r->v);
	*r = (struct top_rows){ 0 };
}

/* Bytes of one UTF-8 character starting with byte c (the model's names are
 * valid UTF-8; anything else counts as one byte). */
static size_t utf8_len(unsigned char c)
{
	return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

char *top_table_fit(char *dst, size_t size, const char *src, unsigned int width)
{
	size_t o = 0;

	if (!size)
		return dst;
	for (unsigned int w = 0; *src && w < width; w++) {
		size_t n = utf8_len((unsigned char)*src);

		if (strnlen(src, n) < n || o + n >= size)
			break;
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)src[i];

			dst[o + i] = (c < 0x20 || c == 0x7f || (n == 1 && c >= 0x80)) ? '?' : (char)c;
		}
		o += n;
		src += n;
	}
	dst[o] = 0;
	return dst;
}

/* A line being filled cell by cell, counted in characters. */
struct line {
	char *buf;
	size_t size, len;
	unsigned int cols, width;
};

static void put_cell(struct line *l, const char *text, unsigned int w, bool left)
{
	unsigned int gap = l->cols ? 1 : 0, chars = 0;
	char cell[256];

	if (l->cols + gap >= l->width)
		return;
	if (w > l->width - l->cols - gap)
		w = l->width - l->cols - gap;
	top_table_fit(cell, sizeof(cell), text, w);
	for (const char *p = cell; *p; p += utf8_len((unsigned char)*p))
		chars++;
	l->len += (size_t)snprintf(l->buf + l->len, l->size - l->len, "%*s%*s%s%*s", (int)gap, "",
				   (int)(left ? 0 : w - chars), "", cell,
				   (int)(left ? w - chars : 0), "");
	if (l->len >= l->size)
		l->len = l->size - 1;
	l->cols += gap + w;
}

/* Each shown column's width; the last takes the rest of the line. */
static unsigned int col_width(enum top_col c, unsigned int width, bool sampling)
{
	unsigned int used = 0;

	if (c != TOP_COL_VERDICT)
		return top_cols[c].width;
	for (int i = 0; i < TOP_COL_VERDICT; i++)
		if (col_shown(i, sampling))
			used += top_cols[i].width + 1;
	return width > used + top_cols[c].width ? width - used : top_cols[c].width;
}

void top_table_header(const struct top_rows *r, const struct top_table_view *v, char *buf,
		      size_t size, unsigned int width)
{
	struct line l = { buf, size, 0, 0, width };

	buf[0] = 0;
	for (int c = 0; c < TOP_NCOLS; c++) {
		const struct top_colspec *s = &top_cols[c];
		const char *t = r->threads && s->thread_title ? s->thread_title : s->title;
		char title[32];

		if (!col_shown(c, r->sampling))
			continue;
		snprintf(title, sizeof(title), "%s%s", t,
			 (int)v->sort == c ? (v->reverse ? "^" : "v") : "");
		put_cell(&l, title, col_width(c, width, r->sampling), s->text);
	}
}

void top_table_line(const struct top_rows *r, const struct top_row *row, char *buf, size_t size,
		    unsigned int width)
{
	struct line l = { buf, size, 0, 0, width };

	buf[0] = 0;
	for (int c = 0; c < TOP_NCOLS; c++) {
		const struct top_colspec *s = &top_cols[c];
		char cell[64];
		const char *text = cell;

		if (!col_shown(c, r->sampling))
			continue;
		if (s->text)
			text = *s->str(row) ? s->str(row) : "-";
		else
			s->fmt(row, cell, sizeof(cell));
		put_cell(&l, text, col_width(c, width, r->sampling), s->text);
	}
}

void top_table_host_lines(const struct top_snapshot *s, char *l1, char *l2, size_t size,
			  unsigned int width)
{
	const struct top_host *h = &s->host;
	double interval = s->interval_ns ? (double)s->interval_ns : 1.0;
	char a[512], b[512];

	snprintf(a, sizeof(a),
		 "spinscope top  load %.2f %.2f %.2f  %u CPUs (%.1f busy)  %u processes  %u threads  every %.1fs",
		 h->load1, h->load5, h->load15, h->ncpus, h->busy_cpus, h->processes, h->threads,
		 interval / 1e9);
	snprintf(b, sizeof(b),
		 "tracing: BPF %.2f%% of a CPU (%llu runs)  spinscope %.1f%% CPU, %.1f MiB  drops %llu%s",
		 100.0 * (double)h->bpf_run_ns / interval, (unsigned long long)h->bpf_runs,
		 100.0 * h->self_cpu, h->self_rss_kib / 1024.0, (unsigned long long)h->drops,
		 s->sampling ? "  sampling" : "");
	top_table_fit(l1, size, a, width);
	top_table_fit(l2, size, b, width);
}

const char *top_table_keys_line(void)
{
	return "q quit  ? help  / filter  t threads  Enter report (-p)  </> sort column  I reverse";
}

static const char *const help_lines[] = {
	"spinscope top: keys",
	"",
	"  Up/Down PgUp/PgDn Home/End   select a row",
	"  Enter      run `spinscope -p PID -d 5 --brief` on it and show the report (q returns)",
	"  t          the selected process's threads, and back (needs thread detail)",
	"  /          filter rows by a name, container or unit substring (Enter keeps, Esc clears)",
	"  < >        sort by the previous / next column",
	"  I          reverse the sort order",
	"  p c n u r d l e w y s v   sort by PID COMM CONTAINER CPU RUN/CPUS RUNQ LOCKWAIT",
	"                            EVWAIT WAKES YIELDS SPIN VERDICT",
	"  q          quit (also SIGINT, SIGTERM, a closed terminal)",
	"",
	"Columns: times are summed over the process's threads within the refresh interval;",
	"RUN/CPUS is runnable threads (on a CPU or waiting for one) against the CPUs it may use;",
	"WAKES(FAN) is wakes that found waiters and the waiters each woke on average;",
	"VERDICT is the most severe finding scheduler data supports: `-p` finds more.",
	"",
	"Press any key to return.",
	NULL,
};

const char *const *top_table_help(void)
{
	return help_lines;
}

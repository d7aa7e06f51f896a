// SPDX-License-Identifier: GPL-2.0
/*
 * What the samples say, for people and tools: ranking by leaf address or
 * function, the JSON "samples" object, folded stacks and the text section.
 * Pure functions of a samples_result; names come from the caller's
 * symbolize callback (this file never reads /proc or ELF files).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common/sort.h"
#include "samples_report.h"
#include "advisor/runtime.h"

#define NO_STACK "[no user stack]"
#define UNKNOWN "[unknown]"

static const char *const ratio_counters[SS_SAMPLE_COUNTERS] = {
	"cache-misses", "cache-references", "instructions",
};

static int cmp_leaf(const void *a, const void *b)
{
	const struct samples_leaf *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->ip > y->ip) - (x->ip < y->ip);
}

static int cmp_leaf_ip(const void *a, const void *b)
{
	const struct samples_leaf *x = a, *y = b;

	return (x->ip > y->ip) - (x->ip < y->ip);
}

long samples__rank_leaves(const struct samples_result *r, struct samples_leaf **out)
{
	struct samples_leaf *v = malloc(sizeof(*v) * (r->nr_stacks ? r->nr_stacks : 1));
	size_t n = 0, m = 0;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_stacks; i++)
		if (r->stacks[i].depth)
			v[n++] = (struct samples_leaf){ r->stacks[i].ips[0], r->stacks[i].count };
	/* Merge equal addresses, then order by count. */
	ss_sort(v, n, sizeof(*v), cmp_leaf_ip);
	for (size_t i = 0; i < n; i++) {
		if (m && v[m - 1].ip == v[i].ip)
			v[m - 1].count += v[i].count;
		else
			v[m++] = v[i];
	}
	ss_sort(v, m, sizeof(*v), cmp_leaf);
	*out = v;
	return (long)m;
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_top(const void *a, const void *b)
{
	const struct samples_top *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	c = cmp_str(x->symbol, y->symbol);
	return c ? c : cmp_str(x->module, y->module);
}

/* Names ip as (symbol, module); symbol is never NULL. */
static const char *name_ip(samples_symbolize_fn symbolize, void *arg, __u64 ip,
			   const char **module, char *buf, size_t size)
{
	const char *name;

	*module = NULL;
	if (!symbolize) {
		snprintf(buf, size, "0x%" PRIx64, (uint64_t)ip);
		return buf;
	}
	name = symbolize(arg, ip, module);
	return name ? name : UNKNOWN;
}

void samples__top_free(struct samples_top *t, long n)
{
	for (long i = 0; t && i < n; i++) {
		free(t[i].symbol);
		free(t[i].module);
	}
	free(t);
}

/* What an unnamed leaf is, said by what runs there: the vDSO's unnamed
 * code is its clock read (a static function with no dynamic symbol, the
 * pvclock read on a KVM guest); code outside any file is JIT code without
 * a perf map. */
static const char *unnamed_what(const char *module)
{
	if (module && !strcmp(module, "[vdso]"))
		return "clock read in the vDSO";
	if (!module)
		return "JIT or anonymous code, no perf map (have the runtime write "
		       "/tmp/perf-PID.map: java -XX:+UnlockDiagnosticVMOptions "
		       "-XX:+DumpPerfMapAtExit, node --perf-basic-prof)";
	return NULL;
}

/* The leaf's row in the text table: the leaf itself, and for a leaf the
 * user does not own (unnamed, or the runtime's: libc, the vDSO) the
 * nearest caller that is the user's own, so that every sample is
 * attributed to something the user can change. */
static const char *attributed_name(const struct samples_stack *st, samples_symbolize_fn symbolize,
				   void *arg, const char **module, char *buf, size_t size,
				   char *mbuf, size_t msize)
{
	char leaf[256], addr[32];
	const char *sym = name_ip(symbolize, arg, st->ips[0], module, addr, sizeof(addr));
	const char *what = strcmp(sym, UNKNOWN) ? NULL : unnamed_what(*module);
	bool owned = strcmp(sym, UNKNOWN) && *module && !adv_is_runtime_module(*module);

	if (!symbolize || owned)
		return sym;
	/* The callback's strings live until its next call: copies. */
	snprintf(leaf, sizeof(leaf), "%s", what ? what : sym);
	snprintf(mbuf, msize, "%s", *module && !what ? *module : "");
	*module = mbuf[0] ? mbuf : NULL;
	snprintf(buf, size, "%s", leaf);
	for (__u32 k = 1; k < st->depth; k++) {
		const char *mod, *caller = name_ip(symbolize, arg, st->ips[k], &mod, addr, sizeof(addr));

		if (strcmp(caller, UNKNOWN) && mod && !adv_is_runtime_module(mod)) {
			const char *base = *module ? strrchr(*module, '/') : NULL;

			/* "clock_gettime (libc.so.6), called from busy_ns" */
			snprintf(buf, size, "%s%s%s%s, called from %s", leaf, *module ? " (" : "",
				 *module ? (base ? base + 1 : *module) : "", *module ? ")" : "", caller);
			*module = NULL;
			break;
		}
	}
	return buf;
}

static long top_rows(const struct samples_result *r, samples_symbolize_fn symbolize, void *arg,
		     bool attribute, struct samples_top **out)
{
	struct samples_top *v = calloc(r->nr_stacks ? r->nr_stacks : 1, sizeof(*v));
	long n = 0;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_stacks; i++) {
		const struct samples_stack *st = &r->stacks[i];
		const char *sym = NO_STACK, *mod = NULL;
		char buf[512], mbuf[256];
		long j;

		if (st->depth && attribute)
			sym = attributed_name(st, symbolize, arg, &mod, buf, sizeof(buf), mbuf,
					      sizeof(mbuf));
		else if (st->depth)
			sym = name_ip(symbolize, arg, st->ips[0], &mod, buf, sizeof(buf));
		for (j = 0; j < n; j++)
			if (!cmp_str(v[j].symbol, sym) && !cmp_str(v[j].module, mod))
				break;
		if (j == n) {
			/* Copies: the callback's strings live until its next call. */
			v[n].symbol = strdup(sym);
			v[n].module = mod ? strdup(mod) : NULL;
			if (!v[n].symbol || (mod && !v[n].module)) {
				samples__top_free(v, n + 1);
				return -ENOMEM;
			}
			n++;
		}
		v[j].count += st->count;
	}
	ss_sort(v, (size_t)n, sizeof(*v), cmp_top);
	*out = v;
	return n;
}

long samples__top(const struct samples_result *r, samples_symbolize_fn symbolize, void *arg,
		  struct samples_top **out)
{
	return top_rows(r, symbolize, arg, false, out);
}

/* True when the counters are the ones a miss ratio is made of. */
static bool has_ratio_counters(const struct samples_result *r)
{
	for (int k = 0; k < SS_SAMPLE_COUNTERS; k++)
		if (cmp_str(r->counter_names[k], ratio_counters[k]))
			return false;
	return true;
}

const char *const samples_drop_keys[SS_SAMPLE_DROPS] = {
	[SS_SAMPLE_DROP_COUNTS_FULL] = "counts_map_full",
	[SS_SAMPLE_DROP_STACK_FAIL] = "stack_failed",
	[SS_SAMPLE_DROP_STACK_COLLISION] = "stack_map_full",
	[SS_SAMPLE_DROP_THREADS_FULL] = "threads_map_full",
	[SS_SAMPLE_DROP_COUNTER_READ] = "counter_read_failed",
	[SS_SAMPLE_DROP_REGS_FULL] = "regs_ring_full",
	[SS_SAMPLE_DROP_REGS_KERNEL] = "regs_in_kernel",
};

static const char *const drop_text[SS_SAMPLE_DROPS] = {
	[SS_SAMPLE_DROP_COUNTS_FULL] = "samples lost: (thread, stack) map full",
	[SS_SAMPLE_DROP_STACK_FAIL] = "samples without a user stack (unreadable)",
	[SS_SAMPLE_DROP_STACK_COLLISION] = "samples without a user stack (stack map full)",
	[SS_SAMPLE_DROP_THREADS_FULL] = "time slices not counted: thread map full",
	[SS_SAMPLE_DROP_COUNTER_READ] = "counter readings failed",
	[SS_SAMPLE_DROP_REGS_FULL] = "samples without registers (ring buffer full)",
	[SS_SAMPLE_DROP_REGS_KERNEL] = "samples in the kernel (no user data address)",
};

/* Adds key: value, or fails the whole object (json-c returns -1 on ENOMEM). */
static bool add(json_object *o, const char *key, json_object *v)
{
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return false;
	}
	return true;
}

static json_object *thread_json(const struct samples_result *r, const struct samples_thread *t)
{
	json_object *o = json_object_new_object(), *c;
	bool ok;

	if (!o)
		return NULL;
	ok = add(o, "tid", json_object_new_int64(t->tid)) &&
	     add(o, "samples", json_object_new_uint64(t->samples));
	if (ok && t->has_counters) {
		c = json_object_new_object();
		ok = c && add(o, "counters", c) && add(o, "slices", json_object_new_uint64(t->slices));
		for (int k = 0; ok && k < SS_SAMPLE_COUNTERS; k++)
			ok = add(c, r->counter_names[k], json_object_new_uint64((uint64_t)t->counter[k]));
		if (ok && has_ratio_counters(r)) {
			ok = add(o, "miss_ratio", t->counter[1] > 0 ?
				 json_object_new_double(t->counter[0] / t->counter[1]) : NULL) &&
			     add(o, "misses_per_kilo_instructions", t->counter[2] > 0 ?
				 json_object_new_double(t->counter[0] * 1000 / t->counter[2]) : NULL);
		}
	}
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static bool add_top_json(json_object *o, const struct samples_result *r,
			 samples_symbolize_fn symbolize, void *arg)
{
	json_object *a = json_object_new_array();
	struct samples_top *top;
	long n = samples__top(r, symbolize, arg, &top);
	bool ok = a && n >= 0 && add(o, "top", a);

	for (long i = 0; ok && i < n; i++) {
		json_object *e = json_object_new_object();

		ok = e && !json_object_array_add(a, e) &&
		     add(e, "symbol", json_object_new_string(top[i].symbol)) &&
		     add(e, "module", top[i].module ? json_object_new_string(top[i].module) : NULL) &&
		     add(e, "count", json_object_new_uint64(top[i].count));
	}
	if (n < 0 && a)
		json_object_put(a);
	samples__top_free(top, n);
	return ok;
}

/* CPUs online for only part of the trace (hotplug): [1, 3]. */
static json_object *cpus_offline_json(const struct samples_result *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < r->nr_cpus_offline; i++)
		if (json_object_array_add(a, json_object_new_int(r->cpus_offline[i]))) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

json_object *samples__to_json(const struct samples_result *r, samples_symbolize_fn symbolize,
			      void *arg)
{
	json_object *o = json_object_new_object(), *d = NULL, *c = NULL, *names = NULL, *threads = NULL;
	bool ok;

	if (!o)
		return NULL;
	ok = add(o, "event", json_object_new_string(r->event ? r->event : "")) &&
	     add(o, "available", json_object_new_boolean(r->available));
	if (ok && !r->available)
		ok = add(o, "reason", json_object_new_string(r->reason));
	/* With a frequency the kernel varies the period: there is none to give. */
	ok = ok && add(o, "period", r->freq ? NULL : json_object_new_uint64(r->period)) &&
	     add(o, "frequency_hz", r->freq ? json_object_new_int64(r->freq) : NULL) &&
	     add(o, "cpus", json_object_new_int(r->cpus)) &&
	     add(o, "cpus_offline", cpus_offline_json(r)) &&
	     add(o, "total", json_object_new_uint64(r->total)) &&
	     (d = json_object_new_object()) && add(o, "dropped", d);
	for (int k = 0; ok && k < SS_SAMPLE_DROPS; k++)
		ok = add(d, samples_drop_keys[k], json_object_new_uint64(r->drops[k]));
	ok = ok && add_top_json(o, r, symbolize, arg) &&
	     (threads = json_object_new_array()) && add(o, "threads", threads);
	for (size_t i = 0; ok && i < r->nr_threads; i++) {
		json_object *t = thread_json(r, &r->threads[i]);

		ok = t && !json_object_array_add(threads, t);
		if (!ok)
			json_object_put(t);
	}
	ok = ok && (c = json_object_new_object()) && add(o, "counters", c) &&
	     add(c, "available", json_object_new_boolean(r->counters_available)) &&
	     (names = json_object_new_array()) && add(c, "events", names);
	for (int k = 0; ok && k < SS_SAMPLE_COUNTERS && r->counter_names[k]; k++)
		ok = !json_object_array_add(names, json_object_new_string(r->counter_names[k]));
	if (ok && !r->counters_available)
		ok = add(c, "reason", json_object_new_string(r->counters_reason));
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Folded-format frames may hold neither ';' (frame separator) nor a line
 * break; a space is fine (the count is after the last one). */
static int append_frame(char **line, size_t *len, size_t *cap, const char *frame)
{
	size_t n = strlen(frame);

	if (*len + n + 2 > *cap) {
		size_t ncap = (*len + n + 2) * 2;
		char *t = realloc(*line, ncap);

		if (!t)
			return -ENOMEM;
		*line = t;
		*cap = ncap;
	}
	if (*len)
		(*line)[(*len)++] = ';';
	for (size_t i = 0; i < n; i++) {
		char ch = frame[i];

		(*line)[(*len)++] = ch == ';' ? ':' : (ch == '\n' || ch == '\r') ? ' ' : ch;
	}
	(*line)[*len] = '\0';
	return 0;
}

/* One frame's name: the function, else "[module]", else "[unknown]". */
static const char *frame_name(samples_symbolize_fn symbolize, void *arg, __u64 ip,
			      char *buf, size_t size)
{
	const char *mod, *name;

	if (!symbolize) {
		snprintf(buf, size, "0x%" PRIx64, (uint64_t)ip);
		return buf;
	}
	name = symbolize(arg, ip, &mod);
	if (name)
		return name;
	if (mod) {
		const char *base = strrchr(mod, '/');

		snprintf(buf, size, "[%s]", base ? base + 1 : mod);
		return buf;
	}
	return UNKNOWN;
}

struct folded_line {
	char *text;
	__u64 count;
};

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

static int fold_stack(const struct samples_stack *st, samples_symbolize_fn symbolize, void *arg,
		      const char *kind, char **line)
{
	size_t len = 0, cap = 0;
	char buf[512];
	int err = 0;

	*line = NULL;
	if (kind && *kind) {
		/* "samples" and "samples;" both name the kind frame. */
		size_t n = strlen(kind);

		snprintf(buf, sizeof(buf), "%.*s", (int)(kind[n - 1] == ';' ? n - 1 : n), kind);
		err = append_frame(line, &len, &cap, buf);
	}
	if (!err && !st->depth)
		err = append_frame(line, &len, &cap, NO_STACK);
	/* Root first; return addresses point after the call: name ip - 1. */
	for (__u32 j = st->depth; !err && j-- > 0;)
		err = append_frame(line, &len, &cap,
				   frame_name(symbolize, arg, j ? st->ips[j] - 1 : st->ips[0],
					      buf, sizeof(buf)));
	if (err) {
		free(*line);
		*line = NULL;
	}
	return err;
}

int samples__write_folded(const struct samples_result *r, FILE *f, samples_symbolize_fn symbolize,
			  void *arg, const char *kind_prefix)
{
	struct folded_line *v = calloc(r->nr_stacks ? r->nr_stacks : 1, sizeof(*v));
	size_t n = 0, m = 0;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (; n < r->nr_stacks; n++) {
		err = fold_stack(&r->stacks[n], symbolize, arg, kind_prefix, &v[n].text);
		if (err)
			goto out;
		v[n].count = r->stacks[n].count;
	}
	/* Different addresses in the same functions fold to the same line. */
	ss_sort(v, n, sizeof(*v), cmp_folded);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1].text, v[i].text)) {
			v[m - 1].count += v[i].count;
			free(v[i].text);
			v[i].text = NULL;
		} else {
			v[m++] = v[i];
			if (m - 1 != i)
				v[i].text = NULL;
		}
	}
	for (size_t i = 0; i < m; i++)
		if (fprintf(f, "%s %" PRIu64 "\n", v[i].text, (uint64_t)v[i].count) < 0)
			err = -EIO;
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
	return err;
}

static void print_period(const struct samples_result *r, FILE *f)
{
	if (r->freq)
		fprintf(f, "%u samples/s per CPU", r->freq);
	else if (r->event && strstr(r->event, "clock"))
		fprintf(f, "one sample every %" PRIu64 " ns on CPU", (uint64_t)r->period);
	else
		fprintf(f, "one sample every %" PRIu64 " %s", (uint64_t)r->period, r->event);
}

static void print_counters(const struct samples_result *r, FILE *f)
{
	bool ratio = has_ratio_counters(r);

	if (!r->counters_available) {
		fprintf(f, "Per-thread %s: not available: %s\n",
			ratio ? "cache-miss ratio" : "counters", r->counters_reason);
		return;
	}
	fprintf(f, "Per-thread counters (time slices that began after attach):\n");
	fprintf(f, "  %8s", "tid");
	for (int k = 0; k < SS_SAMPLE_COUNTERS; k++)
		fprintf(f, " %17s", r->counter_names[k]);
	if (ratio)
		fprintf(f, " %10s %8s", "miss-ratio", "MPKI");
	fputc('\n', f);
	for (size_t i = 0; i < r->nr_threads; i++) {
		const struct samples_thread *t = &r->threads[i];

		if (!t->has_counters)
			continue;
		fprintf(f, "  %8u", t->tid);
		for (int k = 0; k < SS_SAMPLE_COUNTERS; k++)
			fprintf(f, " %17.0f", t->counter[k]);
		if (ratio && t->counter[1] > 0)
			fprintf(f, " %9.2f%%", 100 * t->counter[0] / t->counter[1]);
		else if (ratio)
			fprintf(f, " %10s", "-");
		if (ratio && t->counter[2] > 0)
			fprintf(f, " %8.2f", 1000 * t->counter[0] / t->counter[2]);
		else if (ratio)
			fprintf(f, " %8s", "-");
		fputc('\n', f);
	}
}

int samples__print_text(const struct samples_result *r, FILE *f, samples_symbolize_fn symbolize,
			void *arg, int top_n)
{
	struct samples_top *top = NULL;
	long n = 0;

	if (!r->available) {
		fprintf(f, "Samples (%s): not available: %s\n", r->event, r->reason);
	} else {
		fprintf(f, "Samples (%s, ", r->event);
		print_period(r, f);
		fprintf(f, ", %d CPUs): %" PRIu64 " samples of the target\n", r->cpus,
			(uint64_t)r->total);
		if (r->nr_cpus_offline) {
			fprintf(f, "  CPU hotplug: CPU");
			for (size_t i = 0; i < r->nr_cpus_offline; i++)
				fprintf(f, "%s%d", i ? "," : " ", r->cpus_offline[i]);
			fprintf(f, " offline for part of the trace (sampled from when seen online)\n");
		}
		n = top_rows(r, symbolize, arg, true, &top);
		if (n < 0)
			return (int)n;
		if (n)
			fprintf(f, "  %8s %6s  %s\n", "samples", "share",
				"function (module); the runtime's and unnamed code with the caller of yours");
		for (long i = 0; i < n && i < top_n; i++) {
			fprintf(f, "  %8" PRIu64 " %5.1f%%  %s", (uint64_t)top[i].count,
				r->total ? 100.0 * (double)top[i].count / (double)r->total : 0.0,
				top[i].symbol);
			if (top[i].module)
				fprintf(f, " (%s)", top[i].module);
			fputc('\n', f);
		}
		if (n > top_n)
			fprintf(f, "  ... %ld more functions\n", n - top_n);
		samples__top_free(top, n);
	}
	for (int k = 0; k < SS_SAMPLE_DROPS; k++)
		if (r->drops[k])
			fprintf(f, "  dropped: %" PRIu64 " %s\n", (uint64_t)r->drops[k], drop_text[k]);
	print_counters(r, f);
	return ferror(f) ? -EIO : 0;
}

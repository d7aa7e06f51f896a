// SPDX-License-Identifier: GPL-2.0
/*
 * numa: what memory placement costs on this host. Interleaving a JVM heap
 * over the nodes of a 4-socket machine once gained 14%, NUMA-aware
 * allocation 37%. For memory local to a thread, on each other node,
 * interleaved over all nodes, first-touched by each thread, and all on one
 * node, this family measures read bandwidth and dependent-load (pointer
 * chase) latency, after checking with move_pages() that the pages really
 * are where the policy said. The topology and the plan come from the pure
 * calib_numa_topo.c; a one-node host is skipped with that reason.
 */
#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "calib.h"
#include "calib_json.h"
#include "calib_numa.h"
#include "calib/kern/calib_numa_topo.h"
#include "calib/kern/calib_util.h"
#include "calib/kern/fingerprint.h"

#define MIB (1024ULL * 1024)
#define LINE 64
/* Slices and buffers in units of a transparent huge page, so that no huge
 * page straddles two threads' first-touch slices. */
#define SLICE_ALIGN (2 * MIB)
/* Pages sampled for the placement check. */
#define CHECK_PAGES 1024

struct numa_run {
	const struct calib_ctx *ctx;
	const struct numa_topo *topo;
	size_t size;			/* bytes per buffer */
	int reps;
	uint64_t chase_steps;
};

/* The buffer of one case, placed by policy or by first touch. */
struct numa_buf {
	char *mem;
	size_t size;
	size_t slice;			/* bytes each member reads (and first-touches) */
	int team_cpus[CPU_SETSIZE];	/* member i's CPU */
	int team_size;
};

/* ---- buffers and placement ------------------------------------------------ */

static void nodemask_set(unsigned long *mask, int node)
{
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
}

/* Applies the case's policy to the (untouched) mapping. */
static int place(const struct numa_topo *t, const struct numa_case *c, struct numa_buf *b)
{
	unsigned long mask[NUMA_MAX_NODES / (8 * sizeof(long)) + 1] = { 0 };
	int mode;

	switch (c->kind) {
	case NUMA_LOCAL:
	case NUMA_REMOTE:
	case NUMA_ONE_NODE:
		nodemask_set(mask, c->mem_node);
		mode = MPOL_BIND;
		break;
	case NUMA_INTERLEAVE:
		for (int i = 0; i < t->nnodes; i++)
			if (t->has_memory[i])
				nodemask_set(mask, t->id[i]);
		mode = MPOL_INTERLEAVE;
		break;
	case NUMA_FIRST_TOUCH:
		/* Each page on the node of the CPU that touches it first, as
		 * the default policy does, but as a policy of this mapping:
		 * automatic NUMA balancing (numa_balancing=1, the default on a
		 * multi-node host) then leaves it alone, where with the default
		 * policy it unmaps the pages for its hinting faults and moves
		 * them between the check and the timing (in the two-node guest
		 * half a slice read "not present" or on the other node). */
		if (mbind(b->mem, b->size, MPOL_LOCAL, NULL, 0, MPOL_MF_STRICT))
			return -errno;
		return 0;
	default:
		return -EINVAL;	/* not a kind of case */
	}
	if (mbind(b->mem, b->size, mode, mask, NUMA_MAX_NODES + 1, MPOL_MF_STRICT))
		return -errno;
	return 0;
}

/* Fills the buffer with one random cycle through all its cache lines
 * (Sattolo's algorithm), so that each load depends on the one before and
 * no prefetcher can guess the next. Touching writes every page, which for
 * first touch happens in the member that owns the slice. */
static void chase_build(char *mem, size_t size, uint64_t seed)
{
	size_t lines = size / LINE;
	uint32_t *order = malloc(lines * sizeof(*order));
	uint64_t x = seed | 1;

	if (!order) {
		/* Sequential fallback keeps the buffer valid, just prefetchable. */
		for (size_t i = 0; i < lines; i++)
			*(char **)(mem + i * LINE) = mem + ((i + 1) % lines) * LINE;
		return;
	}
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j;
		uint32_t tmp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % i);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (size_t i = 0; i < lines; i++)
		*(char **)(mem + (size_t)order[i] * LINE) = mem + (size_t)order[(i + 1) % lines] * LINE;
	free(order);
}

struct touch_arg {
	struct numa_buf *b;
};

static void touch_member(int idx, void *arg)
{
	struct numa_buf *b = ((struct touch_arg *)arg)->b;
	char *slice = b->mem + (size_t)idx * b->slice;

	/* Each member writes only its own slice: the kernel puts those pages
	 * on the member's node. */
	chase_build(slice, b->slice, 0x9E3779B97F4A7C15ULL + (uint64_t)idx);
}

static int buf_create(const struct numa_run *r, const struct numa_case *c, struct numa_buf *b)
{
	int err;

	memset(b, 0, sizeof(*b));
	b->size = r->size;
	b->mem = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->mem == MAP_FAILED)
		return -errno;
	madvise(b->mem, b->size, MADV_HUGEPAGE);	/* fewer TLB misses in the chase */
	err = place(r->topo, c, b);
	if (err)
		return err;
	/* Every member reads (and for first touch, writes first) its slice. */
	b->team_size = c->kind >= NUMA_INTERLEAVE ? c->team_size : 1;
	for (int i = 0; i < b->team_size; i++)
		b->team_cpus[i] = b->team_size > 1 ? calib__nth_cpu(&c->team, i) : c->cpu;
	b->slice = (b->size / (size_t)b->team_size) / SLICE_ALIGN * SLICE_ALIGN;
	if (!b->slice)
		return -ENOMEM;
	if (c->kind == NUMA_FIRST_TOUCH) {
		struct calib_team_result res;
		struct touch_arg a = { b };

		err = calib_team__run(&c->team, c->team_size, touch_member, &a, &res);
		if (!err)
			calib_team__free(&res);
		return err;
	}
	chase_build(b->mem, b->size, 0x9E3779B97F4A7C15ULL);
	return 0;
}

static void buf_free(struct numa_buf *b)
{
	if (b->mem && b->mem != MAP_FAILED)
		munmap(b->mem, b->size);
}

static int node_of_cpu(const struct numa_topo *t, int cpu)
{
	for (int i = 0; i < t->nnodes; i++)
		if (CPU_ISSET(cpu, &t->cpus[i]))
			return t->id[i];
	return -1;
}

/* Asks the kernel where a sample of the pages lie and judges the answer. */
static int verify(const struct numa_run *r, const struct numa_case *c, const struct numa_buf *b,
		  struct numa_placement *out)
{
	size_t page = 4096, npages = b->size / page;
	int n = npages < CHECK_PAGES ? (int)npages : CHECK_PAGES;
	void **pages = malloc(sizeof(void *) * (size_t)n);
	int *status = malloc(sizeof(int) * (size_t)n), *expect = malloc(sizeof(int) * (size_t)n);
	int err = 0;

	if (!pages || !status || !expect) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		size_t off = (size_t)i * (npages / (size_t)n) * page;

		pages[i] = b->mem + off;
		if (c->kind == NUMA_FIRST_TOUCH) {
			size_t member = off / b->slice;

			expect[i] = member < (size_t)b->team_size ?
				node_of_cpu(r->topo, b->team_cpus[member]) : -1;
		} else {
			expect[i] = c->mem_node;
		}
	}
	if (move_pages(0, (unsigned long)n, pages, NULL, status, 0)) {
		err = -errno;
		goto out;
	}
	if (c->kind == NUMA_INTERLEAVE) {
		int nodes[NUMA_MAX_NODES], k = 0;

		for (int i = 0; i < r->topo->nnodes; i++)
			if (r->topo->has_memory[i])
				nodes[k++] = r->topo->id[i];
		numa_placement__check_interleave(r->topo, status, n, nodes, k, 0.25, out);
	} else if (c->kind == NUMA_FIRST_TOUCH) {
		/* Pages past the last full slice were never touched: skip them. */
		int m = 0;

		for (int i = 0; i < n; i++)
			if (expect[i] >= 0) {
				status[m] = status[i];
				expect[m++] = expect[i];
			}
		numa_placement__check(r->topo, status, expect, m, 0.02, out);
	} else {
		numa_placement__check(r->topo, status, expect, n, 0, out);
	}
out:
	free(pages);
	free(status);
	free(expect);
	return err;
}

/* ---- kernels -------------------------------------------------------------- */

static uint64_t read_sum(const uint64_t *p, size_t n)
{
	uint64_t a = 0, b = 0, c = 0, d = 0;

	for (size_t i = 0; i + 4 <= n; i += 4) {
		a += p[i];
		b += p[i + 1];
		c += p[i + 2];
		d += p[i + 3];
	}
	return a + b + c + d;
}

struct bw_arg {
	const struct numa_buf *b;
	volatile uint64_t sink;
};

/* Passes over the slice per sample: one pass of a buffer sized for a small
 * cache is only milliseconds, too short against a scheduler tick. */
#define BW_PASSES 3

static void bw_member(int idx, void *arg)
{
	struct bw_arg *a = arg;

	for (int i = 0; i < BW_PASSES; i++)
		a->sink += read_sum((const uint64_t *)(a->b->mem + (size_t)idx * a->b->slice),
				    a->b->slice / sizeof(uint64_t));
}

/* GB/s reading every member's slice BW_PASSES times, all members at once. */
static int bandwidth(const cpu_set_t *cpus, const struct numa_buf *b, double *gbs)
{
	struct bw_arg a = { .b = b };
	struct calib_team_result res;
	int err = calib_team__run(cpus, b->team_size, bw_member, &a, &res);

	if (err)
		return err;
	*gbs = (double)(b->slice * (size_t)b->team_size * BW_PASSES) / (double)res.wall_ns;
	calib_team__free(&res);
	return 0;
}

struct chase_arg {
	const struct numa_buf *b;
	uint64_t steps;
	uint64_t ns;
	void *volatile end;
};

static void chase_member(int idx, void *arg)
{
	struct chase_arg *a = arg;
	char *p = a->b->mem;
	uint64_t t0 = calib__now_ns();

	for (uint64_t i = 0; i < a->steps; i++)
		p = *(char **)p;
	a->ns = calib__now_ns() - t0;
	a->end = p;
}

static int latency(int cpu, const struct numa_buf *b, uint64_t steps, double *ns)
{
	struct chase_arg a = { .b = b, .steps = steps };
	struct calib_team_result res;
	cpu_set_t one;
	int err;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	err = calib_team__run(&one, 1, chase_member, &a, &res);
	if (err)
		return err;
	calib_team__free(&res);
	*ns = (double)a.ns / (double)steps;
	return 0;
}

/* ---- one case ------------------------------------------------------------- */

static json_object *placement_json(const struct numa_topo *t, const struct numa_placement *p)
{
	json_object *o = json_object_new_object(), *per = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_boolean(p->ok));
	json_object_object_add(o, "pages_checked", json_object_new_int(p->pages));
	json_object_object_add(o, "as_expected", json_object_new_int(p->as_expected));
	for (int i = 0; i < t->nnodes; i++)
		if (p->per_node[i]) {
			char key[16];

			snprintf(key, sizeof(key), "%d", t->id[i]);
			json_object_object_add(per, key, json_object_new_int(p->per_node[i]));
		}
	json_object_object_add(o, "pages_per_node", per);
	if (!p->ok)
		json_object_object_add(o, "why", json_object_new_string(p->why));
	return o;
}

static int run_case(const struct numa_run *r, const struct numa_case *c, json_object *o)
{
	bool team = c->kind >= NUMA_INTERLEAVE;
	bool chase = c->kind <= NUMA_INTERLEAVE;
	int cpu = team ? calib__nth_cpu(&c->team, 0) : c->cpu;
	double bw[32], lat[32];
	struct numa_placement pl;
	struct numa_buf b;
	cpu_set_t one, *cpus = &one;
	int n = 0, err;

	json_object_object_add(o, "kind", json_object_new_string(numa_case__kind_name(c->kind)));
	json_object_object_add(o, "cpu_node", c->cpu_node >= 0 ? json_object_new_int(c->cpu_node) : NULL);
	json_object_object_add(o, "mem_node", c->mem_node >= 0 ? json_object_new_int(c->mem_node) : NULL);
	json_object_object_add(o, "distance", c->distance ? json_object_new_int(c->distance) : NULL);
	json_object_object_add(o, "threads", json_object_new_int(team ? c->team_size : 1));
	json_object_object_add(o, "cpu", json_object_new_int(cpu));

	err = buf_create(r, c, &b);
	if (!err)
		err = verify(r, c, &b, &pl);
	if (err) {
		char why[128];

		snprintf(why, sizeof(why), "cannot place the memory: %s", strerror(-err));
		calib_json__skip(o, why);
		buf_free(&b);
		return 0;
	}
	json_object_object_add(o, "placement", placement_json(r->topo, &pl));
	if (!pl.ok) {
		/* Timing memory that is not where we think would be noise. */
		calib_json__skip(o, pl.why);
		buf_free(&b);
		return 0;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (team)
		cpus = (cpu_set_t *)&c->team;
	/* One untimed pass: page-table and TLB warm-up after the first touch. */
	err = bandwidth(cpus, &b, &bw[0]);
	for (int rep = 0; rep < r->reps && !calib__stopped(r->ctx) && !err; rep++) {
		err = bandwidth(cpus, &b, &bw[n]);
		if (!err && chase)
			err = latency(cpu, &b, r->chase_steps, &lat[n]);
		if (!err)
			n++;
	}
	buf_free(&b);
	if (err)
		return err;
	if (n) {
		struct calib_stats st;

		calib_stats__compute(&st, bw, n);
		json_object_object_add(o, "bandwidth_gbs", calib_stats__json(&st, CALIB_CV_CONTENTION, NULL));
		if (chase) {
			calib_stats__compute(&st, lat, n);
			json_object_object_add(o, "latency_ns",
					       calib_stats__json(&st, CALIB_CV_CONTENTION, NULL));
		}
	}
	return 0;
}

int calib_numa__case(const struct calib_ctx *ctx, const struct numa_topo *t,
		     const struct numa_case *c, size_t size, int reps, uint64_t chase_steps,
		     json_object *out)
{
	struct numa_run r = {
		.ctx = ctx, .topo = t, .size = size, .reps = reps, .chase_steps = chase_steps,
	};

	if (reps < 1 || reps > 32 || size < SLICE_ALIGN)
		return -EINVAL;
	return run_case(&r, c, out);
}

/* ---- the family ----------------------------------------------------------- */

/* The largest cache of this host in bytes (from the fingerprint), or 0. */
static size_t largest_cache(void)
{
	struct ss_fingerprint *fp = malloc(sizeof(*fp));
	size_t best = 0;

	if (fp && fingerprint__read(NULL, fp) == 0)
		for (int i = 0; i < fp->ncaches; i++)
			if ((size_t)fp->caches[i].size_kb * 1024 > best)
				best = (size_t)fp->caches[i].size_kb * 1024;
	free(fp);
	return best;
}

static json_object *topo_json(const struct numa_topo *t)
{
	json_object *nodes = json_object_new_array();

	for (int i = 0; i < t->nnodes; i++) {
		json_object *n = json_object_new_object(), *d = json_object_new_array();

		json_object_object_add(n, "node", json_object_new_int(t->id[i]));
		json_object_object_add(n, "cpus", json_object_new_int(CPU_COUNT(&t->cpus[i])));
		json_object_object_add(n, "memory", json_object_new_boolean(t->has_memory[i]));
		for (int j = 0; j < t->nnodes; j++)
			json_object_array_add(d, json_object_new_int(t->distance[i][j]));
		json_object_object_add(n, "distance", d);
		json_object_array_add(nodes, n);
	}
	return nodes;
}

static double case_median(const json_object *c, const char *key)
{
	struct calib_stats st;

	return calib_stats__from_json(c, key, &st, NULL) ? st.median : 0;
}

/* Ratios the advisor acts on, from the medians of the measured cases. */
static void add_summary(json_object *result, json_object *cases)
{
	double local_lat = 0, remote_lat = 0, local_bw = 0, remote_bw = 0;
	double inter_bw = 0, first_bw = 0, one_bw = 0, inter_lat = 0;
	int nl = 0, nr = 0;
	json_object *s = json_object_new_object();

	for (size_t i = 0; i < calib_json__len(cases); i++) {
		json_object *c = calib_json__at(cases, i);
		const char *kind = calib_json__string(c, "kind", "");

		if (!json_object_object_get_ex(c, "bandwidth_gbs", NULL))
			continue;
		if (!strcmp(kind, "local")) {
			local_lat += case_median(c, "latency_ns");
			local_bw += case_median(c, "bandwidth_gbs");
			nl++;
		} else if (!strcmp(kind, "remote")) {
			/* The worst remote pair is what a bad placement costs. */
			if (case_median(c, "latency_ns") > remote_lat) {
				remote_lat = case_median(c, "latency_ns");
				remote_bw = case_median(c, "bandwidth_gbs");
			}
			nr++;
		} else if (!strcmp(kind, "interleave")) {
			inter_bw = case_median(c, "bandwidth_gbs");
			inter_lat = case_median(c, "latency_ns");
		} else if (!strcmp(kind, "first_touch")) {
			first_bw = case_median(c, "bandwidth_gbs");
		} else if (!strcmp(kind, "one_node")) {
			one_bw = case_median(c, "bandwidth_gbs");
		}
	}
#define PUT(key, cond, v) json_object_object_add(s, key, (cond) ? json_object_new_double(v) : NULL)
	PUT("local_latency_ns", nl, local_lat / nl);
	PUT("remote_latency_ns", nr, remote_lat);
	PUT("remote_over_local_latency", nl && nr && local_lat > 0, remote_lat / (local_lat / nl));
	PUT("local_bandwidth_gbs", nl, local_bw / nl);
	PUT("remote_bandwidth_gbs", nr, remote_bw);
	PUT("interleave_latency_ns", inter_lat > 0, inter_lat);
	PUT("interleave_bandwidth_gbs", inter_bw > 0, inter_bw);
	PUT("first_touch_bandwidth_gbs", first_bw > 0, first_bw);
	PUT("one_node_bandwidth_gbs", one_bw > 0, one_bw);
	PUT("interleave_over_one_node_bandwidth", inter_bw > 0 && one_bw > 0, inter_bw / one_bw);
	PUT("first_touch_over_one_node_bandwidth", first_bw > 0 && one_bw > 0, first_bw / one_bw);
#undef PUT
	json_object_object_add(result, "summary", s);
}

/* "remote memory: 1.62x the latency of local (...)", from the summary. */
static void latency_headline(const json_object *s, char *buf, size_t len)
{
	double rl = calib_json__double(s, "remote_over_local_latency", 0);

	buf[0] = '\0';
	if (rl > 0)
		snprintf(buf, len, "remote memory: %.2fx the latency of local (%.0f ns against %.0f ns)",
			 rl, calib_json__double(s, "remote_latency_ns", 0),
			 calib_json__double(s, "local_latency_ns", 0));
}

static void add_headline(json_object *result)
{
	json_object *s;
	char line[256];

	if (!json_object_object_get_ex(result, "summary", &s))
		return;
	latency_headline(s, line, sizeof(line));
	if (line[0])
		json_object_object_add(result, "headline", json_object_new_string(line));
}

static int numa_run(const struct calib_ctx *ctx, json_object *result)
{
	struct numa_topo *t = malloc(sizeof(*t));
	struct numa_plan *plan = malloc(sizeof(*plan));
	struct numa_run r = { .ctx = ctx, .topo = t };
	json_object *cases;
	char why[256];
	size_t cache;
	int err = 0;

	if (!t || !plan) {
		free(t);
		free(plan);
		return -ENOMEM;
	}
	if (numa_topo__read(NULL, t, why, sizeof(why))) {
		calib_json__skip(result, why);
		goto out;
	}
	json_object_object_add(result, "nodes", topo_json(t));
	json_object_object_add(result, "node_count", json_object_new_int(t->nnodes));
	numa_plan__make(t, &ctx->cpus, ctx->quick, ctx->quick ? 2 : 0, plan);
	if (plan->skip) {
		calib_json__skip(result, plan->why);
		goto out;
	}
	/* Well beyond the caches, so that loads go to memory. */
	cache = largest_cache();
	r.size = ctx->quick ? 64 * MIB : 512 * MIB;
	while (r.size < 4 * cache && r.size < 2048 * MIB)
		r.size *= 2;
	r.reps = ctx->quick ? 5 : 9;
	r.chase_steps = ctx->quick ? 200000 : 2000000;
	json_object_object_add(result, "buffer_mib", json_object_new_int((int)(r.size / MIB)));
	if (plan->remote_left_out)
		json_object_object_add(result, "remote_pairs_left_out",
				       json_object_new_int(plan->remote_left_out));
	cases = json_object_new_array();
	json_object_object_add(result, "cases", cases);
	for (int i = 0; i < plan->ncases && !err && !calib__stopped(ctx); i++) {
		json_object *o = json_object_new_object();

		json_object_array_add(cases, o);
		err = run_case(&r, &plan->cases[i], o);
		calib__progress(ctx, (double)(i + 1) / plan->ncases);
	}
	add_summary(result, cases);
	add_headline(result);
out:
	free(t);
	free(plan);
	return err;
}

/* obj[key] as an int; -1 when absent or null ("all nodes", "-"). */
static int int_of(const json_object *obj, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int(v);
}

static void numa_print(const json_object *r, FILE *out)
{
	json_object *cases, *s;
	char a[40], b[40], line[256];

	if (json_object_get_boolean(json_object_object_get(r, "skipped"))) {
		fprintf(out, "  skipped: %s\n", calib_json__string(r, "reason", "?"));
		return;
	}
	if (json_object_object_get_ex(r, "summary", &s)) {
		double il = calib_json__double(s, "interleave_over_one_node_bandwidth", 0);
		double ft = calib_json__double(s, "first_touch_over_one_node_bandwidth", 0);

		latency_headline(s, line, sizeof(line));
		if (line[0])
			fprintf(out, "  %s\n", line);
		if (il > 0 && ft > 0)
			fprintf(out, "  all threads: first-touch placement %.2fx and interleaving %.2fx the "
				"bandwidth of all memory on one node\n", ft, il);
	}
	if (!json_object_object_get_ex(r, "cases", &cases))
		return;
	fprintf(out, "\n    %-12s %8s %8s %8s %8s %18s %18s\n", "placement", "cpu node", "mem node",
		"distance", "threads", "GB/s", "latency ns");
	for (size_t i = 0; i < calib_json__len(cases); i++) {
		json_object *c = calib_json__at(cases, i);
		char cn[16] = "all", mn[16] = "-", dist[16] = "-";

		if (int_of(c, "cpu_node") >= 0)
			snprintf(cn, sizeof(cn), "%d", int_of(c, "cpu_node"));
		if (int_of(c, "mem_node") >= 0)
			snprintf(mn, sizeof(mn), "%d", int_of(c, "mem_node"));
		if (int_of(c, "distance") > 0)
			snprintf(dist, sizeof(dist), "%d", int_of(c, "distance"));
		if (json_object_get_boolean(json_object_object_get(c, "skipped"))) {
			fprintf(out, "    %-12s %8s %8s %8s %8d  skipped: %s\n",
				calib_json__string(c, "kind", "?"), cn, mn, dist,
				(int)calib_json__double(c, "threads", 0),
				calib_json__string(c, "reason", "?"));
			continue;
		}
		fprintf(out, "    %-12s %8s %8s %8s %8d %18s %18s\n", calib_json__string(c, "kind", "?"),
			cn, mn, dist, (int)calib_json__double(c, "threads", 0),
			calib_json__cell(c, "bandwidth_gbs", "%.2f", a, sizeof(a)),
			calib_json__cell(c, "latency_ns", "%.0f", b, sizeof(b)));
	}
}

/* Nothing to measure where the CPUs asked for span fewer than two nodes
 * (the run's own rule: numa_plan__make()). */
static double numa_expected_seconds(const struct calib_ctx *ctx)
{
	struct numa_topo *t = calloc(1, sizeof(*t));
	struct numa_plan *plan = calloc(1, sizeof(*plan));
	double s = 0;
	char why[256];

	if (t && plan && !numa_topo__read(NULL, t, why, sizeof(why))) {
		numa_plan__make(t, &ctx->cpus, ctx->quick, ctx->quick ? 2 : 0, plan);
		if (!plan->skip)
			s = ctx->quick ? calib_numa.quick_seconds : calib_numa.full_seconds;
	}
	free(t);
	free(plan);
	return s;
}

const struct calib_family calib_numa = {
	.key = "numa",
	.title = "NUMA placement",
	.quick_seconds = 0.5,
	.full_seconds = 60,
	.expected_seconds = numa_expected_seconds,
	.run = numa_run,
	.print = numa_print,
};

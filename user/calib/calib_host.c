// SPDX-License-Identifier: GPL-2.0
/* Calibration results (calibrate's JSON) to the advisor's host struct, and
 * the quiet calibration run -p makes when none is stored. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "calib_host.h"
#include "calib_store.h"
#include "calib_json.h"
#include "calib/kern/calib_util.h"
#include "advisor/hostcal.h"
#include "common/errors.h"

/* obj.a.b... as an object, or NULL. */
static json_object *path(const json_object *obj, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;

	if (!obj || !json_object_object_get_ex(obj, a, &x))
		return NULL;
	if (!b)
		return x;
	return json_object_object_get_ex(x, b, &y) ? y : NULL;
}

/* A count from JSON: UINT32_MAX for what no uint32_t holds (negative,
 * NaN, 1e308), which every bound below then rejects. */
static uint32_t to_u32(double v)
{
	return isfinite(v) && v >= 0 && v < 4294967295.0 ? (uint32_t)v : UINT32_MAX;
}

/* A family's object when it was measured (not skipped). */
static json_object *family(const json_object *results, const char *key)
{
	json_object *f = path(results, key, NULL);

	if (!f || json_object_get_boolean(path(f, "skipped", NULL)))
		return NULL;
	return f;
}

/* The median of a {median, ...} figure, or the number itself. */
static double figure(const json_object *obj, const char *key)
{
	json_object *v = path(obj, key, NULL);

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_object))
		return calib_json__double(v, "median", 0);
	return json_object_get_double(v);
}

static void fill_false_sharing(const json_object *f, struct adv_host_false_sharing *o)
{
	json_object *rows = path(f, "rows", NULL);
	int threads = (int)to_u32(calib_json__double(f, "headline_threads", 2));

	if (!json_object_is_type(rows, json_type_array))
		rows = NULL;

	/* A family that failed has an "error" and none of its figures. */
	o->present = path(f, "ratio_unpadded_padded", NULL) != NULL;
	if (!o->present)
		return;
	o->ratio_2t = calib_json__double(f, "ratio_unpadded_padded", 0);
	o->interference_bytes = to_u32(calib_json__double(f, "destructive_interference", 0));
	o->cache_line_bytes = to_u32(calib_json__double(f, "cache_line_sysfs", 0));
	/* Concurrent when the headline row's threads really overlapped. */
	for (size_t i = 0; rows && i < calib_json__len(rows); i++) {
		json_object *r = calib_json__at(rows, i);

		if ((int)to_u32(calib_json__double(r, "threads", 0)) == threads)
			o->concurrent = figure(r, "overlap") >= CALIB_OVERLAP_OK;
	}
}

static void fill_spin_hint(const json_object *f, const char *machine, struct adv_host_spin_hint *o)
{
	json_object *per = path(f, "ns_per_hint", NULL), *un = path(f, "unavailable", NULL);

	/* A hand-edited file may hold anything: only the shapes written. */
	o->present = json_object_is_type(per, json_type_object);
	if (!o->present)
		return;
	if (!json_object_is_type(un, json_type_array))
		un = NULL;
	snprintf(o->arch, sizeof(o->arch), "%s", machine);
	json_object_object_foreach(per, name, v) {
		struct adv_hint *h;

		if (o->nhints == ADV_MAX_HINTS)
			break;
		h = &o->hints[o->nhints++];
		snprintf(h->name, sizeof(h->name), "%s", name);
		h->ns = calib_json__double(v, "median", 0);
		h->available = true;
	}
	for (size_t i = 0; un && i < calib_json__len(un) && o->nhints < ADV_MAX_HINTS; i++) {
		struct adv_hint *h = &o->hints[o->nhints++];

		snprintf(h->name, sizeof(h->name), "%s",
			 calib_json__string(calib_json__at(un, i), "hint", ""));
	}
}

static void fill_best(const json_object *level, struct adv_best *o, struct adv_region *g)
{
	json_object *reg = path(level, "region", NULL), *best = path(reg, "pick", NULL);

	/* Files from before the good region: the raw best stands alone. */
	if (!best)
		best = path(level, "best", NULL);
	snprintf(o->strategy, sizeof(o->strategy), "%s", calib_json__string(best, "strategy", ""));
	o->n = to_u32(calib_json__double(best, "spins", 0));
	o->throughput = calib_json__double(best, "acq_per_s", 0);
	o->mutex_throughput = calib_json__double(level, "mutex_acq_per_s", 0);
	g->n_min = to_u32(calib_json__double(reg, "spins_min", o->n));
	g->n_max = to_u32(calib_json__double(reg, "spins_max", o->n));
	if (json_object_is_type(path(reg, "members", NULL), json_type_array))
		g->size = (uint32_t)calib_json__len(path(reg, "members", NULL));
	g->spread = calib_json__double(reg, "spread", 0);
	g->separated = reg ? json_object_get_boolean(path(reg, "separated", NULL)) : true;
}

/* A region's member_configs (calib_spin_threshold__region()): at
 * most ADV_MAX_REGION_MEMBERS, spins NaN where absent or not a number, so
 * that check_states() rejects rather than reads 0. */
static void fill_members(const json_object *reg, struct adv_distance_state *x)
{
	json_object *arr = path(reg, "member_configs", NULL), *swept = path(reg, "spins_swept", NULL);

	/* Swept counts: ascending and in range, else none (no range claimed). */
	x->nswept = 0;
	for (size_t i = 0; i < calib_json__len(swept) && i < ADV_MAX_SWEPT; i++) {
		double v = json_object_get_double(calib_json__at(swept, i));

		if (!(v >= 0 && v <= (1 << 20)) || (x->nswept && v <= x->swept[x->nswept - 1])) {
			x->nswept = 0;
			break;
		}
		x->swept[x->nswept++] = (uint32_t)v;
	}
	x->nmembers = 0;
	if (!json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < calib_json__len(arr); i++) {
		json_object *m = calib_json__at(arr, i);
		double n = calib_json__double(m, "spins", NAN);
		struct adv_lock_config *c;

		if (x->nmembers == ADV_MAX_REGION_MEMBERS) {
			x->nmembers = ADV_MAX_REGION_MEMBERS + 1;	/* too many: rejected */
			return;
		}
		c = &x->members[x->nmembers++];
		snprintf(c->strategy, sizeof(c->strategy), "%s", calib_json__string(m, "strategy", ""));
		c->n = isfinite(n) && n >= 0 && n <= (1 << 20) ? (uint32_t)n : UINT32_MAX;
	}
}

/* A level's cpu_distance.states (add_states() in calib_spin_threshold.c),
 * nearest first, each with its region read as the level's is; *declared
 * gets how many the file lists, so that a longer list is rejected rather
 * than cut. */
static void fill_states(const json_object *level, struct adv_distance_states *o, size_t *declared)
{
	json_object *states = path(path(level, "cpu_distance", NULL), "states", NULL);

	memset(o, 0, sizeof(*o));
	*declared = 0;
	if (!json_object_is_type(states, json_type_array))
		return;
	*declared = calib_json__len(states);
	for (size_t i = 0; i < *declared && o->n < ADV_MAX_STATES; i++) {
		json_object *st = calib_json__at(states, i);
		struct adv_distance_state *x = &o->s[o->n++];

		/* Absent is NaN: a state without its distance is no state. */
		x->round_trip_ns = calib_json__double(st, "round_trip_ns", NAN);
		x->share = calib_json__double(st, "share", NAN);
		snprintf(x->carried_from, sizeof(x->carried_from), "%s",
			 calib_json__string(st, "carried_from", ""));
		/* region null (too few runs at this distance): no best. */
		if (path(st, "region", NULL)) {
			fill_best(st, &x->best, &x->region);
			fill_members(path(st, "region", NULL), x);
		}
	}
}

static void fill_host_costs(const json_object *f, struct adv_host_costs *o)
{
	json_object *s = path(f, "summary", NULL);

	o->present = s != NULL;
	o->futex_handoff_same_ns = calib_json__double(s, "futex_handoff_same_cpu_ns", 0);
	o->futex_handoff_cross_ns = calib_json__double(s, "futex_handoff_cross_cpu_ns", 0);
	o->yield_alone_ns = calib_json__double(s, "yield_alone_ns", 0);
	o->yield_peer_ns = calib_json__double(s, "yield_with_peer_ns", 0);
	o->cacheline_rtt_ns = calib_json__double(s, "c2c_median_ns", 0);
	/* A negative or absent figure (noise, or no BPF) is not a cost. */
	o->trace_event_ns = calib_json__double(s, "tracing_ns_per_event", 0);
	if (o->trace_event_ns < 0)
		o->trace_event_ns = 0;
	o->futex_call_ns = calib_json__double(s, "futex_call_ns", 0);
}

static void fill_numa(const json_object *f, struct adv_host_numa *o)
{
	json_object *s = path(f, "summary", NULL);

	o->present = s != NULL;
	o->nodes = to_u32(calib_json__double(f, "node_count", 0));
	o->local_ns = calib_json__double(s, "local_latency_ns", 0);
	o->remote_ns = calib_json__double(s, "remote_latency_ns", 0);
	o->interleaved_ns = calib_json__double(s, "interleave_latency_ns", 0);
	o->local_gbs = calib_json__double(s, "local_bandwidth_gbs", 0);
	o->remote_gbs = calib_json__double(s, "remote_bandwidth_gbs", 0);
	o->interleaved_gbs = calib_json__double(s, "interleave_bandwidth_gbs", 0);
}

static void fill_memory_order(const json_object *f, struct adv_host_memory_order *o)
{
	json_object *u = path(f, "uncontended", NULL);

	o->present = u != NULL;
	o->relaxed_store_ns = figure(u, "store_relaxed");
	o->release_store_ns = figure(u, "store_release");
	o->seq_cst_store_ns = figure(u, "store_seq_cst");
	o->store_fence_ns = figure(u, "store_fence");
	o->cas_seq_cst_ns = figure(u, "cas_seq_cst");
	o->cas_release_ns = figure(u, "cas_release");
}

/* --- validation ----------------------------------------------------------
 * A stored figure is a number a person or a disk may have mangled: every
 * one is checked before the advisor sees it, and a family with one figure
 * that is not finite, not positive where a cost must be, or outside what
 * any host can measure, is rejected whole (one warning naming the field).
 */

struct check {
	char why[ADV_REASON_LEN];
	bool bad;
};

/* v must lie in [lo, hi]; optional figures may also be 0 (not measured). */
static void bound(struct check *c, const char *field, double v, double lo, double hi,
		  const char *range, bool optional)
{
	if (c->bad || (optional && v == 0) || (isfinite(v) && v >= lo && v <= hi))
		return;
	c->bad = true;
	snprintf(c->why, sizeof(c->why), "%s is %g, outside %s", field, v, range);
}

static void check_false_sharing(const struct adv_host_false_sharing *o, struct check *c)
{
	bound(c, "unpadded/padded ratio", o->ratio_2t, 0.05, 1000, "0.05x to 1000x", false);
	bound(c, "destructive interference size", o->interference_bytes, 8, 65536,
	      "8 B to 64 KiB", true);
	bound(c, "cache line", o->cache_line_bytes, 8, 65536, "8 B to 64 KiB", true);
}

static void check_spin_hint(const struct adv_host_spin_hint *o, struct check *c)
{
	char field[48];

	for (size_t i = 0; i < o->nhints; i++) {
		if (!o->hints[i].available)
			continue;
		snprintf(field, sizeof(field), "%.16s ns per hint", o->hints[i].name);
		bound(c, field, o->hints[i].ns, 0.05, 1e9, "0.05 ns to 1 s", false);
	}
}

/* where: "at light contention", or "at light contention in CPU-distance
 * state 2". */
static void check_best(const struct adv_best *b, const struct adv_region *g, const char *where,
		       struct check *c)
{
	char field[96];

	if (!b->strategy[0])
		return;
	snprintf(field, sizeof(field), "best lock %s, acq/s", where);
	bound(c, field, b->throughput, 1, 1e11, "1 to 1e11 acq/s", false);
	snprintf(field, sizeof(field), "pthread_mutex %s, acq/s", where);
	bound(c, field, b->mutex_throughput, 1, 1e11, "1 to 1e11 acq/s", true);
	snprintf(field, sizeof(field), "spins %s", where);
	bound(c, field, b->n, 0, 1 << 20, "0 to 1048576", true);
	snprintf(field, sizeof(field), "good region's spins %s", where);
	bound(c, field, g->n_max, g->n_min, 1 << 20, "the region's lowest count to 1048576", true);
}

/* A state's region members: at most ADV_MAX_REGION_MEMBERS, each a named
 * strategy with a spin count in 0..1048576. */
static void check_members(const struct adv_distance_state *x, const char *where, struct check *c)
{
	if (c->bad)
		return;
	if (x->nmembers > ADV_MAX_REGION_MEMBERS) {
		c->bad = true;
		snprintf(c->why, sizeof(c->why), "more than %d region members %s",
			 ADV_MAX_REGION_MEMBERS, where);
		return;
	}
	for (size_t i = 0; i < x->nmembers; i++) {
		if (x->members[i].strategy[0] && x->members[i].n != UINT32_MAX)
			continue;
		c->bad = true;
		snprintf(c->why, sizeof(c->why), "region member %zu %s has no strategy or spin count",
			 i + 1, where);
		return;
	}
}

/* A level's states: at most ADV_MAX_STATES, nearest first, each with a
 * distance, a share and, where it has one, a region that passes
 * check_best. */
static void check_states(const struct adv_distance_states *o, size_t declared, const char *level,
			 struct check *c)
{
	char where[64], field[96];

	if (declared > ADV_MAX_STATES) {
		c->bad = true;
		snprintf(c->why, sizeof(c->why), "%s contention lists %zu CPU-distance states, at most %d",
			 level, declared, ADV_MAX_STATES);
		return;
	}
	for (size_t i = 0; i < o->n; i++) {
		const struct adv_distance_state *x = &o->s[i];

		snprintf(where, sizeof(where), "at %s contention in CPU-distance state %zu", level, i + 1);
		snprintf(field, sizeof(field), "round trip %s, ns", where);
		bound(c, field, x->round_trip_ns, 1, 1e9, "1 ns to 1 s", false);
		snprintf(field, sizeof(field), "share of the runs %s", where);
		bound(c, field, x->share, 0, 1, "0 to 1", false);
		check_best(&x->best, &x->region, where, c);
		check_members(x, where, c);
	}
	if (!c->bad && o->n == 2 && o->s[1].round_trip_ns < o->s[0].round_trip_ns) {
		c->bad = true;
		snprintf(c->why, sizeof(c->why), "%s contention's CPU-distance states are not nearest first",
			 level);
	}
}

static void check_host_costs(const struct adv_host_costs *o, struct check *c)
{
	/* Every time up to 1 s, not 10 ms: a host at load 20 on 2 CPUs
	 * measured 15 ms handoffs, 20 ms yields and 3.5 ms round trips for
	 * real (a time slice of every runnable task); beyond a second no
	 * scheduler waits, so only nonsense is rejected. */
	bound(c, "futex handoff on one CPU", o->futex_handoff_same_ns, 10, 1e9, "10 ns to 1 s", true);
	bound(c, "futex handoff across CPUs", o->futex_handoff_cross_ns, 10, 1e9, "10 ns to 1 s", true);
	bound(c, "sched_yield alone", o->yield_alone_ns, 10, 1e9, "10 ns to 1 s", true);
	bound(c, "sched_yield with a peer", o->yield_peer_ns, 10, 1e9, "10 ns to 1 s", true);
	bound(c, "cache-line round trip", o->cacheline_rtt_ns, 1, 1e9, "1 ns to 1 s", true);
	bound(c, "tracing cost per event", o->trace_event_ns, 0, 1e9, "0 to 1 s", true);
	bound(c, "futex call", o->futex_call_ns, 1, 1e9, "1 ns to 1 s", true);
}

static void check_numa(const struct adv_host_numa *o, struct check *c)
{
	bound(c, "local latency", o->local_ns, 1, 1e9, "1 ns to 1 s", true);
	bound(c, "remote latency", o->remote_ns, 1, 1e9, "1 ns to 1 s", true);
	bound(c, "interleaved latency", o->interleaved_ns, 1, 1e9, "1 ns to 1 s", true);
	bound(c, "local bandwidth", o->local_gbs, 1e-3, 1e5, "0.001 to 100000 GB/s", true);
	bound(c, "remote bandwidth", o->remote_gbs, 1e-3, 1e5, "0.001 to 100000 GB/s", true);
	bound(c, "interleaved bandwidth", o->interleaved_gbs, 1e-3, 1e5, "0.001 to 100000 GB/s", true);
}

static void check_memory_order(const struct adv_host_memory_order *o, struct check *c)
{
	const struct { const char *name; double v; } f[] = {
		{ "relaxed store", o->relaxed_store_ns }, { "release store", o->release_store_ns },
		{ "seq_cst store", o->seq_cst_store_ns }, { "store + fence", o->store_fence_ns },
		{ "seq_cst CAS", o->cas_seq_cst_ns }, { "release CAS", o->cas_release_ns },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		bound(c, f[i].name, f[i].v, 0.05, 1e9, "0.05 ns to 1 s", true);
}

/* Rejects a family that failed its checks: not present, counted in
 * h->rejected, said on stderr when warn. */
static void judge(struct adv_host *h, unsigned bit, const char *key, bool *present,
		  const struct check *c, bool warn)
{
	char why[ADV_REASON_LEN + 64];

	if (!*present || !c->bad)
		return;
	*present = false;
	h->rejected |= bit;
	snprintf(why, sizeof(why), "%s: %s", key, c->why);
	if (!h->rejected_reason[0])
		snprintf(h->rejected_reason, sizeof(h->rejected_reason), "%s", why);
	if (warn)
		ss_warn("stored calibration: %s; the %s figures are not used: run 'spinscope calibrate --only %s'",
			why, key, key);
}

/* A level's states that failed their checks are dropped, not the family:
 * they refine the level's own verdict, which stands without them. Said on
 * stderr when warn. */
static void judge_states(struct adv_host_spin_threshold *o, struct adv_distance_states *states,
			 const char *level, const struct check *c, bool warn)
{
	if (!c->bad)
		return;
	memset(states, 0, sizeof(*states));
	if (!o->states_rejected[0])
		snprintf(o->states_rejected, sizeof(o->states_rejected), "spin_threshold: %s", c->why);
	if (warn)
		ss_warn("stored calibration: spin_threshold: %s; the per-distance verdicts at %s "
			"contention are not used, its overall one is", c->why, level);
}

static void fill_spin_threshold(const json_object *f, struct adv_host *h, bool warn)
{
	struct adv_host_spin_threshold *o = &h->spin_threshold;
	static const char *const names[] = { "light", "heavy" };
	struct adv_distance_states *states[] = { &o->light_states, &o->heavy_states };
	struct check c = { 0 };
	size_t declared;

	o->present = true;
	fill_best(path(f, "contention", "light"), &o->light, &o->light_region);
	fill_best(path(f, "contention", "heavy"), &o->heavy, &o->heavy_region);
	o->light_region.full = o->heavy_region.full = calib_json__full_run(f);
	check_best(&o->light, &o->light_region, "at light contention", &c);
	check_best(&o->heavy, &o->heavy_region, "at heavy contention", &c);
	judge(h, ADV_FAM_SPIN_THRESHOLD, "spin_threshold", &o->present, &c, warn);
	for (int i = 0; i < 2 && o->present; i++) {
		fill_states(path(f, "contention", names[i]), states[i], &declared);
		c = (struct check){ 0 };
		check_states(states[i], declared, names[i], &c);
		judge_states(o, states[i], names[i], &c, warn);
	}
}

static void fill(const json_object *results, const char *machine, struct adv_host *h, bool warn)
{
	json_object *f;
	struct check c;

	h->present = true;
	h->matches = true;
	if ((f = family(results, "false_sharing"))) {
		fill_false_sharing(f, &h->false_sharing);
		c = (struct check){ 0 };
		check_false_sharing(&h->false_sharing, &c);
		judge(h, ADV_FAM_FALSE_SHARING, "false_sharing", &h->false_sharing.present, &c, warn);
	}
	if ((f = family(results, "spin_hint"))) {
		fill_spin_hint(f, machine, &h->spin_hint);
		c = (struct check){ 0 };
		check_spin_hint(&h->spin_hint, &c);
		judge(h, ADV_FAM_SPIN_HINT, "spin_hint", &h->spin_hint.present, &c, warn);
	}
	if ((f = family(results, "spin_threshold")) && path(f, "contention", NULL))
		fill_spin_threshold(f, h, warn);
	if ((f = family(results, "host_costs"))) {
		fill_host_costs(f, &h->host_costs);
		c = (struct check){ 0 };
		check_host_costs(&h->host_costs, &c);
		judge(h, ADV_FAM_HOST_COSTS, "host_costs", &h->host_costs.present, &c, warn);
	}
	if ((f = family(results, "numa"))) {
		fill_numa(f, &h->numa);
		c = (struct check){ 0 };
		check_numa(&h->numa, &c);
		judge(h, ADV_FAM_NUMA, "numa", &h->numa.present, &c, warn);
	}
	if ((f = family(results, "memory_order"))) {
		fill_memory_order(f, &h->memory_order);
		c = (struct check){ 0 };
		check_memory_order(&h->memory_order, &c);
		judge(h, ADV_FAM_MEMORY_ORDER, "memory_order", &h->memory_order.present, &c, warn);
	}
}

void calib_host__fill(const json_object *results, const char *machine, struct adv_host *h)
{
	fill(results, machine, h, false);
}

/* One family (results[key]) filled as the advisor would: *h zeroed
 * first; false when out of memory. */
static bool fill_one(const char *key, const json_object *family_obj, struct adv_host *h)
{
	json_object *one = json_object_new_object();
	struct utsname u;

	if (!one)
		return false;
	memset(h, 0, sizeof(*h));
	uname(&u);
	json_object_object_add(one, key, json_object_get((json_object *)family_obj));
	fill(one, u.machine, h, false);
	json_object_put(one);
	return true;
}

bool calib_host__family_valid(const char *key, const json_object *family_obj, char *why,
			      size_t len)
{
	struct adv_host *h = malloc(sizeof(*h));
	bool ok;

	if (!h || !fill_one(key, family_obj, h)) {
		free(h);
		return true;	/* nothing to judge with: judge nothing */
	}
	ok = !h->rejected;
	if (!ok)
		snprintf(why, len, "%s", h->rejected_reason);
	free(h);
	return ok;
}

bool calib_host__states_valid(const json_object *spin_threshold, char *why, size_t len)
{
	struct adv_host *h = malloc(sizeof(*h));
	bool ok;

	if (!h || !fill_one("spin_threshold", spin_threshold, h)) {
		free(h);
		return false;	/* cannot judge: carry nothing */
	}
	ok = !h->rejected && !h->spin_threshold.states_rejected[0];
	if (!ok)
		snprintf(why, len, "%s", h->rejected ? h->rejected_reason :
						       h->spin_threshold.states_rejected);
	free(h);
	return ok;
}

/* What each finding's advice rests on, by calibrate's family keys. */
static const struct {
	const char *finding;
	const char *families[2];
} needs[] = {
	{ "spin-yield", { "host_costs", "spin_threshold" } },
	{ "futex-contention", { "host_costs", NULL } },
	{ "oversubscription", { "host_costs", NULL } },
	{ "false-sharing", { "false_sharing", NULL } },
	{ "spin-hint", { "spin_hint", NULL } },
	{ "memory-order", { "memory_order", NULL } },
	{ "numa-placement", { "numa", NULL } },
};

static bool have(const struct adv_host *h, const char *fam)
{
	if (!h->present || !h->matches)
		return false;
	return !strcmp(fam, "host_costs") ? h->host_costs.present :
	       !strcmp(fam, "spin_threshold") ? h->spin_threshold.present :
	       !strcmp(fam, "false_sharing") ? h->false_sharing.present :
	       !strcmp(fam, "spin_hint") ? h->spin_hint.present :
	       !strcmp(fam, "memory_order") ? h->memory_order.present :
	       !strcmp(fam, "numa") ? h->numa.present : true;
}

/* Appends to buf (*n used) the families finding id rests on and h lacks. */
static void add_needs(const char *id, const struct adv_host *h, char *buf, size_t len, size_t *n)
{
	for (size_t k = 0; k < sizeof(needs) / sizeof(needs[0]); k++) {
		if (strcmp(needs[k].finding, id))
			continue;
		for (int j = 0; j < 2 && needs[k].families[j]; j++) {
			const char *fam = needs[k].families[j];

			if (have(h, fam) || strstr(buf, fam))
				continue;
			*n += snprintf(buf + *n, *n < len ? len - *n : 0, "%s%s", *n ? "," : "", fam);
		}
	}
}

const char *calib_host__needed(const struct adv_report *r, const struct adv_host *h, char *buf,
			       size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->n; i++) {
		/* NUMA on one node needs no measuring: it says so itself. */
		if (!strcmp(r->findings[i].id, "numa-placement") &&
		    r->findings[i].severity == ADV_INFO)
			continue;
		add_needs(r->findings[i].id, h, buf, len, &n);
	}
	return buf;
}

const char *calib_host__wanted(const struct adv_profile *p, const struct adv_host *h, char *buf,
			       size_t len)
{
	const char *ids[ADV_MAX_FINDINGS];
	size_t nids = advisor__will_find(p, h, ids, ADV_MAX_FINDINGS), n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < nids; i++)
		add_needs(ids[i], h, buf, len, &n);
	return buf;
}

/* The stored calibration of this host, as the advisor's host struct. */
int calib_host__load(struct adv_host *host, const char *path, const char *machine)
{
	json_object *res = NULL;
	char why[ADV_REASON_LEN + 256];
	int err = calib__load_matching(path, &res, why, sizeof(why));

	memset(host, 0, sizeof(*host));
	if (!err) {
		fill(res, machine, host, true);
		json_object_put(res);
	} else if (err == -ESTALE) {
		/* why reads "calibration in PATH is for another host (DIFF): run
		 * ..."; the advisor quotes only DIFF (e.g. "different kernel: A
		 * here, B calibrated"), which fits its evidence line. */
		const char *a = strstr(why, "another host ("), *b = strstr(why, "): run");

		host->present = true;
		if (a && b && b > a + 14)
			snprintf(host->mismatch_reason, sizeof(host->mismatch_reason), "%.*s",
				 (int)(b - a - 14), a + 14);
		else
			snprintf(host->mismatch_reason, sizeof(host->mismatch_reason), "%s", why);
	} else if (err != -ENOENT) {
		/* A file that is there but cannot be used is not "none stored". */
		host->present = true;
		host->unreadable = true;
		snprintf(host->mismatch_reason, sizeof(host->mismatch_reason), "%s",
			 err == -EBADMSG ? "not valid JSON" : err == -EFBIG ? "larger than 16 MiB" :
			 err == -EINVAL ? "not a calibration of this schema" :
			 err == -EISDIR || err == -ENXIO ? "not a regular file" : strerror(-err));
		ss_warn("stored calibration not used: %s", why);
	}
	return err;
}

/* `spinscope calibrate --quick --only families`, quietly: its results land
 * in the store, where load_host() finds them. */
int calib_host__measure(const char *families, const char *path, const sigset_t *mask)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* Never outlive spinscope: a killed spinscope stops measuring. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Ctrl-C reaches it too: it saves what it measured and stops. */
		sigprocmask(SIG_SETMASK, mask, NULL);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		if (path)
			execl("/proc/self/exe", "spinscope", "calibrate", "--quick", "--only", families,
			      "-o", path, (char *)NULL);
		else
			execl("/proc/self/exe", "spinscope", "calibrate", "--quick", "--only", families,
			      (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}


// SPDX-License-Identifier: GPL-2.0
/*
 * spin_threshold: how long a lock should spin before it yields or parks on
 * this host. A GC lock once went from "(N spins + yield) repeated" to "N
 * spins, then a yield loop" after sweeping N under light and heavy
 * contention, judged by time to safepoint. This family repeats that sweep
 * on the lock kernel of calib_swlock.c for five acquire strategies and
 * reports throughput, fairness, acquisition latency and the time to stop
 * every thread at a safe point, then names the best strategy and N.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib.h"
#include "calib_json.h"
#include "calib_table.h"
#include "calib/kern/calib_distance.h"
#include "calib/kern/calib_stat.h"
#include "calib/kern/calib_swlock.h"
#include "calib/kern/calib_util.h"

static const uint32_t sweep_spins[] = { 0x0, 0x1, 0x7, 0xF, 0x1F, 0x3F, 0x7F, 0xFF };
#define NSPINS (sizeof(sweep_spins) / sizeof(sweep_spins[0]))
/* Pure spin and pthread_mutex once, the three spin-count strategies per N. */
#define NCONFIGS (2 + 3 * NSPINS)

struct st_config {
	enum swlock_strategy strategy;
	uint32_t spins;
};

struct st_plan {
	const char *name;		/* "light" / "heavy" */
	int per_cpu;			/* threads per allowed CPU */
	int reps;			/* at most; the time box may end sooner */
	uint64_t run_ns;
	int stops;			/* stop-all cycles per run */
	uint64_t budget_ns;		/* time box of the level */
};

/* Repetitions always made, whatever the time box says: fewer give no
 * spread. The box is checked between repetitions, so that every
 * configuration has the same number of samples. */
#define MIN_REPS 2

/* Samples of one configuration, one per repetition. */
struct st_samples {
	double acq_per_s[16];
	double p50[16], p99[16], max[16];
	double stop_all[16], stop_all_max[16];
	double min_acq[16], max_acq[16];
	double rt[16];		/* the CPUs' distance just before (0: not read) */
	int n;
};

static int st_configs(struct st_config *c)
{
	int n = 0;

	c[n++] = (struct st_config){ SWLOCK_SPIN, 0 };
	c[n++] = (struct st_config){ SWLOCK_PTHREAD_MUTEX, 0 };
	for (unsigned i = 0; i < NSPINS; i++) {
		c[n++] = (struct st_config){ SWLOCK_SPIN_THEN_YIELD, sweep_spins[i] };
		c[n++] = (struct st_config){ SWLOCK_SPIN_YIELD_REPEAT, sweep_spins[i] };
		c[n++] = (struct st_config){ SWLOCK_SPIN_THEN_PARK, sweep_spins[i] };
	}
	return n;
}

static const char *spin_hint_name(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return "pause";
#elif defined(__aarch64__)
	return "isb";
#else
	return "none";
#endif
}

static json_object *stat_json(const double *v, int n, double cv_limit,
			      const struct calib_busy *busy)
{
	struct calib_stats st;

	calib_stats__compute(&st, v, n);
	return calib_stats__json(&st, cv_limit, busy);
}

static json_object *config_json(const struct st_config *c, const struct st_samples *s,
				const struct calib_busy *busy)
{
	json_object *o = json_object_new_object();
	struct calib_stats mn, mx;
	char label[64];

	swlock_strategy__describe(c->strategy, c->spins, label, sizeof(label));
	json_object_object_add(o, "strategy",
			       json_object_new_string(swlock_strategy__name(c->strategy)));
	json_object_object_add(o, "spins", swlock_strategy__has_spins(c->strategy) ?
			       json_object_new_int((int)c->spins) : NULL);
	json_object_object_add(o, "label", json_object_new_string(label));
	json_object_object_add(o, "acq_per_s",
			       stat_json(s->acq_per_s, s->n, CALIB_CV_CONTENTION, busy));
	json_object_object_add(o, "lat_p50_ns", stat_json(s->p50, s->n, CALIB_CV_CONTENTION, busy));
	json_object_object_add(o, "lat_p99_ns", stat_json(s->p99, s->n, CALIB_CV_CONTENTION, busy));
	json_object_object_add(o, "lat_max_ns", stat_json(s->max, s->n, CALIB_CV_CONTENTION, busy));
	json_object_object_add(o, "stop_all_ns",
			       stat_json(s->stop_all, s->n, CALIB_CV_CONTENTION, busy));
	json_object_object_add(o, "stop_all_max_ns",
			       stat_json(s->stop_all_max, s->n, CALIB_CV_CONTENTION, busy));
	json_object_object_add(o, "min_acq", stat_json(s->min_acq, s->n, CALIB_CV_CONTENTION, busy));
	json_object_object_add(o, "max_acq", stat_json(s->max_acq, s->n, CALIB_CV_CONTENTION, busy));
	calib_stats__compute(&mn, s->min_acq, s->n);
	calib_stats__compute(&mx, s->max_acq, s->n);
	/* 1.0: every thread got the lock as often as every other. */
	json_object_object_add(o, "fairness",
			       json_object_new_double(mx.median > 0 ? mn.median / mx.median : 0));
	return o;
}

/* {"strategy","spins","label","acq_per_s","stop_all_ns"}: what the advisor
 * reads, medians only (the figures with their spread are in "configs"). */
static json_object *pick_json(const json_object *cfg)
{
	json_object *o = json_object_new_object(), *v;
	struct calib_stats st;

	json_object_object_add(o, "strategy",
			       json_object_new_string(calib_json__string(cfg, "strategy", "")));
	json_object_object_get_ex(cfg, "spins", &v);
	json_object_object_add(o, "spins", v ? json_object_get(v) : NULL);
	json_object_object_add(o, "label",
			       json_object_new_string(calib_json__string(cfg, "label", "")));
	calib_stats__from_json(cfg, "acq_per_s", &st, NULL);
	json_object_object_add(o, "acq_per_s", json_object_new_double(st.median));
	/* The figure with its interval, for --compare's noise test. */
	json_object_object_get_ex(cfg, "acq_per_s", &v);
	json_object_object_add(o, "acq_per_s_stats", v ? json_object_get(v) : NULL);
	calib_stats__from_json(cfg, "stop_all_ns", &st, NULL);
	json_object_object_add(o, "stop_all_ns", json_object_new_double(st.median));
	return o;
}

/* The configuration with the highest (want_max) or lowest median of key,
 * and whether the runner-up is within the winner's spread. */
static int best_config(json_object *configs, const char *key, bool want_max, bool *tie)
{
	size_t n = calib_json__len(configs);
	double best = 0, second = 0, spread = 0;
	int bi = -1;

	for (size_t i = 0; i < n; i++) {
		struct calib_stats st;
		double v;

		if (!calib_stats__from_json(calib_json__at(configs, i), key, &st, NULL) ||
		    st.n == 0)
			continue;
		v = want_max ? st.median : -st.median;
		if (bi < 0 || v > best) {
			second = bi < 0 ? v : best;
			best = v;
			bi = (int)i;
			spread = st.max - st.min;
		} else if (v > second) {
			second = v;
		}
	}
	*tie = bi >= 0 && n > 1 && best - second < spread / 2;
	return bi;
}

/* Among equivalent configurations, the one to recommend: the strategy that
 * degrades best when the holder is descheduled first (parking leaves the
 * CPU to it), then the fewest spins (less CPU burnt for the same result). */
static int preference(const char *strategy, int spins_index)
{
	static const char *const order[] = { "spin_then_park", "spin_then_yield",
					     "spin_yield_repeat", "pthread_mutex", "spin" };
	int rank = 5;

	for (int i = 0; i < 5; i++)
		if (!strcmp(strategy, order[i]))
			rank = i;
	return rank * 100 + spins_index;
}

static int spins_index(int spins)
{
	for (unsigned i = 0; i < NSPINS; i++)
		if ((int)sweep_spins[i] == spins)
			return (int)i;
	return 0;
}

static enum swlock_strategy strategy_of(const char *name)
{
	for (int s = 0; s < SWLOCK__COUNT; s++)
		if (!strcmp(name, swlock_strategy__name((enum swlock_strategy)s)))
			return (enum swlock_strategy)s;
	return SWLOCK__COUNT;
}

static int spins_of(const json_object *cfg)
{
	return (int)calib_json__double(cfg, "spins", 0);
}

#define REGION_RULE "median acquisitions/s of the repetitions; the best's cluster: " \
	"sorted by median, each next joins while within 5% of the best's median of the one " \
	"before or within noise of it (1.96 standard errors from the MAD), up to 25% below " \
	"the best; any within noise of the best joins too"

/* The good region of one contention level (calib_stat.h's rule) as
 * level.region: its members, the preferred member and the spin range of
 * its strategy, and whether the run separated the candidates at all. */
void calib_spin_threshold__region(json_object *level, json_object *configs)
{
	struct calib_candidate c[CALIB_MAX_CANDIDATES];
	struct calib_region r;
	size_t n = calib_json__len(configs);
	json_object *reg, *members, *configs_of, *pick;
	const char *strategy;
	bool member_at[NSPINS] = { false };	/* the pick's strategy, by swept count */
	int lo, hi, same = 0;

	if (n > CALIB_MAX_CANDIDATES)
		n = CALIB_MAX_CANDIDATES;
	for (size_t i = 0; i < n; i++) {
		json_object *cfg = calib_json__at(configs, i);
		struct calib_stats st;

		if (!calib_stats__from_json(cfg, "acq_per_s", &st, NULL))
			st.n = 0;
		c[i] = (struct calib_candidate){ st.median, st.ci_lo, st.ci_hi, st.n,
			preference(calib_json__string(cfg, "strategy", ""), spins_index(spins_of(cfg))),
			calib_region__se(st.median, st.mad, st.n) };
	}
	if (!calib_region__select(c, (int)n, true, CALIB_REGION_LINK, &r))
		return;
	pick = calib_json__at(configs, (size_t)r.pick);
	strategy = calib_json__string(pick, "strategy", "");
	reg = json_object_new_object();
	members = json_object_new_array();
	configs_of = json_object_new_array();
	for (int m = 0; m < r.nmembers; m++) {
		json_object *cfg = calib_json__at(configs, (size_t)r.members[m]);
		json_object *mc = json_object_new_object();

		json_object_array_add(members, json_object_new_string(calib_json__string(cfg, "label", "")));
		json_object_object_add(mc, "strategy",
				       json_object_new_string(calib_json__string(cfg, "strategy", "")));
		json_object_object_add(mc, "spins", json_object_new_int(spins_of(cfg)));
		json_object_array_add(configs_of, mc);
		if (strcmp(calib_json__string(cfg, "strategy", ""), strategy))
			continue;
		same++;
		member_at[spins_index(spins_of(cfg))] = true;
	}
	/* The spin range said ("spin 7-255") is the run of swept counts
	 * around the pick's that are all members: a count between two
	 * members that is not one (slower, or beyond noise) is not claimed. */
	lo = hi = spins_index(spins_of(pick));
	while (lo > 0 && member_at[lo - 1])
		lo--;
	while (hi + 1 < (int)NSPINS && member_at[hi + 1])
		hi++;
	json_object_object_add(reg, "rule", json_object_new_string(REGION_RULE));
	json_object_object_add(reg, "members", members);
	/* The same members as {strategy, spins}: what two regions share
	 * (the advisor's test of two CPU-distance states) is read from these,
	 * not from the labels. */
	json_object_object_add(reg, "member_configs", configs_of);
	/* The spin counts swept: a range of members claims every one
	 * between its ends only where none of those is missing. */
	json_object *swept = json_object_new_array();

	for (unsigned i = 0; i < NSPINS; i++)
		json_object_array_add(swept, json_object_new_int((int)sweep_spins[i]));
	json_object_object_add(reg, "spins_swept", swept);
	json_object_object_add(reg, "of", json_object_new_int((int)n));
	json_object_object_add(reg, "pick", pick_json(pick));
	json_object_object_add(reg, "strategy_members", json_object_new_int(same));
	if (swlock_strategy__has_spins(strategy_of(strategy))) {
		json_object_object_add(reg, "spins_min", json_object_new_int((int)sweep_spins[lo]));
		json_object_object_add(reg, "spins_max", json_object_new_int((int)sweep_spins[hi]));
	}
	json_object_object_add(reg, "spread", json_object_new_double(r.spread));
	json_object_object_add(reg, "separated", json_object_new_boolean(r.separated));
	json_object_object_add(level, "region", reg);
}

/* One repetition's figures of a configuration, appended to its samples. */
static void add_sample(struct st_samples *x, const struct swbench_sample *s)
{
	x->acq_per_s[x->n] = (double)s->total_acq * 1e9 / (double)s->run_ns;
	x->p50[x->n] = (double)swhist__quantile(&s->lat, 0.50);
	x->p99[x->n] = (double)swhist__quantile(&s->lat, 0.99);
	x->max[x->n] = (double)s->lat.max;
	x->stop_all[x->n] = (double)s->stop_all_ns;
	x->stop_all_max[x->n] = (double)s->stop_all_max_ns;
	x->min_acq[x->n] = (double)s->min_acq;
	x->max_acq[x->n] = (double)s->max_acq;
	x->n++;
}

/* The plain mutex is the advisor's yardstick for the best strategy. */
static void add_mutex_yardstick(json_object *level, json_object *configs)
{
	for (size_t i = 0; i < calib_json__len(configs); i++) {
		json_object *c = calib_json__at(configs, i);
		struct calib_stats st;

		if (!strcmp(calib_json__string(c, "strategy", ""), "pthread_mutex") &&
		    calib_stats__from_json(c, "acq_per_s", &st, NULL)) {
			json_object_object_add(level, "mutex_acq_per_s", json_object_new_double(st.median));
			json_object_object_add(level, "mutex_acq_per_s_stats",
					       json_object_get(json_object_object_get(c, "acq_per_s")));
		}
	}
}

/* level[key]: the configuration best by metric (highest when want_max),
 * and whether it is within noise of the runner-up; nothing when none. */
static void add_pick(json_object *level, const char *key, json_object *configs,
		     const char *metric, bool want_max)
{
	bool tie;
	int best = best_config(configs, metric, want_max, &tie);
	json_object *p;

	if (best < 0)
		return;
	p = pick_json(calib_json__at(configs, (size_t)best));
	json_object_object_add(p, "within_noise_of_runner_up", json_object_new_boolean(tie));
	json_object_object_add(level, key, p);
}

/* The CPUs' distance (calib_distance.h): a reading between repetitions,
 * more precise, for the record, and a short one before every run, so that
 * each sample knows the state it met. */

/* "cpu_distance": {"cpus": [a, b], "round_trip_ns": [...], "changed"}. */
static json_object *distance_json(const struct calib_distance *d)
{
	json_object *o = json_object_new_object(), *cpus = json_object_new_array(),
		    *ns = json_object_new_array();

	json_object_array_add(cpus, json_object_new_int(d->a));
	json_object_array_add(cpus, json_object_new_int(d->b));
	for (int i = 0; i < d->n; i++)
		json_object_array_add(ns, json_object_new_double(d->ns[i]));
	json_object_object_add(o, "cpus", cpus);
	json_object_object_add(o, "round_trip_ns", ns);
	return o;
}

/* The samples of each configuration that met one state: rt below cut
 * (near) or at or above it (far). False when a configuration has fewer
 * than MIN_REPS there, too few to compare. */
static bool state_samples(const struct st_samples *all, int nconfigs, double cut, bool far,
			  struct st_samples *out)
{
	bool enough = true;

	for (int i = 0; i < nconfigs; i++) {
		const struct st_samples *a = &all[i];
		struct st_samples *o = &out[i];

		memset(o, 0, sizeof(*o));
		for (int j = 0; j < a->n; j++) {
			if (a->rt[j] <= 0 || (a->rt[j] >= cut) != far)
				continue;
			o->acq_per_s[o->n] = a->acq_per_s[j];
			o->p50[o->n] = a->p50[j];
			o->p99[o->n] = a->p99[j];
			o->max[o->n] = a->max[j];
			o->stop_all[o->n] = a->stop_all[j];
			o->stop_all_max[o->n] = a->stop_all_max[j];
			o->min_acq[o->n] = a->min_acq[j];
			o->max_acq[o->n] = a->max_acq[j];
			o->rt[o->n] = a->rt[j];
			o->n++;
		}
		enough &= o->n >= MIN_REPS;
	}
	return enough;
}

/*
 * cpu_distance.changed: whether the readings taken before each run met two
 * distances between the CPUs (calib_distance__split()); the readings
 * between repetitions (round_trip_ns) are for people, and the one after
 * the last describes no run. When they did, a verdict for each:
 * cpu_distance.states [{"round_trip_ns", "share", "region"}], near first,
 * region null (with "why") where some configuration ran fewer than
 * MIN_REPS times in that state. The level's own region, from all the
 * samples, mixes the two.
 */
static void add_states(json_object *dist, const struct st_config *configs,
		       const struct st_samples *samples, int nconfigs, const struct calib_busy *busy)
{
	double rt[NCONFIGS * 16], cut;
	struct calib_mode modes[2];
	struct st_samples *sub;
	json_object *states;
	int n = 0;

	for (int i = 0; i < nconfigs; i++)
		for (int j = 0; j < samples[i].n; j++)
			rt[n++] = samples[i].rt[j];
	json_object_object_add(dist, "changed", json_object_new_boolean(
		calib_distance__split(rt, n, modes, &cut) == 2));
	if (!cut)
		return;
	sub = calloc((size_t)nconfigs, sizeof(*sub));
	if (!sub)
		return;
	states = json_object_new_array();
	for (int st = 0; st < 2; st++) {
		json_object *o = json_object_new_object(), *tmp, *arr, *reg;

		json_object_object_add(o, "round_trip_ns", json_object_new_double(modes[st].median));
		json_object_object_add(o, "share", json_object_new_double(modes[st].share));
		if (!state_samples(samples, nconfigs, cut, st == 1, sub)) {
			json_object_object_add(o, "region", NULL);
			json_object_object_add(o, "why", json_object_new_string(
				"fewer than 2 runs of some configuration at this distance"));
			json_object_array_add(states, o);
			continue;
		}
		tmp = json_object_new_object();
		arr = json_object_new_array();
		for (int i = 0; i < nconfigs; i++)
			json_object_array_add(arr, config_json(&configs[i], &sub[i], busy));
		calib_spin_threshold__region(tmp, arr);
		json_object_object_add(o, "region", json_object_object_get_ex(tmp, "region", &reg) ?
						     json_object_get(reg) : NULL);
		json_object_put(tmp);
		json_object_put(arr);
		json_object_array_add(states, o);
	}
	free(sub);
	json_object_object_add(dist, "states", states);
}

/* The rest of a level's JSON, from its samples: the plan, the conditions,
 * every configuration's figures, the CPUs' distance, the good region and
 * the picks. */
static void level_json(json_object *level, const struct st_plan *plan,
		       const struct st_config *configs, const struct st_samples *samples,
		       int nconfigs, const struct calib_distance *dist, const struct calib_busy *busy)
{
	json_object *arr = json_object_new_array();

	json_object_object_add(level, "threads_per_cpu", json_object_new_int(plan->per_cpu));
	json_object_object_add(level, "run_ms", json_object_new_double((double)plan->run_ns / 1e6));
	json_object_object_add(level, "stops_per_run", json_object_new_int(plan->stops));
	json_object_object_add(level, "busy", calib_busy__json(busy));
	for (int i = 0; i < nconfigs; i++)
		if (samples[i].n)
			json_object_array_add(arr, config_json(&configs[i], &samples[i], busy));
	if (dist->a >= 0) {
		json_object *d = distance_json(dist);

		add_states(d, configs, samples, nconfigs, busy);
		json_object_object_add(level, "cpu_distance", d);
	}
	json_object_object_add(level, "configs", arr);
	add_mutex_yardstick(level, arr);
	calib_spin_threshold__region(level, arr);
	add_pick(level, "best", arr, "acq_per_s", true);
	add_pick(level, "best_stop_all", arr, "stop_all_ns", false);
}

/* Runs every configuration reps times at one contention level, interleaved
 * (rep-major, rotating the order) so that drift on the host spreads evenly.
 * Before each run it reads the first two CPUs' distance (and between
 * repetitions, more precisely, for the record): a level that saw it change
 * says so, since its verdict then mixes two hosts, and gives each its own
 * where both had enough runs (add_states()). */
static int run_level(const struct calib_ctx *ctx, const struct st_plan *plan,
		     const struct st_config *configs, int nconfigs,
		     double done0, double share, json_object *level)
{
	struct swbench_cfg cfg = {
		.nthreads = ctx->ncpus * plan->per_cpu,
		.cpus = ctx->cpus,
		.cs_work = SWBENCH_CS_WORK,
		.outside_work = SWBENCH_OUTSIDE_WORK,
	};
	struct st_samples *samples = calloc((size_t)nconfigs, sizeof(*samples));
	struct calib_busy_sample busy0, busy1;
	struct calib_busy busy = { 0 };
	struct swbench *b = NULL;
	struct swbench_sample *s = malloc(sizeof(*s));
	struct calib_distance dist = { .a = -1, .b = -1 };
	int err, reps = 0;
	uint64_t deadline = calib__now_ns() + plan->budget_ns;

	if (!samples || !s) {
		err = -ENOMEM;
		goto out;
	}
	err = swbench__create(&b, &cfg);
	if (err)
		goto out;
	if (ctx->ncpus >= 2)
		calib_distance__plan(&dist, calib__nth_cpu(&ctx->cpus, 0), calib__nth_cpu(&ctx->cpus, 1));
	calib_busy__read(NULL, &busy0);
	/* One unrecorded run: the first release wakes cold threads. */
	swbench__set_lock(b, SWLOCK_PTHREAD_MUTEX, 0);
	err = swbench__run(b, plan->run_ns / 2, 0, 1, s);
	for (int rep = 0; !err && rep < plan->reps && !calib__stopped(ctx); rep++) {
		/* A loaded host stretches every run (the coordinator waits for a
		 * CPU, spinners burn whole slices): keep to the time box. */
		if (rep >= MIN_REPS && calib__now_ns() > deadline)
			break;
		reps = rep + 1;
		calib_distance__read(&dist);
		for (int k = 0; k < nconfigs && !calib__stopped(ctx); k++) {
			int ci = (k + rep * 7) % nconfigs;
			struct st_samples *x = &samples[ci];

			swbench__set_lock(b, configs[ci].strategy, configs[ci].spins);
			x->rt[x->n] = calib_distance__once(&dist);
			err = swbench__run(b, plan->run_ns, 0, plan->stops, s);
			if (err)
				break;
			if (s->violations || s->counter != s->total_acq) {
				/* A lock that lets two threads in is a bug, not a figure. */
				err = -EPROTO;
				break;
			}
			add_sample(x, s);
			calib__progress(ctx, done0 + share * ((double)rep * nconfigs + k + 1) /
					     ((double)plan->reps * nconfigs));
		}
	}
	if (err)
		goto out;
	calib_distance__read(&dist);
	calib_busy__read(NULL, &busy1);
	calib_busy__judge(&busy0, &busy1, ctx->ncpus, &busy);
	json_object_object_add(level, "threads", json_object_new_int(cfg.nthreads));
	json_object_object_add(level, "reps", json_object_new_int(reps));
	json_object_object_add(level, "time_boxed", json_object_new_boolean(reps < plan->reps &&
									    !calib__stopped(ctx)));
	level_json(level, plan, configs, samples, nconfigs, &dist, &busy);
out:
	swbench__destroy(b);
	free(samples);
	free(s);
	return err;
}

/* ", CPUs 60 ns apart" (the median round trip between the level's first
 * two CPUs), ", CPUs' distance changed", or "" without a reading. */
static void distance_clause(const json_object *level, char *buf, size_t len)
{
	json_object *d = json_object_object_get(level, "cpu_distance");
	double ns = calib_json__distance_ns(d);

	buf[0] = '\0';
	if (ns <= 0)
		return;
	if (json_object_get_boolean(json_object_object_get(d, "changed")))
		snprintf(buf, len, ", CPUs' distance changed");
	else
		snprintf(buf, len, ", CPUs %.0f ns apart", ns);
}

/* "spin 0-255 (0xFF) then yield loop": a region's preferred strategy and
 * its spin range, else its pick's label. */
static void region_words(const json_object *reg, const json_object *pick, char *what, size_t len)
{
	const char *strategy = calib_json__string(pick, "strategy", "");
	int lo = (int)calib_json__double(reg, "spins_min", -1);
	int hi = (int)calib_json__double(reg, "spins_max", -1);

	if (lo >= 0 && strategy_of(strategy) != SWLOCK__COUNT)
		swlock_strategy__describe_range(strategy_of(strategy), (uint32_t)lo, (uint32_t)hi,
						what, len);
	else
		snprintf(what, len, "%s", calib_json__string(pick, "label", "?"));
}

/* "; by distance: 60 ns apart, spin 7-255 (0xFF) then futex park, 9.75 M
 * acq/s; 330 ns apart, ...": the verdicts of a level that met two states
 * (add_states()), appended to buf. */
static void state_clauses(const json_object *level, char *buf, size_t len)
{
	json_object *d, *states, *reg, *pick;
	char what[96];

	if (!json_object_object_get_ex(level, "cpu_distance", &d) ||
	    !json_object_object_get_ex(d, "states", &states) ||
	    !json_object_is_type(states, json_type_array))
		return;
	for (size_t i = 0; i < calib_json__len(states) && len > 1; i++) {
		json_object *st = calib_json__at(states, i);
		int w;

		if (json_object_object_get_ex(st, "region", &reg) && reg &&
		    json_object_object_get_ex(reg, "pick", &pick)) {
			region_words(reg, pick, what, sizeof(what));
			const char *from = calib_json__string(st, "carried_from", NULL);

			w = snprintf(buf, len, "%s%.0f ns apart, %s, %.2f M acq/s%s%s%s",
				     i ? "; " : "; by distance: ",
				     calib_json__double(st, "round_trip_ns", 0), what,
				     calib_json__double(pick, "acq_per_s", 0) / 1e6,
				     json_object_get_boolean(json_object_object_get(reg, "separated")) ?
				     "" : " (unseparated)", from ? " (calibrated " : "", from ? from : "");
			if (from && w >= 0 && (size_t)w + 1 < len)
				w += snprintf(buf + w, len - (size_t)w, ")");
		} else {
			w = snprintf(buf, len, "%s%.0f ns apart, too few runs", i ? "; " : "; by distance: ",
				     calib_json__double(st, "round_trip_ns", 0));
		}
		if (w < 0 || (size_t)w >= len)
			return;
		buf += w;
		len -= (size_t)w;
	}
}

/* "light contention (2 threads): spin 0-255 then yield loop, 5.22 M acq/s;
 * 9 of 26 configurations in the best's cluster (all within 4% of it) are equivalent here":
 * one clause per level, from its good region (the raw best for files
 * without one), for --show and JSON readers. */
static void level_headline(const char *name, const json_object *level, bool full, char *buf,
			   size_t len)
{
	json_object *reg, *pick, *best;
	int threads = (int)calib_json__double(level, "threads", 0), n;
	char what[96], dist[48];

	buf[0] = '\0';
	distance_clause(level, dist, sizeof(dist));
	if (!json_object_object_get_ex(level, "region", &reg) ||
	    !json_object_object_get_ex(reg, "pick", &pick)) {
		if (json_object_object_get_ex(level, "best", &best))
			snprintf(buf, len, "best at %s contention (%d threads): %s, %.2f M acq/s", name,
				 (int)calib_json__double(level, "threads", 0),
				 calib_json__string(best, "label", "?"),
				 calib_json__double(best, "acq_per_s", 0) / 1e6);
		return;
	}
	region_words(reg, pick, what, sizeof(what));
	n = json_object_is_type(json_object_object_get(reg, "members"), json_type_array) ?
	    (int)calib_json__len(json_object_object_get(reg, "members")) : 0;
	if (json_object_get_boolean(json_object_object_get(reg, "separated")))
		snprintf(buf, len, "%s contention (%d thread%s%s): %s, %.2f M acq/s; %d of %d "
			 "configurations in the best's cluster (all within %.0f%% of it) are equivalent here", name,
			 threads, threads == 1 ? "" : "s", dist, what,
			 calib_json__double(pick, "acq_per_s", 0) / 1e6, n,
			 (int)calib_json__double(reg, "of", 0),
			 calib_json__double(reg, "spread", 0) * 100);
	else
		snprintf(buf, len, "%s contention (%d thread%s%s): this run could not separate the "
			 "strategies (%d of %d in the best's cluster, no break): rerun %s on "
			 "idle CPUs; meanwhile %s is as good as any", name,
			 threads, threads == 1 ? "" : "s", dist, n,
			 (int)calib_json__double(reg, "of", 0),
			 full ? "with --cpus" : "with --full, or --cpus", what);
	state_clauses(level, buf + strlen(buf), len - strlen(buf));
}

static const char *const level_names[] = { "light", "heavy" };

static void add_headline(json_object *result)
{
	json_object *levels, *level;
	char line[1280] = "", part[640];

	if (!json_object_object_get_ex(result, "contention", &levels))
		return;
	for (int i = 0; i < 2; i++) {
		if (!json_object_object_get_ex(levels, level_names[i], &level))
			continue;
		level_headline(level_names[i], level, calib_json__full_run(result), part,
			       sizeof(part));
		if (part[0])
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s",
				 line[0] ? "; " : "", part);
	}
	if (line[0])
		json_object_object_add(result, "headline", json_object_new_string(line));
}

/* --full's time box: twice what a quiet 2-CPU host takes (full_seconds),
 * room for a busier or larger host. */
#define ST_FULL_BOX_S (2 * calib_spin_threshold.full_seconds)

static int spin_threshold_run(const struct calib_ctx *ctx, json_object *result)
{
	struct st_config configs[NCONFIGS];
	int nconfigs = st_configs(configs);
	/* Light: one thread per CPU. Heavy: 32 per CPU as in the precedent;
	 * --quick keeps 4 per CPU, short runs and a time box of quick_seconds
	 * (light gets 40% of it: its runs are not stretched by preemption). */
	const int reps = ctx->quick ? 5 : 9, stops = ctx->quick ? 3 : 10;
	const uint64_t run_ns = ctx->quick ? 8000000ULL : 100000000ULL;
	const double budget = (ctx->quick ? calib_spin_threshold.quick_seconds :
			       ST_FULL_BOX_S) * 1e9;
	const struct st_plan plans[2] = {
		{ "light", 1, reps, run_ns, stops, (uint64_t)(0.4 * budget) },
		{ "heavy", ctx->quick ? 4 : 32, reps, run_ns, stops, (uint64_t)(0.6 * budget) },
	};
	json_object *levels = json_object_new_object();
	int err = 0;

	json_object_object_add(result, "spin_hint", json_object_new_string(spin_hint_name()));
	json_object_object_add(result, "cs_work", json_object_new_int(SWBENCH_CS_WORK));
	json_object_object_add(result, "outside_work", json_object_new_int(SWBENCH_OUTSIDE_WORK));
	json_object_object_add(result, "contention", levels);
	for (int i = 0; i < 2 && !err && !calib__stopped(ctx); i++) {
		json_object *level = json_object_new_object();

		json_object_object_add(levels, plans[i].name, level);
		err = run_level(ctx, &plans[i], configs, nconfigs, i * 0.4, i ? 0.6 : 0.4, level);
	}
	add_headline(result);
	return err;
}

/* ---- text --------------------------------------------------------------- */

/* One line when the level's runs met two distances (add_states()). */
static void print_distance(const json_object *level, FILE *out)
{
	json_object *d, *states, *near, *far;

	if (!json_object_object_get_ex(level, "cpu_distance", &d) ||
	    !json_object_get_boolean(json_object_object_get(d, "changed")) ||
	    !json_object_object_get_ex(d, "states", &states) ||
	    calib_json__len(states) != 2)
		return;
	near = calib_json__at(states, 0);
	far = calib_json__at(states, 1);
	fprintf(out, "    ! the CPUs' distance changed during it: a cache line's round trip between "
		"them was about %.0f ns before %.0f%% of the runs and %.0f ns before %.0f%% (a VM's "
		"vCPUs moved between cores that share a cache and cores that do not); the verdict "
		"above mixes both and may differ between runs\n",
		calib_json__double(near, "round_trip_ns", 0), calib_json__double(near, "share", 0) * 100,
		calib_json__double(far, "round_trip_ns", 0), calib_json__double(far, "share", 0) * 100);
}

static void print_headline(const char *name, const json_object *level, bool full, FILE *out)
{
	json_object *stop;
	char line[640];

	level_headline(name, level, full, line, sizeof(line));
	if (line[0])
		fprintf(out, "  %s\n", line);
	print_distance(level, out);
	if (json_object_object_get_ex(level, "best_stop_all", &stop))
		fprintf(out, "    fastest stop-all: %s, %.1f us to stop every thread%s\n",
			calib_json__string(stop, "label", "?"),
			calib_json__double(stop, "stop_all_ns", 0) / 1e3,
			json_object_get_boolean(json_object_object_get(stop,
					"within_noise_of_runner_up")) ?
			" (runner-up within noise)" : "");
}

static void print_level(const char *name, const json_object *level, FILE *out)
{
	json_object *configs;
	char a[32], b[32], c[32], d[32], e[32];

	if (!json_object_object_get_ex(level, "configs", &configs))
		return;
	fprintf(out, "\n  %s contention, %d threads, %.0f ms per run (! marks a wide spread "
		"or a busy host)\n", name,
		(int)calib_json__double(level, "threads", 0),
		calib_json__double(level, "run_ms", 0));
	fprintf(out, "    %-30s %14s %12s %14s %14s %16s %8s\n", "strategy", "M acq/s", "p50 ns",
		"p99 ns", "stop-all us", "worst stop us", "fairness");
	for (size_t i = 0; i < calib_json__len(configs); i++) {
		json_object *cfg = calib_json__at(configs, i);

		fprintf(out, "    %-30s %14s %12s %14s %14s %16s %8.2f\n",
			calib_json__string(cfg, "label", "?"),
			calib_table__cell(cfg, "acq_per_s", 1e6, "%.3f", a, sizeof(a)),
			calib_table__cell(cfg, "lat_p50_ns", 1, "%.0f", b, sizeof(b)),
			calib_table__cell(cfg, "lat_p99_ns", 1, "%.0f", c, sizeof(c)),
			calib_table__cell(cfg, "stop_all_ns", 1e3, "%.1f", d, sizeof(d)),
			calib_table__cell(cfg, "stop_all_max_ns", 1e3, "%.1f", e, sizeof(e)),
			calib_json__double(cfg, "fairness", 0));
	}
}

static void spin_threshold_print(const json_object *result, FILE *out)
{
	json_object *levels, *level;

	if (json_object_get_boolean(json_object_object_get(result, "skipped"))) {
		fprintf(out, "  skipped: %s\n", calib_json__string(result, "reason", "?"));
		return;
	}
	if (!json_object_object_get_ex(result, "contention", &levels))
		return;
	for (int i = 0; i < 2; i++)
		if (json_object_object_get_ex(levels, level_names[i], &level))
			print_headline(level_names[i], level, calib_json__full_run(result), out);
	for (int i = 0; i < 2; i++)
		if (json_object_object_get_ex(levels, level_names[i], &level))
			print_level(level_names[i], level, out);
}

const struct calib_family calib_spin_threshold = {
	.key = "spin_threshold",
	.title = "Spin-then-yield thresholds",
	.quick_seconds = 3,
	.full_seconds = 120,
	.run = spin_threshold_run,
	.print = spin_threshold_print,
};

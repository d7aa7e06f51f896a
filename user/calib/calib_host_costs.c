// SPDX-License-Identifier: GPL-2.0
/*
 * host_costs: the host figures the advisor turns into advice. How long a
 * futex wake takes to get the woken thread running (same CPU and across
 * CPUs), what sched_yield costs alone and with a runnable peer, how long a
 * cache line takes to travel between each pair of CPUs and back, and what
 * spinscope's own BPF programs add to each event they trace (so that a
 * report can say how much of a traced slowdown is the tracer's).
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "trace/btf_locate.h"
#include "calib.h"
#include "calib/kern/calib_host_kern.h"
#include "calib_json.h"
#include "calib_table.h"
#include "calib/kern/calib_stat.h"
#include "calib/kern/calib_util.h"
#include "trace/privs.h"
#include "model/profile.h"
#include "trace/tracer.h"

/* Most repetitions an adaptive figure takes. */
#define HC_MAX_REPS 32

struct hc_plan {
	int reps;			/* at least; adaptive figures go on to their goal */
	uint64_t handoff_budget_ns;	/* time box of each handoff figure */
	int handoff_rounds;
	uint64_t yields;
	uint64_t round_trips;
	int max_pairs;
	uint64_t traced_calls;
	int trace_cycles;		/* tracer attach/detach cycles */
	uint64_t c2c_budget_ns;		/* time box of the pair matrix */
};

/* BPF events a FUTEX_WAKE nobody waits on causes: sys_enter_futex and
 * sys_exit_futex, never a switch, so the per-event cost is taken from it.
 * A sched_yield fires sys_enter_sched_yield, plus two sched_switch events
 * whenever another task was runnable there: its extra cost is reported
 * per call, as it depends on how busy the CPU is. */
#define EVENTS_PER_FUTEX_CALL	2

static json_object *stat_json(const double *v, int n, double cv_limit)
{
	struct calib_stats st;

	calib_stats__compute(&st, v, n);
	return calib_stats__json(&st, cv_limit, NULL);
}

/* Samples that fall into two groups (calib_stat.h's rule) are said as
 * modes with their shares: a median between them was never measured. */
static void add_modes(json_object *fig, const double *v, int n)
{
	struct calib_mode m[CALIB_MAX_MODES];
	json_object *arr;
	char w[160];

	if (!fig || calib_modes__find(v, n, m) != 2)
		return;
	arr = json_object_new_array();
	for (int i = 0; i < 2; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "median", json_object_new_double(m[i].median));
		json_object_object_add(o, "share", json_object_new_double(m[i].share));
		json_object_object_add(o, "n", json_object_new_int(m[i].n));
		json_object_array_add(arr, o);
	}
	json_object_object_add(fig, "modes", arr);
	snprintf(w, sizeof(w), "two modes: %.0f (%.0f%% of repetitions) and %.0f (%.0f%%)",
		 m[0].median, m[0].share * 100, m[1].median, m[1].share * 100);
	json_object_object_add(fig, "note", json_object_new_string(w));
}

static void skip_part(json_object *result, json_object *part, const char *what,
		      const char *reason)
{
	json_object *list, *o = json_object_new_object();

	calib_json__skip(part, reason);
	if (!json_object_object_get_ex(result, "skipped_parts", &list)) {
		list = json_object_new_array();
		json_object_object_add(result, "skipped_parts", list);
	}
	json_object_object_add(o, "what", json_object_new_string(what));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_array_add(list, o);
}

/* ---- futex handoff ------------------------------------------------------- */

/* Time box of one handoff repetition, and the fewest rounds it may take. */
#define HANDOFF_SAMPLE_BUDGET_NS 80000000ULL
#define HANDOFF_MIN_ROUNDS 20

static int measure_handoff(const struct calib_ctx *ctx, const struct hc_plan *plan,
			   int cpu_a, int cpu_b, bool same_cpu, json_object *out)
{
	double med[HC_MAX_REPS], p90[HC_MAX_REPS];
	int n = 0, raced = 0, valid = 0, err = 0, rounds = plan->handoff_rounds;
	struct calib_hc_handoff h;

	uint64_t deadline = calib__now_ns() + plan->handoff_budget_ns;
	struct calib_stats st;
	json_object *fig;

	/* Adaptive: plan->reps at least, then on until the interval of the
	 * median meets its goal or the time box is spent. */
	for (int r = 0; r < HC_MAX_REPS && !calib__stopped(ctx); r++) {
		if (n >= plan->reps && (calib_ci__rel_of(med, n) <= CALIB_GOAL_CONTENTION ||
					calib__now_ns() > deadline))
			break;
		uint64_t t0 = calib__now_ns(), took;

		err = calib_hc__futex_handoff(cpu_a, cpu_b, same_cpu, rounds, &h);
		/* A loaded host stretches each handoff to a time slice: keep a
		 * repetition to its time box with fewer rounds, as sched_yield. */
		took = calib__now_ns() - t0;
		if (took > HANDOFF_SAMPLE_BUDGET_NS && rounds > HANDOFF_MIN_ROUNDS) {
			uint64_t fit = (uint64_t)rounds * HANDOFF_SAMPLE_BUDGET_NS / took;

			rounds = fit > HANDOFF_MIN_ROUNDS ? (int)fit : HANDOFF_MIN_ROUNDS;
		}
		if (err == -EAGAIN)
			continue;	/* every wake raced its wait: nothing to time */
		if (err)
			return err;
		med[n] = h.median_ns;
		p90[n++] = h.p90_ns;
		raced += h.raced;
		valid += h.valid;
	}
	json_object_object_add(out, "waker_cpu", json_object_new_int(cpu_a));
	json_object_object_add(out, "wakee_cpu", json_object_new_int(same_cpu ? cpu_a : cpu_b));
	calib_stats__compute(&st, med, n);
	fig = calib_stats__json(&st, CALIB_CV_CONTENTION, NULL);
	calib_json__goal(fig, &st, CALIB_GOAL_CONTENTION);
	add_modes(fig, med, n);
	json_object_object_add(out, "ns", fig);
	json_object_object_add(out, "p90_ns", stat_json(p90, n, CALIB_CV_CONTENTION));
	json_object_object_add(out, "handoffs", json_object_new_int(valid));
	/* Wakes that found the peer not yet asleep: not handoffs, dropped. */
	json_object_object_add(out, "raced", json_object_new_int(raced));
	return 0;
}

/* ---- sched_yield --------------------------------------------------------- */

/* Time box of one sched_yield sample, and the fewest calls it may take. */
#define YIELD_SAMPLE_BUDGET_NS 50000000ULL
#define YIELD_MIN_CALLS 50

static int measure_yield(const struct calib_ctx *ctx, const struct hc_plan *plan, int cpu,
			 bool with_peer, json_object *out)
{
	double ns[32], sw[32];
	struct calib_hc_yield y;
	struct calib_stats st;
	uint64_t calls = plan->yields;
	int n = 0;

	/* A pilot of a few calls first: with another task runnable on the
	 * CPU each yield can cost a whole time slice, and 20000 of them a
	 * minute. */
	if (!calib_hc__yield(cpu, with_peer, YIELD_MIN_CALLS, &y) && y.ns_per_yield > 0)
		calls = calib__iters_for((double)YIELD_SAMPLE_BUDGET_NS, y.ns_per_yield,
					 YIELD_MIN_CALLS, plan->yields);

	for (int r = 0; r < plan->reps && r < 32 && !calib__stopped(ctx); r++) {
		uint64_t t0 = calib__now_ns(), took;
		int err = calib_hc__yield(cpu, with_peer, calls, &y);

		if (err)
			return err;
		ns[n] = y.ns_per_yield;
		sw[n++] = y.switches_per_yield;
		/* On a busy host a yield waits its turn (~100 us, not ~1 us):
		 * keep each sample to its time box by taking fewer calls. */
		took = calib__now_ns() - t0;
		if (took > YIELD_SAMPLE_BUDGET_NS && calls > YIELD_MIN_CALLS) {
			calls = calls * YIELD_SAMPLE_BUDGET_NS / took;
			if (calls < YIELD_MIN_CALLS)
				calls = YIELD_MIN_CALLS;
		}
	}
	calib_stats__compute(&st, sw, n);
	json_object_object_add(out, "cpu", json_object_new_int(cpu));
	json_object_object_add(out, "ns", stat_json(ns, n, CALIB_CV_INSTR));
	/* ~0 alone, ~1 with a peer: whether a yield really handed the CPU over. */
	json_object_object_add(out, "switches_per_yield", json_object_new_double(st.median));
	return 0;
}

/* ---- core-to-core -------------------------------------------------------- */

/* The median over the pairs of their median round trip. */
static double pair_median(json_object *pairs)
{
	size_t n = calib_json__len(pairs);
	double *v = calloc(n ? n : 1, sizeof(*v));
	struct calib_stats all;

	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct calib_stats st;

		calib_stats__from_json(calib_json__at(pairs, i), "round_trip_ns", &st, NULL);
		v[i] = st.median;
	}
	calib_stats__compute(&all, v, (int)n);
	free(v);
	return all.median;
}

/* Time box of one round-trip sample and the fewest trips it may take: on
 * a loaded host each trip can wait for a time slice (ms, not ns), so a
 * pilot of a few trips decides how many fit. */
#define C2C_SAMPLE_BUDGET_NS 50000000.0
#define C2C_MIN_TRIPS 64

static uint64_t c2c_trips(int a, int b, uint64_t want)
{
	uint64_t final, pilot = want < 256 ? want : 256;
	double ns;

	if (calib_hc__c2c(a, b, pilot, &ns, &final) || ns <= 0)
		return want;
	return calib__iters_for(C2C_SAMPLE_BUDGET_NS, ns, C2C_MIN_TRIPS, want);
}

/* Round-trip samples of one pair into ns[*n]: at least plan->reps, more
 * until the interval meets its goal, within the matrix's time box (as the
 * handoff). */
static int sample_pair(const struct calib_ctx *ctx, const struct hc_plan *plan,
		       const struct calib_hc_pair *pair, uint64_t deadline, double ns[HC_MAX_REPS],
		       int *n)
{
	uint64_t trips = c2c_trips(pair->a, pair->b, plan->round_trips);

	*n = 0;
	for (int r = 0; r < HC_MAX_REPS && !calib__stopped(ctx); r++) {
		uint64_t final;
		int err;

		if (*n >= plan->reps && (calib_ci__rel_of(ns, *n) <= CALIB_GOAL_CONTENTION ||
					 calib__now_ns() > deadline))
			break;
		err = calib_hc__c2c(pair->a, pair->b, trips, &ns[*n], &final);
		if (err)
			return err;
		if (final != 2 * trips)
			return -EPROTO;	/* a lost CAS: the kernel is broken */
		(*n)++;
	}
	return 0;
}

/* {"a", "b", "ns"}: a pair and its median round trip. */
static json_object *pair_ns_json(const struct calib_hc_pair *pair, double ns)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "a", json_object_new_int(pair->a));
	json_object_object_add(o, "b", json_object_new_int(pair->b));
	json_object_object_add(o, "ns", json_object_new_double(ns));
	return o;
}

static int measure_c2c(const struct calib_ctx *ctx, const struct hc_plan *plan,
		       json_object *out, double done0, double share)
{
	struct calib_hc_pair *pairs = calloc((size_t)plan->max_pairs, sizeof(*pairs));
	int npairs, ncpus = CPU_COUNT(&ctx->cpus), lo = -1, hi = -1, err = 0;
	double lo_ns = 0, hi_ns = 0;
	uint64_t deadline = calib__now_ns() + plan->c2c_budget_ns;
	json_object *arr, *cpus;

	if (!pairs)
		return -ENOMEM;
	arr = json_object_new_array();
	cpus = json_object_new_array();
	npairs = calib_hc__pairs(&ctx->cpus, plan->max_pairs, pairs, plan->max_pairs);
	for (int i = 0; i < ncpus; i++)
		json_object_array_add(cpus, json_object_new_int(calib__nth_cpu(&ctx->cpus, i)));
	json_object_object_add(out, "cpus", cpus);
	json_object_object_add(out, "pairs", arr);
	json_object_object_add(out, "pairs_possible", json_object_new_int(ncpus * (ncpus - 1) / 2));
	for (int p = 0; p < npairs && !calib__stopped(ctx); p++) {
		json_object *o;

		/* Many CPUs make many pairs: keep to the time box, most telling
		 * pairs first (calib_hc__pairs' order); "pairs" says how many. */
		if (p > 0 && calib__now_ns() > deadline)
			break;
		struct calib_stats st;
		double ns[HC_MAX_REPS];
		int n;
		json_object *fig;

		err = sample_pair(ctx, plan, &pairs[p], deadline, ns, &n);
		if (err)
			break;
		o = json_object_new_object();
		calib_stats__compute(&st, ns, n);
		json_object_object_add(o, "a", json_object_new_int(pairs[p].a));
		json_object_object_add(o, "b", json_object_new_int(pairs[p].b));
		fig = calib_stats__json(&st, CALIB_CV_CONTENTION, NULL);
		calib_json__goal(fig, &st, CALIB_GOAL_CONTENTION);
		add_modes(fig, ns, n);
		json_object_object_add(o, "round_trip_ns", fig);
		json_object_array_add(arr, o);
		if (lo < 0 || st.median < lo_ns)
			lo = p, lo_ns = st.median;
		if (hi < 0 || st.median > hi_ns)
			hi = p, hi_ns = st.median;
		calib__progress(ctx, done0 + share * (p + 1) / npairs);
	}
	if (lo >= 0) {
		json_object_object_add(out, "fastest", pair_ns_json(&pairs[lo], lo_ns));
		json_object_object_add(out, "slowest", pair_ns_json(&pairs[hi], hi_ns));
		json_object_object_add(out, "median_ns", json_object_new_double(pair_median(arr)));
	}
	free(pairs);
	return err;
}

/* ---- tracing cost -------------------------------------------------------- */

static long futex_wake(_Atomic uint32_t *word)
{
	return syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ns per call of FUTEX_WAKE on a word nobody waits on: a syscall whose
 * only work is the hash lookup, so the tracer's share shows clearly. */
static double futex_call_ns(uint64_t k)
{
	_Atomic uint32_t word = 0;
	uint64_t t0 = calib__now_ns();

	for (uint64_t i = 0; i < k; i++)
		futex_wake(&word);
	return (double)(calib__now_ns() - t0) / (double)k;
}

static double yield_call_ns(uint64_t k)
{
	uint64_t t0 = calib__now_ns();

	for (uint64_t i = 0; i < k; i++)
		sched_yield();
	return (double)(calib__now_ns() - t0) / (double)k;
}

/* Why the tracer cannot run here, or NULL. */
static const char *tracing_unavailable(char *why, size_t len, char *btf, size_t btflen)
{
	struct utsname u;
	uint64_t caps;

	if (privs_effective(&caps))
		return "cannot read this process's capabilities";
	if (privs_check_caps(caps, why, len))
		return why;
	uname(&u);
	if (btf_locate(NULL, "/sys/kernel/btf/vmlinux", u.release, btf, btflen, why, len))
		return why;
	return NULL;
}

/* Attaches the tracer to this thread of this process. */
static struct tracer *tracer_on_self(const char *btf, char *why, size_t len)
{
	struct tracer_opts o = {
		.pid = getpid(), .tid = (int)syscall(SYS_gettid),
		.btf_custom_path = btf[0] ? btf : NULL,
		.max_threads = 64, .max_futexes = 64, .max_stacks = 64,
		.stack_interval_ns = SS_STACK_INTERVAL_DEFAULT_NS,
	};
	struct tracer *t;
	int code;

	t = tracer__open(&o, &code, why, len);
	if (t && tracer__attach(t, why, len)) {
		tracer__free(t);
		t = NULL;
	}
	return t;
}

/* The figure is the tracer's cost only if it saw every call we made. */
static int tracer_saw_calls(struct tracer *t, uint64_t calls, uint64_t yields, char *why,
			    size_t len)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	const struct ss_thread *me = NULL;
	struct ss_profile p = { 0 };
	int err = 0;

	if (tracer__read(t, &p)) {
		snprintf(why, len, "cannot read the tracer's maps");
		profile_free(&p);
		return -EIO;
	}
	for (size_t i = 0; i < p.nthreads; i++)
		if (p.threads[i].tid == tid)
			me = &p.threads[i];
	if (!me || me->futex_wake < calls || me->sched_yield < yields) {
		snprintf(why, len, "the tracer saw %llu of %llu futex calls and %llu of %llu yields, "
			 "so the difference would not be its cost",
			 me ? (unsigned long long)me->futex_wake : 0ULL, (unsigned long long)calls,
			 me ? (unsigned long long)me->sched_yield : 0ULL, (unsigned long long)yields);
		err = -EPROTO;
	}
	profile_free(&p);
	return err;
}

/* Samples of the tracing-cost figure, one per (before, on, after) triple. */
struct trace_samples {
	double f_off[64], f_on[64], y_off[64], y_on[64];
	double f_ev[64], y_extra[64];
	int n;
};

/*
 * One cycle: m samples of each loop untraced, m traced, m untraced again,
 * each traced sample compared with the mean of its untraced neighbours
 * (A-B-A, so that drift cancels). Attaching costs ~0.1 s but detaching the
 * tracepoints ~1 s, so samples are grouped around one attach rather than
 * interleaved one by one.
 */
static int tracing_cycle(const struct hc_plan *plan, const char *btf, int m,
			 struct trace_samples *ts, char *why, size_t len)
{
	double fb[16], yb[16], fo[16], yo[16];
	uint64_t k = plan->traced_calls, ky;
	struct tracer *t;
	int err;

	/* A loaded host can make each yield a time slice: a pilot sets how
	 * many fit the sample's time box (futex wakes with no waiter stay
	 * cheap syscalls). */
	ky = calib__iters_for((double)YIELD_SAMPLE_BUDGET_NS, yield_call_ns(YIELD_MIN_CALLS),
			      YIELD_MIN_CALLS, k);
	for (int i = 0; i < m; i++) {
		fb[i] = futex_call_ns(k);
		yb[i] = yield_call_ns(ky);
	}
	t = tracer_on_self(btf, why, len);
	if (!t)
		return -ENOTSUP;
	for (int i = 0; i < m; i++) {
		fo[i] = futex_call_ns(k);
		yo[i] = yield_call_ns(ky);
	}
	err = tracer_saw_calls(t, k * (uint64_t)m, ky * (uint64_t)m, why, len);
	tracer__free(t);
	if (err)
		return err;
	for (int i = 0; i < m && ts->n < 64; i++) {
		double f_off = (fb[i] + futex_call_ns(k)) / 2;
		double y_off = (yb[i] + yield_call_ns(ky)) / 2;
		int n = ts->n++;

		ts->f_off[n] = f_off;
		ts->y_off[n] = y_off;
		ts->f_on[n] = fo[i];
		ts->y_on[n] = yo[i];
		ts->f_ev[n] = (fo[i] - f_off) / EVENTS_PER_FUTEX_CALL;
		ts->y_extra[n] = yo[i] - y_off;
	}
	return 0;
}

static int measure_tracing(const struct calib_ctx *ctx, const struct hc_plan *plan,
			   json_object *result, json_object *out)
{
	char why[512] = "", btf[512] = "";
	const char *no = tracing_unavailable(why, sizeof(why), btf, sizeof(btf));
	struct trace_samples *ts;
	cpu_set_t saved;
	int err = 0;

	if (no) {
		skip_part(result, out, "tracing cost per event", no);
		return 0;
	}
	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -ENOMEM;
	/* One CPU for both halves, so that on and off compare like with like. */
	sched_getaffinity(0, sizeof(saved), &saved);
	calib__pin_self(calib__nth_cpu(&ctx->cpus, 0));
	for (int c = 0; c < plan->trace_cycles && !err && !calib__stopped(ctx); c++)
		err = tracing_cycle(plan, btf, plan->reps, ts, why, sizeof(why));
	sched_setaffinity(0, sizeof(saved), &saved);
	if (err) {
		/* The tracer cannot run here after all: say why, keep the rest. */
		skip_part(result, out, "tracing cost per event", why[0] ? why : strerror(-err));
		free(ts);
		return 0;
	}
	json_object_object_add(out, "ns_per_event", stat_json(ts->f_ev, ts->n, CALIB_CV_CONTENTION));
	json_object_object_add(out, "yield_extra_ns_per_call",
			       stat_json(ts->y_extra, ts->n, CALIB_CV_CONTENTION));
	json_object_object_add(out, "futex_call_off_ns", stat_json(ts->f_off, ts->n, CALIB_CV_INSTR));
	json_object_object_add(out, "futex_call_on_ns", stat_json(ts->f_on, ts->n, CALIB_CV_INSTR));
	json_object_object_add(out, "yield_call_off_ns", stat_json(ts->y_off, ts->n, CALIB_CV_INSTR));
	json_object_object_add(out, "yield_call_on_ns", stat_json(ts->y_on, ts->n, CALIB_CV_INSTR));
	json_object_object_add(out, "events_per_futex_call",
			       json_object_new_int(EVENTS_PER_FUTEX_CALL));
	json_object_object_add(out, "calls_per_sample",
			       json_object_new_int64((int64_t)plan->traced_calls));
	json_object_object_add(out, "attach_cycles", json_object_new_int(plan->trace_cycles));
	free(ts);
	return 0;
}

/* ---- the family ---------------------------------------------------------- */

static double median_of(const json_object *obj, const char *key)
{
	struct calib_stats st;

	return calib_stats__from_json(obj, key, &st, NULL) ? st.median : 0;
}

/* The modes of the first pair's round trip (calib_stat.h), or NULL: a
 * bimodal figure is reported as its modes, not as the median between. */
static json_object *pair_modes(const json_object *c2c)
{
	json_object *pairs, *fig, *modes;

	if (!json_object_object_get_ex(c2c, "pairs", &pairs) ||
	    !json_object_is_type(pairs, json_type_array) || !calib_json__len(pairs) ||
	    !json_object_object_get_ex(calib_json__at(pairs, 0), "round_trip_ns", &fig) ||
	    !json_object_object_get_ex(fig, "modes", &modes))
		return NULL;
	return json_object_get(modes);
}

/* Flat figures for the advisor: medians in ns, null when not measured. */
static void add_summary(json_object *result)
{
	json_object *s = json_object_new_object(), *o;
	struct { const char *name, *path[3]; } f[] = {
		{ "futex_handoff_same_cpu_ns", { "futex_handoff", "same_cpu", "ns" } },
		{ "futex_handoff_cross_cpu_ns", { "futex_handoff", "cross_cpu", "ns" } },
		{ "yield_alone_ns", { "sched_yield", "alone", "ns" } },
		{ "yield_with_peer_ns", { "sched_yield", "with_peer", "ns" } },
		{ "tracing_ns_per_event", { "tracing", "ns_per_event", NULL } },
		{ "futex_call_ns", { "tracing", "futex_call_off_ns", NULL } },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct calib_stats st;
		bool have = false;

		o = result;
		if (json_object_object_get_ex(o, f[i].path[0], &o) &&
		    (!f[i].path[2] || json_object_object_get_ex(o, f[i].path[1], &o)))
			have = calib_stats__from_json(o, f[i].path[2] ? f[i].path[2] : f[i].path[1],
						      &st, NULL);
		json_object_object_add(s, f[i].name, have ? json_object_new_double(st.median) : NULL);
	}
	if (json_object_object_get_ex(result, "c2c", &o) &&
	    json_object_object_get_ex(o, "fastest", NULL)) {
		json_object *fa, *sl;

		json_object_object_get_ex(o, "fastest", &fa);
		json_object_object_get_ex(o, "slowest", &sl);
		json_object_object_add(s, "c2c_min_ns",
				       json_object_new_double(calib_json__double(fa, "ns", 0)));
		json_object_object_add(s, "c2c_median_ns",
				       json_object_new_double(calib_json__double(o, "median_ns", 0)));
		json_object_object_add(s, "c2c_max_ns",
				       json_object_new_double(calib_json__double(sl, "ns", 0)));
		json_object_object_add(s, "c2c_modes", pair_modes(o));
	} else {
		json_object_object_add(s, "c2c_min_ns", NULL);
		json_object_object_add(s, "c2c_median_ns", NULL);
		json_object_object_add(s, "c2c_max_ns", NULL);
	}
	json_object_object_add(result, "summary", s);
}

static void handoff_headline(const json_object *r, char *buf, size_t len);

static void add_headline(json_object *result)
{
	char line[256];

	handoff_headline(result, line, sizeof(line));
	json_object_object_add(result, "headline", json_object_new_string(line));
}

/* part.seconds: where the family's time went (a loaded host stretches
 * some parts far more than others). */
static void took(json_object *part, uint64_t *t)
{
	uint64_t now = calib__now_ns();

	json_object_object_add(part, "seconds", json_object_new_double((double)(now - *t) / 1e9));
	*t = now;
}

static int host_costs_run(const struct calib_ctx *ctx, json_object *result)
{
	uint64_t t;
	const struct hc_plan plan = ctx->quick ?
		(struct hc_plan){ 5, 400000000ULL, 200, 20000, 20000, 16, 20000, 1, 1000000000ULL } :
		(struct hc_plan){ 11, 5000000000ULL, 2000, 200000, 50000, 4096, 100000, 3,
				  60000000000ULL };
	json_object *handoff = json_object_new_object(), *same = json_object_new_object();
	json_object *cross = json_object_new_object(), *yield = json_object_new_object();
	json_object *alone = json_object_new_object(), *peer = json_object_new_object();
	json_object *c2c = json_object_new_object(), *tracing = json_object_new_object();
	int cpu0 = calib__nth_cpu(&ctx->cpus, 0), cpu1 = calib__nth_cpu(&ctx->cpus, 1);
	bool two = CPU_COUNT(&ctx->cpus) >= 2;
	int err;

	json_object_object_add(handoff, "same_cpu", same);
	json_object_object_add(handoff, "cross_cpu", cross);
	json_object_object_add(result, "futex_handoff", handoff);
	json_object_object_add(yield, "alone", alone);
	json_object_object_add(yield, "with_peer", peer);
	json_object_object_add(result, "sched_yield", yield);
	json_object_object_add(result, "c2c", c2c);
	json_object_object_add(result, "tracing", tracing);

	t = calib__now_ns();
	err = measure_handoff(ctx, &plan, cpu0, cpu0, true, same);
	took(same, &t);
	if (!err && two)
		err = measure_handoff(ctx, &plan, cpu0, cpu1, false, cross);
	else if (!err)
		skip_part(result, cross, "futex handoff across CPUs", "only one CPU is allowed");
	took(cross, &t);
	calib__progress(ctx, 0.15);
	if (!err)
		err = measure_yield(ctx, &plan, cpu0, false, alone);
	took(alone, &t);
	if (!err)
		err = measure_yield(ctx, &plan, cpu0, true, peer);
	took(peer, &t);
	calib__progress(ctx, 0.3);
	if (!err && two)
		err = measure_c2c(ctx, &plan, c2c, 0.3, 0.3);
	else if (!err)
		skip_part(result, c2c, "core-to-core round trips", "only one CPU is allowed");
	took(c2c, &t);
	calib__progress(ctx, 0.6);
	if (!err && !calib__stopped(ctx))
		err = measure_tracing(ctx, &plan, result, tracing);
	took(tracing, &t);
	calib__progress(ctx, 1.0);
	add_summary(result);
	add_headline(result);
	return err;
}

/* ---- text ---------------------------------------------------------------- */

static json_object *get2(const json_object *o, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;

	if (!json_object_object_get_ex(o, a, &x))
		return NULL;
	if (!b)
		return x;
	return json_object_object_get_ex(x, b, &y) ? y : NULL;
}

static bool skipped(const json_object *o)
{
	return !o || json_object_get_boolean(json_object_object_get(o, "skipped"));
}

/* The headline: the futex handoff figures, the ones a lock advice rests on. */
static void handoff_headline(const json_object *r, char *buf, size_t len)
{
	json_object *same = get2(r, "futex_handoff", "same_cpu");
	json_object *cross = get2(r, "futex_handoff", "cross_cpu");

	if (!skipped(cross))
		snprintf(buf, len, "futex handoff: %.1f us across CPUs here, %.1f us on the same CPU",
			 median_of(cross, "ns") / 1e3, median_of(same, "ns") / 1e3);
	else
		snprintf(buf, len, "futex handoff: %.1f us on the same CPU (across CPUs: %s)",
			 median_of(same, "ns") / 1e3, calib_json__string(cross, "reason", "-"));
}

/* "    round trip CPUs 0-1: two modes: 89 (60% of repetitions) and 395
 * (40%), in ns: not one figure" */
static void print_modes(const json_object *pairs, FILE *out)
{
	for (size_t i = 0; json_object_is_type(pairs, json_type_array) &&
			   i < calib_json__len(pairs); i++) {
		json_object *p = calib_json__at(pairs, i), *fig;
		const char *note;

		if (!json_object_object_get_ex(p, "round_trip_ns", &fig) ||
		    !(note = calib_json__string(fig, "note", NULL)))
			continue;
		fprintf(out, "    round trip CPUs %d-%d: %s, in ns: not one figure\n",
			(int)calib_json__double(p, "a", 0), (int)calib_json__double(p, "b", 0), note);
	}
}

static void print_headlines(const json_object *r, FILE *out)
{
	json_object *alone = get2(r, "sched_yield", "alone");
	json_object *peer = get2(r, "sched_yield", "with_peer");
	json_object *c2c = get2(r, "c2c", NULL), *tr = get2(r, "tracing", NULL);
	char line[256];

	handoff_headline(r, line, sizeof(line));
	fprintf(out, "  %s\n", line);
	fprintf(out, "  sched_yield: %.0f ns alone, %.0f ns with a runnable peer on the CPU "
		"(%.2f switches per call)\n", median_of(alone, "ns"), median_of(peer, "ns"),
		calib_json__double(peer, "switches_per_yield", 0));
	if (!skipped(c2c) && get2(c2c, "fastest", NULL)) {
		json_object *fa = get2(c2c, "fastest", NULL), *sl = get2(c2c, "slowest", NULL);

		fprintf(out, "  cache-line round trip between CPUs: %.0f ns (CPUs %d-%d) to %.0f ns "
			"(CPUs %d-%d)\n", calib_json__double(fa, "ns", 0),
			(int)calib_json__double(fa, "a", 0), (int)calib_json__double(fa, "b", 0),
			calib_json__double(sl, "ns", 0), (int)calib_json__double(sl, "a", 0),
			(int)calib_json__double(sl, "b", 0));
		print_modes(get2(c2c, "pairs", NULL), out);
	} else {
		fprintf(out, "  cache-line round trip between CPUs: not measured: %s\n",
			calib_json__string(c2c, "reason", "-"));
	}
	if (!skipped(tr))
		fprintf(out, "  tracing by spinscope: %.0f ns per traced event (a futex call, %d events: "
			"+%.0f ns; a sched_yield: +%.0f ns)\n", median_of(tr, "ns_per_event"),
			EVENTS_PER_FUTEX_CALL, EVENTS_PER_FUTEX_CALL * median_of(tr, "ns_per_event"),
			median_of(tr, "yield_extra_ns_per_call"));
	else
		fprintf(out, "  tracing by spinscope: not measured: %s\n",
			calib_json__string(tr, "reason", "-"));
}

static void host_costs_print(const json_object *r, FILE *out)
{
	json_object *c2c = get2(r, "c2c", NULL), *pairs, *tr = get2(r, "tracing", NULL);
	char a[40], b[40], c[40];

	if (json_object_get_boolean(json_object_object_get(r, "skipped"))) {
		fprintf(out, "  skipped: %s\n", calib_json__string(r, "reason", "?"));
		return;
	}
	print_headlines(r, out);
	fprintf(out, "\n    %-36s %16s %16s\n", "figure (! marks a wide spread)", "median", "p90");
	fprintf(out, "    %-36s %16s %16s\n", "futex handoff, same CPU (us)",
		calib_table__cell(get2(r, "futex_handoff", "same_cpu"), "ns", 1e3, "%.2f", a, sizeof(a)),
		calib_table__cell(get2(r, "futex_handoff", "same_cpu"), "p90_ns", 1e3, "%.2f", b, sizeof(b)));
	fprintf(out, "    %-36s %16s %16s\n", "futex handoff, across CPUs (us)",
		calib_table__cell(get2(r, "futex_handoff", "cross_cpu"), "ns", 1e3, "%.2f", a, sizeof(a)),
		calib_table__cell(get2(r, "futex_handoff", "cross_cpu"), "p90_ns", 1e3, "%.2f", b, sizeof(b)));
	fprintf(out, "    %-36s %16s\n", "sched_yield alone (ns)",
		calib_table__cell(get2(r, "sched_yield", "alone"), "ns", 1, "%.0f", a, sizeof(a)));
	fprintf(out, "    %-36s %16s\n", "sched_yield with a peer (ns)",
		calib_table__cell(get2(r, "sched_yield", "with_peer"), "ns", 1, "%.0f", a, sizeof(a)));
	if (!skipped(tr)) {
		fprintf(out, "    %-36s %16s %16s\n", "futex call off / on (ns)",
			calib_table__cell(tr, "futex_call_off_ns", 1, "%.0f", a, sizeof(a)),
			calib_table__cell(tr, "futex_call_on_ns", 1, "%.0f", b, sizeof(b)));
		fprintf(out, "    %-36s %16s %16s\n", "sched_yield call off / on (ns)",
			calib_table__cell(tr, "yield_call_off_ns", 1, "%.0f", a, sizeof(a)),
			calib_table__cell(tr, "yield_call_on_ns", 1, "%.0f", b, sizeof(b)));
		fprintf(out, "    %-36s %16s\n", "tracing cost per event (ns)",
			calib_table__cell(tr, "ns_per_event", 1, "%.0f", a, sizeof(a)));
	}
	if (!skipped(c2c) && json_object_object_get_ex(c2c, "pairs", &pairs) &&
	    calib_json__len(pairs)) {
		fprintf(out, "\n    cache-line round trip (ns), %zu of %d CPU pairs\n",
			calib_json__len(pairs),
			(int)calib_json__double(c2c, "pairs_possible", 0));
		for (size_t i = 0; i < calib_json__len(pairs); i++) {
			json_object *p = calib_json__at(pairs, i);

			snprintf(c, sizeof(c), "CPU %d <-> %d", (int)calib_json__double(p, "a", 0),
				 (int)calib_json__double(p, "b", 0));
			fprintf(out, "    %-36s %16s\n", c,
				calib_table__cell(p, "round_trip_ns", 1, "%.0f", a, sizeof(a)));
		}
	}
}

const struct calib_family calib_host_costs = {
	.key = "host_costs",
	.title = "Host costs the advisor needs",
	.quick_seconds = 2,
	.full_seconds = 15,
	.run = host_costs_run,
	.print = host_costs_print,
};

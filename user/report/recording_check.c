// SPDX-License-Identifier: GPL-2.0
/* A recording against its schema (see recording_check.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "common/errors.h"
#include "model/counters.h"
#include "recording_check.h"

#define PID_MAX_LIMIT (4 * 1024 * 1024)	/* the kernel's: no pid or tid above */

/* A scalar counter of the lists in bpf/trace.h, as JSON holds it. */
struct rule {
	const char *name;
	bool max;		/* MAX: totals keep the largest, not the sum */
	bool in_totals;		/* json ALL: also in "totals" */
	bool reported;		/* json NONE: not in the object itself */
};

#define RULE_MAX_SUM false
#define RULE_MAX_MAX true
#define RULE(name, kind, unit, json)							\
	{ #name, RULE_MAX_##kind, SS_JSON_##json == SS_JSON_ALL, SS_JSON_##json != SS_JSON_NONE },
#define RULE_ARRAY(name, slots, kind, unit, json)
static const struct rule thread_rules[] = { SS_THREAD_COUNTERS(RULE, RULE_ARRAY) };
static const struct rule futex_rules[] = { SS_FUTEX_COUNTERS(RULE, RULE_ARRAY) };
#define NTHREAD_RULES (sizeof(thread_rules) / sizeof(thread_rules[0]))

struct check {
	char *why;
	size_t whylen;
	bool failed;
};

static bool fail(struct check *c, const char *path, const char *what)
{
	if (!c->failed)
		snprintf(c->why, c->whylen, "%s: %s", path, what);
	c->failed = true;
	return false;
}

/* An integer from lo to hi (absent: fine unless required). */
static bool int_in(struct check *c, json_object *v, const char *path, int64_t lo, uint64_t hi,
		   bool required, uint64_t *out)
{
	char what[96];

	if (out)
		*out = 0;
	if (!v)
		return required ? fail(c, path, "missing") : true;
	if (!json_object_is_type(v, json_type_int))
		return fail(c, path, "expected an integer");
	if (json_object_get_int64(v) < lo || (json_object_get_int64(v) >= 0 && json_object_get_uint64(v) > hi)) {
		snprintf(what, sizeof(what), "%s is out of range (%lld to %llu)", json_object_to_json_string(v),
			 (long long)lo, (unsigned long long)hi);
		return fail(c, path, what);
	}
	if (out)
		*out = json_object_get_uint64(v);
	return true;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool of_type(struct check *c, json_object *v, const char *path, json_type t, const char *what)
{
	return !v || json_object_is_type(v, t) || fail(c, path, what);
}

/* Each element of an array member of o (a hist) a count. */
static void check_count_array(struct check *c, json_object *a, const char *path)
{
	char p[160];

	if (!of_type(c, a, path, json_type_array, "expected an array"))
		return;
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		int_in(c, json_object_array_get_idx(a, i), p, 0, INT64_MAX, false, NULL);
	}
}

/* The scalar counters of o by rules; a count each. Sums into sum[] and
 * max[] when given, refusing a sum past 2^64. */
static void check_counters(struct check *c, json_object *o, const char *path, const struct rule *rules,
			   size_t n, uint64_t *sum)
{
	char p[160];

	for (size_t k = 0; k < n; k++) {
		uint64_t v;

		if (!rules[k].reported)
			continue;
		snprintf(p, sizeof(p), "%s.%s", path, rules[k].name);
		if (!int_in(c, member(o, rules[k].name), p, 0, INT64_MAX, false, &v) || !sum)
			continue;
		if (rules[k].max)
			sum[k] = v > sum[k] ? v : sum[k];
		else if (__builtin_add_overflow(sum[k], v, &sum[k]))
			fail(c, p, "the threads' counts add up past 2^64");
	}
}

/* What a thread and a group of exited threads both hold: a comm, the
 * run-queue histogram and the thread counters, summed into sum. */
static void check_thread_counts(struct check *c, json_object *o, const char *path, uint64_t *sum)
{
	char p[96];

	snprintf(p, sizeof(p), "%s.comm", path);
	of_type(c, member(o, "comm"), p, json_type_string, "expected a string");
	snprintf(p, sizeof(p), "%s.runq_hist_log2_ns", path);
	check_count_array(c, member(o, "runq_hist_log2_ns"), p);
	check_counters(c, o, path, thread_rules, NTHREAD_RULES, sum);
}

static void check_thread(struct check *c, json_object *t, const char *path, void *sum)
{
	char p[96];

	snprintf(p, sizeof(p), "%s.tid", path);
	int_in(c, member(t, "tid"), p, 1, PID_MAX_LIMIT, true, NULL);
	check_thread_counts(c, t, path, sum);
}

/* A group of threads that exited during the trace (exited_json): its
 * counters are in the totals as a thread's are. */
static void check_exited(struct check *c, json_object *g, const char *path, void *sum)
{
	char p[96];

	snprintf(p, sizeof(p), "%s.threads", path);
	int_in(c, member(g, "threads"), p, 0, INT64_MAX, false, NULL);
	check_thread_counts(c, g, path, sum);
}

static void check_futex(struct check *c, json_object *f, const char *path, void *unused)
{
	(void)unused;
	check_counters(c, f, path, futex_rules, sizeof(futex_rules) / sizeof(futex_rules[0]), NULL);
}

/* The array member name of the document: each element an object, checked
 * by fn with its path ("threads[3]"). */
static void each_object(struct check *c, json_object *doc, const char *name,
			void (*fn)(struct check *, json_object *, const char *, void *), void *arg)
{
	json_object *a = member(doc, name);
	char p[96];

	if (!of_type(c, a, name, json_type_array, "expected an array") || !a)
		return;
	for (size_t i = 0; i < json_object_array_length(a) && !c->failed; i++) {
		json_object *o = json_object_array_get_idx(a, i);

		snprintf(p, sizeof(p), "%s[%zu]", name, i);
		if (!o || !json_object_is_type(o, json_type_object))
			fail(c, p, "expected an object");
		else
			fn(c, o, p, arg);
	}
}

/* "totals" as the threads' sums (or largest), the exited ones' included. */
static void check_totals(struct check *c, json_object *tot, const uint64_t *sum)
{
	char p[96], what[160];

	if (!of_type(c, tot, "totals", json_type_object, "expected an object") || !tot)
		return;
	for (size_t k = 0; k < NTHREAD_RULES && !c->failed; k++) {
		json_object *v = member(tot, thread_rules[k].name);
		uint64_t got;

		if (!thread_rules[k].in_totals || !v)
			continue;
		snprintf(p, sizeof(p), "totals.%s", thread_rules[k].name);
		if (int_in(c, v, p, 0, INT64_MAX, false, &got) && got != sum[k]) {
			snprintf(what, sizeof(what), "%llu, but the threads' %s is %llu",
				 (unsigned long long)got, thread_rules[k].max ? "largest" : "sum",
				 (unsigned long long)sum[k]);
			fail(c, p, what);
		}
	}
}

int recording__check(json_object *doc, char *why, size_t whylen)
{
	struct check c = { .why = why, .whylen = whylen };
	json_object *target = member(doc, "target");
	uint64_t sum[NTHREAD_RULES] = { 0 };

	if (of_type(&c, target, "target", json_type_object, "expected an object") && target) {
		int_in(&c, member(target, "pid"), "target.pid", 1, PID_MAX_LIMIT, true, NULL);
		of_type(&c, member(target, "comm"), "target.comm", json_type_string, "expected a string");
	} else if (!target) {
		fail(&c, "target", "missing");
	}
	int_in(&c, member(doc, "duration_ns"), "duration_ns", 0, INT64_MAX, false, NULL);
	each_object(&c, doc, "threads", check_thread, sum);
	each_object(&c, doc, "exited_threads", check_exited, sum);
	if ((member(doc, "threads") || member(doc, "exited_threads")) && !c.failed)
		check_totals(&c, member(doc, "totals"), sum);
	each_object(&c, doc, "futexes", check_futex, NULL);
	return c.failed ? SS_EXIT_USAGE : 0;
}

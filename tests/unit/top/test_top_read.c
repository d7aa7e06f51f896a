// SPDX-License-Identifier: GPL-2.0
/*
 * top_read.c: a top recording read back as written (the writer's own
 * document round-trips), and a hostile one refused with the member that
 * is wrong named: wrong types, negative and u64-max counts, a newer
 * schema, a recording of no time; names with control bytes cleaned.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/errors.h"
#include "top/top_read.h"
#include "top/top_render.h"

static struct top_word words[2] = {
	{ .uaddr = 0x1000, .waits = 40, .wait_ns = 900000, .waiters = 4, .wakers = 3, .wakes = 30,
	  .woken = 30, .lock = true },
	{ .uaddr = 0x2000, .waits = 5, .wait_ns = 70000, .waiters = 2, .lock = false },
};

/* A snapshot as top makes it: two processes, one with a verdict. */
static void fill(struct top_snapshot *s, struct top_proc p[2])
{
	memset(s, 0, sizeof(*s));
	memset(p, 0, 2 * sizeof(*p));
	s->interval_ns = 3000000000ull;
	s->wall_ns = 1780000000000000000ull;
	s->host = (struct top_host){ .ncpus = 2, .load1 = 1.5, .processes = 90, .threads = 300 };
	p[0] = (struct top_proc){ .pid = 101, .comm = "convoy", .container = "docker:3f2a9c0d1e7b",
				  .nthreads = 5, .cpus_allowed = 2, .oncpu_ns = 2000000000,
				  .lock_wait_ns = 900000, .lock_waits = 40, .yields = 3,
				  .verdict = "futex-contention", .verdict_summary = "a lock convoy",
				  .verdict_severity = 3, .needs_full_trace = true, .cpus_used = 0.66,
				  .runnable = 1.2, .words = words, .nwords = 2 };
	p[1] = (struct top_proc){ .pid = 202, .comm = "idle\x1b]0;x\a", .unit = "pool.service",
				  .nthreads = 2, .cpus_allowed = 2, .event_wait_ns = 5000 };
	s->procs = p;
	s->nprocs = 2;
}

static json_object *written(void)
{
	struct top_render_opts ro = { .sort = TOP_SORT_LOCK_WAIT };
	struct top_snapshot s;
	struct top_proc p[2];
	json_object *doc;

	fill(&s, p);
	assert_int_equal(top_render_doc(&s, &ro, &doc), 0);
	return doc;
}

static void test_round_trip(void **state)
{
	struct top_recording rec;
	char why[256];
	const struct top_proc *c = NULL, *idle = NULL;
	json_object *doc = written();

	assert_true(top_read__is_top(doc));
	json_object_put(doc);
	assert_int_equal(top_read__from_json(written(), &rec, why, sizeof(why)), 0);
	assert_int_equal(rec.snap.nprocs, 2);
	assert_int_equal(rec.snap.interval_ns, 3000000000ull);
	for (size_t i = 0; i < 2; i++)
		if (rec.snap.procs[i].pid == 101)
			c = &rec.snap.procs[i];
		else
			idle = &rec.snap.procs[i];
	assert_non_null(c);
	assert_non_null(idle);
	assert_string_equal(c->verdict, "futex-contention");
	assert_int_equal(c->verdict_severity, 3);
	assert_true(c->needs_full_trace);
	assert_int_equal(c->nwords, 2);
	assert_true(c->words[0].lock && !c->words[1].lock);
	assert_int_equal(c->words[0].uaddr, 0x1000);
	assert_int_equal(c->lock_wait_ns, 900000);
	assert_string_equal(c->container, "docker:3f2a9c0d1e7b");
	/* no control byte survives the reading */
	assert_null(strchr(idle->comm, '\x1b'));
	assert_null(strchr(idle->comm, '\a'));
	assert_string_equal(idle->unit, "pool.service");
	assert_int_equal(idle->verdict[0], 0);
	top_read__free(&rec);
}

/* doc with the member at key of object at path set to v: refused, and
 * the line names want. */
static void refused(const char *path, const char *key, json_object *v, const char *want)
{
	json_object *doc = written(), *o = doc;
	struct top_recording rec;
	char why[256];

	if (path && !strcmp(path, "processes[0]"))
		o = json_object_array_get_idx(json_object_object_get(doc, "processes"), 0);
	else if (path)
		o = json_object_object_get(doc, path);
	json_object_object_add(o, key, v);
	assert_int_equal(top_read__from_json(doc, &rec, why, sizeof(why)), SS_EXIT_USAGE);
	if (!strstr(why, want))
		fail_msg("'%s' does not say '%s'", why, want);
	top_read__free(&rec);
}

static void test_hostile_members(void **state)
{
	refused(NULL, "schema", json_object_new_int(99), "newer");
	refused(NULL, "interval_ns", json_object_new_int(0), "interval_ns");
	refused(NULL, "interval_ns", json_object_new_string("3"), "interval_ns: expected an integer");
	refused(NULL, "processes", json_object_new_object(), "processes: expected an array");
	refused("host", "ncpus", json_object_new_int(0), "host: ncpus");
	refused("host", "load1", json_object_new_double(-1), "host: load1");
	refused("processes[0]", "lock_wait_ns", json_object_new_int64(-5), "processes[0]: lock_wait_ns");
	refused("processes[0]", "yields", json_object_new_uint64(UINT64_MAX), "processes[0]: yields");
	refused("processes[0]", "comm", json_object_new_int(7), "processes[0]: comm");
	refused("processes[0]", "pid", json_object_new_int(-1), "processes[0]: pid");
	refused("processes[0]", "verdict_severity", json_object_new_string("dire"),
		"processes[0]: verdict_severity");
	refused("processes[0]", "words", json_object_new_string("x"), "processes[0]: words");
	refused(NULL, "kind", json_object_new_string("spinscope -p"), "not a recording of spinscope top");
}

static void test_word_of_wrong_shape(void **state)
{
	json_object *doc = written(), *p, *w;
	struct top_recording rec;
	char why[256];

	p = json_object_array_get_idx(json_object_object_get(doc, "processes"), 0);
	w = json_object_array_get_idx(json_object_object_get(p, "words"), 1);
	json_object_object_add(w, "use", json_object_new_string("mutex"));
	assert_int_equal(top_read__from_json(doc, &rec, why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "words[1]: use"));
	top_read__free(&rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_hostile_members),
		cmocka_unit_test(test_word_of_wrong_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

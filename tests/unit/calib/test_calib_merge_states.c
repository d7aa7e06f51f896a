// SPDX-License-Identifier: GPL-2.0
/*
 * The stored lock verdict of the other CPU-distance state, carried into a
 * new spin_threshold result when the store takes it (calib_merge.h,
 * calib_merge__carry_states): which one is carried, in what order, with
 * what mark, and when nothing is; the advisor's reading of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "advisor/advisor.h"
#include "calib/calib_host.h"
#include "calib/calib_merge.h"

/* One contention level: its good region (strategy, spins lo-hi, pick at
 * lo) and its distance readings; states (a JSON array, "" for none). */
static void level_json(char *buf, size_t len, const char *strategy, int lo, int hi, double acq,
		       const char *rts, const char *states)
{
	snprintf(buf, len,
		 "{\"threads\":2,\"mutex_acq_per_s\":4e6,\"region\":{\"pick\":{\"strategy\":\"%s\","
		 "\"spins\":%d,\"acq_per_s\":%g,\"label\":\"x\"},\"spins_min\":%d,\"spins_max\":%d,"
		 "\"members\":[\"a\",\"b\"],\"spread\":0.03,\"separated\":true},"
		 "\"cpu_distance\":{\"cpus\":[0,1],\"round_trip_ns\":[%s],\"changed\":%s%s%s}}",
		 strategy, lo, acq, lo, hi, rts, states[0] ? "true" : "false",
		 states[0] ? ",\"states\":" : "", states);
}

/* A quiet spin_threshold family measured at at, both levels alike. */
static json_object *family(const char *at, const char *level)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "{\"measured_at\":\"%s\",\"busy\":{\"load1\":1,\"others_cpu_share\":0.02,"
		 "\"steal_frac\":0,\"busy\":false},\"contention\":{\"light\":%s,\"heavy\":%s}}",
		 at, level, level);
	return json_tokener_parse(text);
}

static json_object *states_of(json_object *fam, const char *lvl)
{
	json_object *c, *l, *d, *s;

	if (!json_object_object_get_ex(fam, "contention", &c) || !json_object_object_get_ex(c, lvl, &l) ||
	    !json_object_object_get_ex(l, "cpu_distance", &d) || !json_object_object_get_ex(d, "states", &s))
		return NULL;
	return s;
}

static const char *state_str(json_object *states, size_t i, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(json_object_array_get_idx(states, i), key, &v))
		return NULL;
	return json_object_get_string(v);
}

/* A stored level that met two states: near (60 ns, share near_share,
 * spin_then_park 7-255, carried from near_from) and far (340 ns,
 * spin_then_yield 0-7). */
static void two_states_json(char *buf, size_t len, double near_share, const char *near_from)
{
	char states[1024];

	snprintf(states, sizeof(states),
		 "[{\"round_trip_ns\":60,\"share\":%g,\"carried_from\":\"%s\","
		 "\"region\":{\"pick\":{\"strategy\":\"spin_then_park\",\"spins\":7,\"acq_per_s\":9e6},"
		 "\"spins_min\":7,\"spins_max\":255,\"members\":[\"a\"],\"separated\":true}},"
		 "{\"round_trip_ns\":340,\"share\":%g,\"region\":{\"pick\":{\"strategy\":"
		 "\"spin_then_yield\",\"spins\":0,\"acq_per_s\":5e6},\"spins_min\":0,\"spins_max\":7,"
		 "\"members\":[\"b\"],\"separated\":true}}]",
		 near_share, near_from, 1 - near_share);
	level_json(buf, len, "spin_then_park", 7, 255, 9e6, "60,340", states);
}

/* Far now, near before: the stored near verdict comes in first, marked
 * with its run's time; this run's own state last, unmarked. */
static void test_other_state_carried_nearest_first(void **state)
{
	char near[1024], far[1024];
	json_object *old, *fresh, *st;

	level_json(near, sizeof(near), "spin_then_park", 7, 255, 9e6, "60,62,64", "");
	level_json(far, sizeof(far), "spin_then_yield", 0, 7, 5e6, "330,340,335", "");
	old = family("2026-12-02 10:00:00 UTC", near);
	fresh = family("2026-12-02 11:00:00 UTC", far);
	assert_int_equal(calib_merge__carry_states(fresh, old), 2);
	st = states_of(fresh, "heavy");
	assert_non_null(st);
	assert_int_equal(json_object_array_length(st), 2);
	assert_true(json_object_get_double(json_object_object_get(json_object_array_get_idx(st, 0),
								  "round_trip_ns")) == 62);
	assert_string_equal(state_str(st, 0, "carried_from"), "2026-12-02 10:00:00 UTC");
	assert_null(state_str(st, 1, "carried_from"));
	assert_true(json_object_get_double(json_object_object_get(json_object_array_get_idx(st, 1),
								  "round_trip_ns")) == 335);
	json_object_put(old);
	json_object_put(fresh);
}

/* Nothing is carried from the same state, into a level that met two
 * states itself, or from a stored level without a verdict. */
static void test_nothing_carried_within_one_state(void **state)
{
	char a[1024], b[1024], both[1536];
	json_object *old, *fresh;

	level_json(a, sizeof(a), "spin_then_park", 7, 255, 9e6, "120,125,118", "");
	level_json(b, sizeof(b), "spin_then_park", 1, 255, 8e6, "70,72", "");	/* 1.7x: one state */
	old = family("t0", a);
	fresh = family("t1", b);
	assert_int_equal(calib_merge__carry_states(fresh, old), 0);
	assert_null(states_of(fresh, "light"));
	json_object_put(fresh);
	level_json(both, sizeof(both), "spin_then_park", 7, 255, 9e6, "60,340",
		   "[{\"round_trip_ns\":60,\"share\":0.5,\"region\":null},"
		   "{\"round_trip_ns\":340,\"share\":0.5,\"region\":null}]");
	fresh = family("t1", both);
	assert_int_equal(calib_merge__carry_states(fresh, old), 0);
	json_object_put(fresh);
	json_object_put(old);
}

/* A stored level that met two states lends the one this run did not
 * meet, its share and its own first time (carried before) kept; then the
 * advisor reads it as calibrated then. */
static void test_stored_state_lent_and_read(void **state)
{
	char old_lvl[2048], fresh_lvl[1024];
	json_object *old, *fresh, *doc;
	struct adv_host h;

	two_states_json(old_lvl, sizeof(old_lvl), 0.6, "2026-12-01 09:00:00 UTC");
	level_json(fresh_lvl, sizeof(fresh_lvl), "spin_then_yield", 0, 15, 5.2e6, "350,330", "");
	old = family("2026-12-02 10:00:00 UTC", old_lvl);
	fresh = family("2026-12-02 11:00:00 UTC", fresh_lvl);
	assert_int_equal(calib_merge__carry_states(fresh, old), 2);
	assert_string_equal(state_str(states_of(fresh, "light"), 0, "carried_from"),
			    "2026-12-01 09:00:00 UTC");
	doc = json_object_new_object();
	json_object_object_add(doc, "spin_threshold", json_object_get(fresh));
	memset(&h, 0, sizeof(h));
	calib_host__fill(doc, NULL, &h);
	assert_true(h.spin_threshold.present);
	assert_int_equal(h.spin_threshold.light_states.n, 2);
	assert_string_equal(h.spin_threshold.light_states.s[0].carried_from, "2026-12-01 09:00:00 UTC");
	assert_string_equal(h.spin_threshold.light_states.s[1].carried_from, "");
	assert_true(h.spin_threshold.light_states.s[0].share == 0.6);
	json_object_put(doc);
	json_object_put(old);
	json_object_put(fresh);
}

/* Nothing from a busy stored family, another lock workload, another
 * thread count; and calib_merge__results keeps nothing that would fail
 * the advisor's checks (a share of 5). */
static void test_nothing_carried_that_answers_another_question(void **state)
{
	char near[1024], far[1024], bad[2048];
	json_object *old, *fresh, *stored, *out, *f;
	struct calib_merge_note notes[2];
	size_t n;

	level_json(near, sizeof(near), "spin_then_park", 7, 255, 9e6, "60,62,64", "");
	level_json(far, sizeof(far), "spin_then_yield", 0, 7, 5e6, "330,340,335", "");
	fresh = family("t1", far);
	old = family("t0", near);
	json_object_object_add(json_object_object_get(old, "busy"), "busy", json_object_new_boolean(true));
	assert_int_equal(calib_merge__carry_states(fresh, old), 0);
	json_object_put(old);
	old = family("t0", near);
	json_object_object_add(old, "cs_work", json_object_new_int(40));
	assert_int_equal(calib_merge__carry_states(fresh, old), 0);
	json_object_put(old);
	old = family("t0", near);
	json_object_object_add(json_object_object_get(json_object_object_get(old, "contention"), "heavy"),
			       "threads", json_object_new_int(16));
	assert_int_equal(calib_merge__carry_states(fresh, old), 1);	/* light only */
	assert_null(states_of(fresh, "heavy"));
	json_object_put(old);
	json_object_put(fresh);

	level_json(bad, sizeof(bad), "spin_then_park", 7, 255, 9e6, "60,340",
		   "[{\"round_trip_ns\":60,\"share\":5,\"region\":{\"pick\":{\"strategy\":"
		   "\"spin_then_park\",\"spins\":7,\"acq_per_s\":9e6},\"spins_min\":7,"
		   "\"spins_max\":255,\"separated\":true}},{\"round_trip_ns\":340,\"share\":0.4,"
		   "\"region\":null}]");
	stored = json_object_new_object();
	json_object_object_add(stored, "spin_threshold", family("t0", bad));
	fresh = json_object_new_object();
	json_object_object_add(fresh, "spin_threshold", family("t1", far));
	out = calib_merge__results(stored, fresh, false, notes, 2, &n);
	assert_true(json_object_object_get_ex(out, "spin_threshold", &f));
	assert_null(states_of(f, "light"));
	json_object_put(out);
	json_object_put(stored);
	json_object_put(fresh);
}

/* Through calib_merge__results: the stored copy gets the carried state,
 * the fresh result (the printed document's) does not. */
static void test_results_carry_into_a_copy(void **state)
{
	char near[1024], far[1024];
	json_object *stored = json_object_new_object(), *fresh = json_object_new_object(), *out, *f;
	struct calib_merge_note notes[2];
	size_t n;

	level_json(near, sizeof(near), "spin_then_park", 7, 255, 9e6, "60,62,64", "");
	level_json(far, sizeof(far), "spin_then_yield", 0, 7, 5e6, "330,340,335", "");
	json_object_object_add(stored, "spin_threshold", family("t0", near));
	json_object_object_add(fresh, "spin_threshold", family("t1", far));
	out = calib_merge__results(stored, fresh, false, notes, 2, &n);
	assert_int_equal(n, 0);
	assert_true(json_object_object_get_ex(out, "spin_threshold", &f));
	assert_non_null(states_of(f, "light"));
	assert_null(states_of(json_object_object_get(fresh, "spin_threshold"), "light"));
	json_object_put(out);
	json_object_put(stored);
	json_object_put(fresh);
}

/* A verdict ages from when it was measured: the stored family's own one
 * within CALIB_CARRY_MAX_AGE_S (a week) of the new run is carried, a day
 * later it is not; a state the stored family carried itself ages from its
 * own first run, however recent the family. */
static void test_old_verdicts_not_carried(void **state)
{
	char near[1024], far[1024], two[2048];
	json_object *old, *fresh;

	level_json(near, sizeof(near), "spin_then_park", 7, 255, 9e6, "60,62,64", "");
	level_json(far, sizeof(far), "spin_then_yield", 0, 7, 5e6, "330,340,335", "");
	old = family("2026-12-02 10:00:00 UTC", near);
	fresh = family("2026-12-09 09:00:00 UTC", far);	/* 6 days 23 h */
	assert_int_equal(calib_merge__carry_states(fresh, old), 2);
	json_object_put(fresh);
	fresh = family("2026-12-09 11:00:00 UTC", far);	/* 7 days 1 h */
	assert_int_equal(calib_merge__carry_states(fresh, old), 0);
	assert_null(states_of(fresh, "light"));
	json_object_put(fresh);
	json_object_put(old);

	two_states_json(two, sizeof(two), 0.5, "2026-11-20 09:00:00 UTC");
	old = family("2026-12-02 10:00:00 UTC", two);
	fresh = family("2026-12-02 11:00:00 UTC", far);
	assert_int_equal(calib_merge__carry_states(fresh, old), 0);
	json_object_put(fresh);
	json_object_put(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_other_state_carried_nearest_first),
		cmocka_unit_test(test_nothing_carried_within_one_state),
		cmocka_unit_test(test_stored_state_lent_and_read),
		cmocka_unit_test(test_results_carry_into_a_copy),
		cmocka_unit_test(test_nothing_carried_that_answers_another_question),
		cmocka_unit_test(test_old_verdicts_not_carried),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * calib_host.c: a contention level's CPU-distance states
 * (cpu_distance.states, shaped as calibrate's add_states() writes them)
 * read into the advisor's host struct, each with its own region; a file
 * without them reads as before; a malformed state (a negative round trip,
 * a region whose lowest spin count exceeds its highest, a NaN throughput,
 * too many states, states out of order) drops the level's states with the
 * field named, while the family and the level's own verdict stay usable.
 */
#include "testlib.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "advisor/hostcal.h"
#include "calib/calib_host.h"

/* A state as add_states() writes it: with a region, or null with why. */
#define STATE(rt, share, strategy, lo, hi, acq)					\
	"{\"round_trip_ns\": " #rt ", \"share\": " #share ", \"region\": {"		\
	"\"members\": [\"a\", \"b\", \"c\"], \"of\": 26, \"pick\": {\"strategy\": \""	\
	strategy "\", \"spins\": " #lo ", \"acq_per_s\": " #acq "}, "			\
	"\"spins_min\": " #lo ", \"spins_max\": " #hi ", \"spread\": 0.04, "		\
	"\"separated\": true}}"
#define NO_REGION(rt, share)							\
	"{\"round_trip_ns\": " #rt ", \"share\": " #share ", \"region\": null, "	\
	"\"why\": \"fewer than 2 runs of some configuration at this distance\"}"

/* A state whose region lists its members as configurations (members: a
 * JSON list of {"strategy", "spins"}), picking the first. */
#define STATE_M(rt, share, strategy, spins, acq, members)				\
	"{\"round_trip_ns\": " #rt ", \"share\": " #share ", \"region\": {"		\
	"\"members\": [\"a\"], \"member_configs\": [" members "], \"of\": 26, "	\
	"\"spins_swept\": [0, 1, 7, 15, 31, 63, 127, 255], "				\
	"\"pick\": {\"strategy\": \"" strategy "\", \"spins\": " #spins ", "		\
	"\"acq_per_s\": " #acq "}, \"spins_min\": " #spins ", \"spins_max\": " #spins	\
	", \"spread\": 0.04, \"separated\": false}}"
#define CFG(strategy, n) "{\"strategy\": \"" strategy "\", \"spins\": " #n "}"

/* The level's own verdict (both states' runs): spin_then_park 0-255. */
#define LEVEL(states)								\
	"{\"threads\": 2, \"mutex_acq_per_s\": 4.0e6, \"region\": {"			\
	"\"members\": [\"a\", \"b\", \"c\", \"d\"], \"of\": 26, \"pick\": {"		\
	"\"strategy\": \"spin_then_park\", \"spins\": 0, \"acq_per_s\": 7.5e6}, "	\
	"\"spins_min\": 0, \"spins_max\": 255, \"spread\": 0.05, \"separated\": true}, "	\
	"\"cpu_distance\": {\"cpus\": [0, 1], \"round_trip_ns\": [60, 340], "		\
	"\"changed\": true" states "}}"

/* results with one spin_threshold family: light's states as given
 * (", \"states\": [...]" or ""), heavy with none. */
static void fill(const char *light_states_json, struct adv_host *h)
{
	char doc[4096];
	json_object *r;

	snprintf(doc, sizeof(doc), "{\"spin_threshold\": {\"contention\": {\"light\": %s, "
		 "\"heavy\": %s}}}", light_states_json, LEVEL(""));
	r = json_tokener_parse(doc);
	if (!r)
		fail_msg("not JSON: %s", doc);
	memset(h, 0, sizeof(*h));
	calib_host__fill(r, "x86_64", h);
	json_object_put(r);
}

/* The advisor's choice at light contention, from a level's JSON. */
static struct adv_lock_choice choice_of(const char *light, struct adv_host *h)
{
	struct adv_lock_choice c;

	fill(light, h);
	assert_true(adv_cal__lock_choice(h, false, &c));
	return c;
}

static void test_states_read(void **state)
{
	struct adv_host h;
	const struct adv_distance_states *st = &h.spin_threshold.light_states;

	fill(LEVEL(", \"states\": [" STATE(62.5, 0.64, "spin_then_park", 7, 255, 8.95e6) ", "
		   STATE(352, 0.36, "spin_then_yield", 0, 7, 5.06e6) "]"), &h);
	assert_true(h.spin_threshold.present);
	assert_int_equal(h.rejected, 0);
	assert_string_equal(h.spin_threshold.states_rejected, "");
	assert_int_equal(st->n, 2);
	assert_float_equal(st->s[0].round_trip_ns, 62.5, 1e-9);
	assert_float_equal(st->s[0].share, 0.64, 1e-9);
	assert_string_equal(st->s[0].best.strategy, "spin_then_park");
	assert_int_equal(st->s[0].best.n, 7);
	assert_float_equal(st->s[0].best.throughput, 8.95e6, 1e-3);
	/* No per-state yardstick is stored: 0, not the level's. */
	assert_float_equal(st->s[0].best.mutex_throughput, 0, 0);
	assert_int_equal(st->s[0].region.n_min, 7);
	assert_int_equal(st->s[0].region.n_max, 255);
	assert_int_equal(st->s[0].region.size, 3);
	assert_true(st->s[0].region.separated);
	assert_string_equal(st->s[1].best.strategy, "spin_then_yield");
	assert_int_equal(st->s[1].region.n_min, 0);
	assert_int_equal(st->s[1].region.n_max, 7);
	assert_float_equal(st->s[1].best.throughput, 5.06e6, 1e-3);
	/* The level's own verdict is untouched by its states. */
	assert_string_equal(h.spin_threshold.light.strategy, "spin_then_park");
	assert_int_equal(h.spin_threshold.light_region.n_max, 255);
	assert_float_equal(h.spin_threshold.light.mutex_throughput, 4.0e6, 1e-3);
	assert_int_equal(h.spin_threshold.heavy_states.n, 0);
}

/* A state with too few runs for a region is kept, without a best. */
static void test_state_without_region(void **state)
{
	struct adv_host h;
	struct adv_lock_choice c;

	c = choice_of(LEVEL(", \"states\": [" STATE(60, 0.9, "spin_then_park", 7, 255, 8.95e6) ", "
			    NO_REGION(340, 0.1) "]"), &h);
	assert_string_equal(h.spin_threshold.states_rejected, "");
	assert_int_equal(h.spin_threshold.light_states.n, 2);
	assert_string_equal(h.spin_threshold.light_states.s[1].best.strategy, "");
	assert_int_equal(h.spin_threshold.light_states.s[1].region.size, 0);
	assert_float_equal(h.spin_threshold.light_states.s[1].round_trip_ns, 340, 1e-9);
	/* Nothing to compare: the level's own verdict. */
	assert_int_equal(c.states, ADV_LOCK_ONE_VERDICT);
	assert_string_equal(c.strategy, "spin_then_park");
	assert_int_equal(c.n, 0);
}

/* Older files, and levels that met one distance: no states at all. */
static void test_no_states(void **state)
{
	struct adv_host h;
	struct adv_lock_choice c;

	c = choice_of(LEVEL(""), &h);
	assert_int_equal(h.spin_threshold.light_states.n, 0);
	assert_string_equal(h.spin_threshold.states_rejected, "");
	assert_int_equal(c.states, ADV_LOCK_ONE_VERDICT);
	assert_null(c.near);
}

/* From the file to the advisor's choice: two states that share
 * spin_then_park 15-63 are recommended from that, at its fewest spins. */
static void test_overlap_from_file(void **state)
{
	struct adv_host h;
	struct adv_lock_choice c;

	c = choice_of(LEVEL(", \"states\": [" STATE(60, 0.5, "spin_then_park", 7, 63, 9e6) ", "
			    STATE(340, 0.5, "spin_then_park", 15, 255, 3e6) "]"), &h);
	assert_int_equal(c.states, ADV_LOCK_STATES_AGREE);
	assert_string_equal(c.strategy, "spin_then_park");
	assert_int_equal(c.n, 15);
	assert_int_equal(c.n_min, 15);
	assert_int_equal(c.n_max, 63);
	assert_float_equal(c.near->round_trip_ns, 60, 1e-9);
	assert_float_equal(c.far->round_trip_ns, 340, 1e-9);

	/* The same strategy with spin ranges that do not meet differs. */
	c = choice_of(LEVEL(", \"states\": [" STATE(60, 0.5, "spin_then_park", 63, 255, 9e6) ", "
			    STATE(340, 0.5, "spin_then_park", 0, 31, 3e6) "]"), &h);
	assert_int_equal(c.states, ADV_LOCK_STATES_DIFFER);
	/* Neither state's: the level's own pick stays what is quoted alone. */
	assert_string_equal(c.strategy, "spin_then_park");
	assert_int_equal(c.n, 0);
}

/* A malformed state drops the level's states, names the field, and
 * leaves the family and the level's own verdict usable. */
static void check_rejected(const char *light, const char *why)
{
	struct adv_host h;
	struct adv_lock_choice c;
	json_object *r;
	char doc[4096], valid[160] = "";

	fill(light, &h);
	assert_string_equal(h.spin_threshold.states_rejected, why);
	assert_int_equal(h.spin_threshold.light_states.n, 0);
	assert_true(h.spin_threshold.present);
	assert_int_equal(h.rejected, 0);
	assert_true(adv_cal__usable(&h, ADV_FAM_SPIN_THRESHOLD));
	assert_true(adv_cal__lock_choice(&h, false, &c));
	assert_int_equal(c.states, ADV_LOCK_ONE_VERDICT);
	assert_string_equal(c.best->strategy, "spin_then_park");
	/* The store's merge keeps the family. */
	snprintf(doc, sizeof(doc), "{\"contention\": {\"light\": %s}}", light);
	r = json_tokener_parse(doc);
	assert_non_null(r);
	assert_true(calib_host__family_valid("spin_threshold", r, valid, sizeof(valid)));
	json_object_put(r);
}

static void test_malformed_states_rejected(void **state)
{
	check_rejected(LEVEL(", \"states\": [" STATE(-60, 0.6, "spin_then_park", 7, 255, 8.95e6) ", "
			     STATE(340, 0.4, "spin_then_yield", 0, 7, 5e6) "]"),
		       "spin_threshold: round trip at light contention in CPU-distance state 1, ns "
		       "is -60, outside 1 ns to 1 s");
	check_rejected(LEVEL(", \"states\": [" STATE(60, 0.6, "spin_then_park", 7, 255, 8.95e6) ", "
			     STATE(340, 0.4, "spin_then_yield", 15, 7, 5e6) "]"),
		       "spin_threshold: good region's spins at light contention in CPU-distance "
		       "state 2 is 7, outside the region's lowest count to 1048576");
	check_rejected(LEVEL(", \"states\": [" STATE(60, 0.6, "spin_then_park", 7, 255, NaN) ", "
			     STATE(340, 0.4, "spin_then_yield", 0, 7, 5e6) "]"),
		       "spin_threshold: best lock at light contention in CPU-distance state 1, acq/s "
		       "is nan, outside 1 to 1e11 acq/s");
	check_rejected(LEVEL(", \"states\": [" STATE(60, 1.5, "spin_then_park", 7, 255, 9e6) "]"),
		       "spin_threshold: share of the runs at light contention in CPU-distance state 1 "
		       "is 1.5, outside 0 to 1");
	check_rejected(LEVEL(", \"states\": [" NO_REGION(60, 0.3) ", " NO_REGION(200, 0.3) ", "
			     NO_REGION(340, 0.4) "]"),
		       "spin_threshold: light contention lists 3 CPU-distance states, at most 2");
	check_rejected(LEVEL(", \"states\": [" NO_REGION(340, 0.4) ", " NO_REGION(60, 0.6) "]"),
		       "spin_threshold: light contention's CPU-distance states are not nearest first");
	check_rejected(LEVEL(", \"states\": [{\"share\": 0.5, \"region\": null}]"),
		       "spin_threshold: round trip at light contention in CPU-distance state 1, ns "
		       "is nan, outside 1 ns to 1 s");
}

/* Regions that list their members: what both hold decides, whatever each
 * one's preferred strategy (an unseparated near region holds the far
 * state's short yields too); calibrate's preference picks among the
 * shared (parking first, then the fewest spins); none shared differ. */
static void test_overlap_by_members(void **state)
{
	struct adv_host h;
	struct adv_lock_choice c;

	c = choice_of(LEVEL(", \"states\": ["
			    STATE_M(118, 1, "spin_then_park", 7, 7.76e6,
				    CFG("spin_then_park", 7) ", " CFG("spin_then_yield", 0) ", "
				    CFG("spin_then_yield", 1) ", " CFG("spin_then_yield", 7) ", "
				    CFG("spin_then_yield", 15) ", " CFG("spin_yield_repeat", 0)) ", "
			    STATE_M(499, 1, "spin_then_yield", 0, 5.38e6,
				    CFG("spin_then_yield", 0) ", " CFG("spin_then_yield", 1) ", "
				    CFG("spin_then_yield", 7) ", " CFG("spin_yield_repeat", 0)) "]"), &h);
	assert_int_equal(c.states, ADV_LOCK_STATES_AGREE);
	assert_string_equal(c.strategy, "spin_then_yield");
	assert_int_equal(c.n, 0);
	assert_int_equal(c.n_min, 0);
	assert_int_equal(c.n_max, 7);
	/* A swept count between that one region lacks (1): no range over it. */
	c = choice_of(LEVEL(", \"states\": ["
			    STATE_M(118, 1, "spin_then_park", 7, 7.76e6,
				    CFG("spin_then_park", 7) ", " CFG("spin_then_yield", 0) ", "
				    CFG("spin_then_yield", 7)) ", "
			    STATE_M(499, 1, "spin_then_yield", 0, 5.38e6,
				    CFG("spin_then_yield", 0) ", " CFG("spin_then_yield", 1) ", "
				    CFG("spin_then_yield", 7)) "]"), &h);
	assert_int_equal(c.states, ADV_LOCK_STATES_AGREE);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.n_max, 0);
	/* Parking wins among shared ones. */
	c = choice_of(LEVEL(", \"states\": ["
			    STATE_M(60, 0.5, "spin_then_park", 7, 9e6,
				    CFG("spin_then_park", 7) ", " CFG("spin_then_park", 15) ", "
				    CFG("spin_then_yield", 1)) ", "
			    STATE_M(340, 0.5, "spin_then_yield", 1, 5e6,
				    CFG("spin_then_yield", 1) ", " CFG("spin_then_park", 15)) "]"), &h);
	assert_int_equal(c.states, ADV_LOCK_STATES_AGREE);
	assert_string_equal(c.strategy, "spin_then_park");
	assert_int_equal(c.n, 15);
	/* Same preferred strategy, overlapping ranges, but no member shared. */
	c = choice_of(LEVEL(", \"states\": ["
			    STATE_M(60, 0.5, "spin_then_park", 7, 9e6,
				    CFG("spin_then_park", 7) ", " CFG("spin_then_park", 255)) ", "
			    STATE_M(340, 0.5, "spin_then_park", 15, 5e6, CFG("spin_then_park", 15)) "]"),
		      &h);
	assert_int_equal(c.states, ADV_LOCK_STATES_DIFFER);
}

/* A member without a spin count or strategy drops the level's states. */
static void test_malformed_members_rejected(void **state)
{
	check_rejected(LEVEL(", \"states\": ["
			     STATE_M(60, 0.5, "spin_then_park", 7, 9e6,
				     CFG("spin_then_park", 7) ", {\"strategy\": \"spin_then_yield\"}") ", "
			     STATE_M(340, 0.5, "spin_then_yield", 1, 5e6, CFG("spin_then_yield", 1)) "]"),
		       "spin_threshold: region member 2 at light contention in CPU-distance state 1 "
		       "has no strategy or spin count");
}

/* A bad level verdict still rejects the whole family, states or not. */
static void test_bad_level_still_rejects_family(void **state)
{
	struct adv_host h;
	json_object *r = json_tokener_parse(
		"{\"spin_threshold\": {\"contention\": {\"light\": {\"best\": {\"strategy\": "
		"\"spin\", \"acq_per_s\": -5e6}, \"cpu_distance\": {\"states\": []}}}}}");

	assert_non_null(r);
	memset(&h, 0, sizeof(h));
	calib_host__fill(r, "x86_64", &h);
	assert_false(h.spin_threshold.present);
	assert_int_equal(h.rejected, ADV_FAM_SPIN_THRESHOLD);
	assert_string_equal(h.rejected_reason, "spin_threshold: best lock at light contention, acq/s "
			    "is -5e+06, outside 1 to 1e11 acq/s");
	json_object_put(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states_read),
		cmocka_unit_test(test_state_without_region),
		cmocka_unit_test(test_no_states),
		cmocka_unit_test(test_overlap_from_file),
		cmocka_unit_test(test_malformed_states_rejected),
		cmocka_unit_test(test_overlap_by_members),
		cmocka_unit_test(test_malformed_members_rejected),
		cmocka_unit_test(test_bad_level_still_rejects_family),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

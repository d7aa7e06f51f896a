// SPDX-License-Identifier: GPL-2.0
/*
 * The false_sharing family's CPU distance (calib_distance.h): on two CPUs
 * every row reads the round trip between them before each repetition,
 * says whether the readings met two states (then each state's ratio), and
 * the headline and result carry it for calibrate_repeat.sh and --compare.
 * Asserts no timing, only the shape and facts that hold on any host.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib/calib.h"
#include "calib/calib_json.h"
#include "calib/kern/calib_util.h"

/* The row's readings, one per kept repetition, each a plausible round
 * trip; states (near first) exactly when "changed". */
static void check_row_distance(json_object *row)
{
	json_object *d, *ns, *states;
	int n;

	assert_true(json_object_object_get_ex(row, "cpu_distance", &d));
	assert_true(json_object_object_get_ex(d, "round_trip_ns", &ns));
	n = (int)json_object_array_length(ns);
	assert_int_equal(n, (int)calib_json__double(json_object_object_get(row, "ratio_8_64"), "n", -1));
	for (int k = 0; k < n; k++) {
		double v = json_object_get_double(json_object_array_get_idx(ns, k));

		assert_true(v > 0 && v < 1e7);
	}
	if (json_object_object_get_ex(d, "states", &states)) {
		assert_true(json_object_get_boolean(json_object_object_get(d, "changed")));
		assert_int_equal(json_object_array_length(states), 2);
		assert_true(calib_json__double(json_object_array_get_idx(states, 0), "round_trip_ns", 0) <
			    calib_json__double(json_object_array_get_idx(states, 1), "round_trip_ns", 0));
	} else {
		assert_false(json_object_get_boolean(json_object_object_get(d, "changed")));
	}
}

/* A --quick context on the first n CPUs this process may use; false
 * when it may use fewer. */
static bool first_cpus(struct calib_ctx *ctx, int n)
{
	cpu_set_t all;

	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	if (CPU_COUNT(&all) < n)
		return false;
	CPU_ZERO(&ctx->cpus);
	for (int i = 0; i < n; i++)
		CPU_SET(calib__nth_cpu(&all, i), &ctx->cpus);
	ctx->ncpus = n;
	return true;
}

/* Whether every row of r read the distance: none does where even the
 * pilot's 16 round trips would not fit their time box, as when another
 * process holds one of the two CPUs through the pilot (calib_distance.c). */
static bool rows_read_distance(json_object *r)
{
	json_object *rows;

	assert_true(json_object_object_get_ex(r, "rows", &rows));
	assert_true(json_object_array_length(rows) >= 2);
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		if (!json_object_object_get_ex(json_object_array_get_idx(rows, i), "cpu_distance", NULL))
			return false;
	return true;
}

static void test_two_cpus_record_their_distance(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct calib_ctx ctx = { .quick = true, .stop = &stop };
	json_object *r = NULL, *rows;
	const char *headline;
	bool changed;

	if (!first_cpus(&ctx, 2))
		skip();
	/* A busy host can hold a CPU through a pilot (one run in three under
	 * ASan beside one CPU burner): up to three runs for one that read. */
	for (int run = 0; run < 3; run++) {
		json_object_put(r);
		r = json_object_new_object();
		assert_int_equal(calib_false_sharing.run(&ctx, r), 0);
		if (rows_read_distance(r))
			break;
		print_message("# run %d: the pilot could not read the CPUs' distance\n", run + 1);
	}
	assert_true(json_object_object_get_ex(r, "rows", &rows));
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		check_row_distance(json_object_array_get_idx(rows, i));
	/* The headline row's distance, for the repeatability script. */
	assert_true(calib_json__double(r, "cpu_distance_ns", 0) > 0);
	changed = json_object_get_boolean(json_object_object_get(r, "cpu_distance_changed"));
	headline = calib_json__string(r, "headline", "");
	assert_non_null(strstr(headline, changed ? "the CPUs' distance changed during it: " : " ns apart); "));
	print_message("# %s\n", headline);
	json_object_put(r);
}

/* One CPU: no distance to read, and no key claims one. */
static void test_one_cpu_reads_none(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct calib_ctx ctx = { .quick = true, .stop = &stop };
	json_object *r = json_object_new_object(), *rows;

	assert_true(first_cpus(&ctx, 1));
	assert_int_equal(calib_false_sharing.run(&ctx, r), 0);
	assert_true(json_object_object_get_ex(r, "rows", &rows));
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		assert_false(json_object_object_get_ex(json_object_array_get_idx(rows, i), "cpu_distance", NULL));
	assert_false(json_object_object_get_ex(r, "cpu_distance_ns", NULL));
	assert_null(strstr(calib_json__string(r, "headline", ""), " ns apart"));
	json_object_put(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cpus_record_their_distance),
		cmocka_unit_test(test_one_cpu_reads_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

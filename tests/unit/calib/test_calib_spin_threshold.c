// SPDX-License-Identifier: GPL-2.0
/*
 * The spin_threshold family's result: the documented keys the advisor
 * reads (best strategy and N per contention level, every figure with its
 * spread), the table's headline, and an early stop (Ctrl-C) that keeps
 * what was measured. Runs on one CPU so that it stays quick; asserts no
 * timing, only the shape and facts that hold on any host.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib/calib.h"
#include "calib/calib_json.h"
#include "calib/kern/calib_stat.h"

static struct calib_ctx one_cpu_ctx(volatile sig_atomic_t *stop)
{
	struct calib_ctx ctx = { .quick = true, .stop = stop };
	cpu_set_t all;

	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&ctx.cpus);
	CPU_SET(calib__nth_cpu(&all, 0), &ctx.cpus);
	ctx.ncpus = 1;
	return ctx;
}

static void check_figure(const json_object *obj, const char *key)
{
	struct calib_stats st;

	assert_true(calib_stats__from_json(obj, key, &st, NULL));
	assert_true(st.n >= 1);
	assert_true(st.min <= st.median && st.median <= st.max);
}

static void check_pick(const json_object *level, const char *key)
{
	json_object *p, *v;

	assert_true(json_object_object_get_ex(level, key, &p));
	assert_non_null(calib_json__string(p, "strategy", NULL));
	assert_non_null(calib_json__string(p, "label", NULL));
	assert_true(json_object_object_get_ex(p, "spins", &v));	/* null for spin/mutex */
	assert_true(calib_json__double(p, "acq_per_s", 0) > 0);
	assert_true(json_object_object_get_ex(p, "stop_all_ns", NULL));
	assert_true(json_object_object_get_ex(p, "within_noise_of_runner_up", NULL));
}

/* member_configs: the members again as {strategy, spins}, one each, the
 * pick's among them. */
static void check_member_configs(json_object *reg, json_object *pick)
{
	json_object *mc, *members = json_object_object_get(reg, "members");
	bool pick_in = false;

	assert_true(json_object_object_get_ex(reg, "member_configs", &mc));
	assert_int_equal(json_object_array_length(mc), json_object_array_length(members));
	for (size_t i = 0; i < json_object_array_length(mc); i++) {
		json_object *c = json_object_array_get_idx(mc, i);

		assert_true(calib_json__string(c, "strategy", "")[0]);
		assert_true(calib_json__double(c, "spins", -1) >= 0);
		pick_in |= !strcmp(calib_json__string(c, "strategy", ""), calib_json__string(pick, "strategy", "?")) &&
			   calib_json__double(c, "spins", -1) == calib_json__double(pick, "spins", -2);
	}
	assert_true(pick_in);
	/* The counts swept, ascending from 0: what a range of members may
	 * claim to cover. */
	assert_true(json_object_object_get_ex(reg, "spins_swept", &mc));
	assert_int_equal(json_object_array_length(mc), 8);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(mc, 0)), 0);
	for (size_t i = 1; i < json_object_array_length(mc); i++)
		assert_true(json_object_get_int(json_object_array_get_idx(mc, i)) >
			    json_object_get_int(json_object_array_get_idx(mc, i - 1)));
}

/* Every swept count from spins_min to spins_max is a member with the
 * pick's strategy: the range said ("spin 7-255") claims no count that
 * was slower. */
static void check_range_is_members(json_object *reg, const char *strategy)
{
	double lo = calib_json__double(reg, "spins_min", -1), hi = calib_json__double(reg, "spins_max", -1);
	json_object *swept = json_object_object_get(reg, "spins_swept");
	json_object *mc = json_object_object_get(reg, "member_configs");

	for (size_t i = 0; i < json_object_array_length(swept); i++) {
		double n = json_object_get_double(json_object_array_get_idx(swept, i));
		bool member = false;

		if (n < lo || n > hi)
			continue;
		for (size_t j = 0; j < json_object_array_length(mc); j++) {
			json_object *c = json_object_array_get_idx(mc, j);

			member |= !strcmp(calib_json__string(c, "strategy", ""), strategy) &&
				  calib_json__double(c, "spins", -1) == n;
		}
		if (!member)
			fail_msg("spin range %.0f-%.0f claims %.0f, not a member", lo, hi, n);
	}
}

/* The good region: its rule, members (the best among them), a preferred
 * pick that is a member, and the spin range of the pick's strategy. */
static void check_region(json_object *level)
{
	json_object *reg, *members, *pick, *best;
	bool pick_in = false, best_in = false;

	assert_true(json_object_object_get_ex(level, "region", &reg));
	assert_non_null(strstr(calib_json__string(reg, "rule", ""), "best's cluster"));
	assert_true(json_object_object_get_ex(reg, "members", &members));
	assert_true(json_object_array_length(members) >= 1);
	assert_int_equal((int)calib_json__double(reg, "of", 0), 26);
	assert_true(json_object_object_get_ex(reg, "pick", &pick));
	assert_true(json_object_object_get_ex(level, "best", &best));
	for (size_t i = 0; i < json_object_array_length(members); i++) {
		const char *m = json_object_get_string(json_object_array_get_idx(members, i));

		pick_in |= !strcmp(m, calib_json__string(pick, "label", "?"));
		best_in |= !strcmp(m, calib_json__string(best, "label", "?"));
	}
	assert_true(pick_in && best_in);
	check_member_configs(reg, pick);
	if (strstr(calib_json__string(pick, "strategy", ""), "spin_")) {
		assert_true(calib_json__double(reg, "spins_min", -1) ==
			    calib_json__double(pick, "spins", -2));
		assert_true(calib_json__double(reg, "spins_max", -1) >=
			    calib_json__double(reg, "spins_min", 0));
		check_range_is_members(reg, calib_json__string(pick, "strategy", ""));
	}
	assert_true(calib_json__double(reg, "spread", -1) >= 0);
}

static void test_result_keys_and_table(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct calib_ctx ctx = one_cpu_ctx(&stop);
	json_object *r = json_object_new_object(), *levels, *level, *configs;
	static const char *const names[] = { "light", "heavy" };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(calib_spin_threshold.run(&ctx, r), 0);
	assert_string_equal(calib_json__string(r, "spin_hint", ""),
#if defined(__x86_64__)
			    "pause"
#else
			    "isb"
#endif
			    );
	assert_true(json_object_object_get_ex(r, "contention", &levels));
	for (int i = 0; i < 2; i++) {
		assert_true(json_object_object_get_ex(levels, names[i], &level));
		assert_int_equal((int)calib_json__double(level, "threads", 0), i ? 4 : 1);
		assert_true(calib_json__double(level, "reps", 0) >= 2);
		check_pick(level, "best");
		check_pick(level, "best_stop_all");
		check_region(level);
		assert_true(calib_json__double(level, "mutex_acq_per_s", 0) > 0);
		assert_true(json_object_object_get_ex(level, "configs", &configs));
		/* Pure spin, pthread_mutex, and 3 strategies x 8 values of N. */
		assert_int_equal(json_object_array_length(configs), 26);
		for (size_t k = 0; k < json_object_array_length(configs); k++) {
			json_object *c = json_object_array_get_idx(configs, k);
			static const char *const figures[] = {
				"acq_per_s", "lat_p50_ns", "lat_p99_ns", "lat_max_ns",
				"stop_all_ns", "stop_all_max_ns", "min_acq", "max_acq",
			};
			double fair = calib_json__double(c, "fairness", -1);

			for (unsigned j = 0; j < sizeof(figures) / sizeof(figures[0]); j++)
				check_figure(c, figures[j]);
			assert_true(fair >= 0 && fair <= 1);
		}
	}
	/* One thread alone is perfectly fair: it takes every acquisition. */
	json_object_object_get_ex(levels, "light", &level);
	json_object_object_get_ex(level, "configs", &configs);
	assert_true(calib_json__double(json_object_array_get_idx(configs, 0), "fairness", 0) == 1.0);

	f = open_memstream(&text, &len);
	calib_spin_threshold.print(r, f);
	fclose(f);
	/* Headline first: the words a person acts on, also saved as text,
	 * from each level's good region. */
	assert_true(strncmp(text, "  light contention (1 thread): ", 31) == 0);
	assert_non_null(strstr(text, "\n  heavy contention (4 threads): "));
	assert_true(strncmp(calib_json__string(r, "headline", ""),
			    "light contention (1 thread): ", 29) == 0);
	assert_non_null(strstr(calib_json__string(r, "headline", ""),
			       "; heavy contention (4 threads): "));
	assert_non_null(strstr(text, "M acq/s"));
	free(text);
	/* A level that could not separate its strategies sends a --quick
	 * run's reader to --full, a --full run's to idle CPUs only (the run's
	 * "mode", which the driver sets; none: --quick). */
	for (int full = 0; full < 2; full++) {
		for (int i = 0; i < 2; i++) {
			json_object_object_get_ex(levels, names[i], &level);
			json_object_object_add(json_object_object_get(level, "region"), "separated",
					       json_object_new_boolean(false));
		}
		if (full)
			json_object_object_add(r, "mode", json_object_new_string("full"));
		f = open_memstream(&text, &len);
		calib_spin_threshold.print(r, f);
		fclose(f);
		assert_non_null(strstr(text, "could not separate the strategies"));
		assert_true((strstr(text, "rerun with --full") == NULL) == (full == 1));
		assert_non_null(strstr(text, full ? "rerun with --cpus on idle CPUs" :
						     "rerun with --full, or --cpus on idle CPUs"));
		free(text);
	}
	json_object_put(r);
}

/* On two CPUs each level reads their distance before every repetition
 * and after the last (the cache line's round trip between the first two
 * CPUs), and before every run; says whether the latter met two states,
 * with a verdict for each; and its headline carries the distance or the
 * change. */
static void test_two_cpus_record_their_distance(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct calib_ctx ctx = { .quick = true, .stop = &stop };
	json_object *r = json_object_new_object(), *levels, *level, *d, *ns, *states;
	static const char *const names[] = { "light", "heavy" };
	const char *headline;
	cpu_set_t all;

	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	if (CPU_COUNT(&all) < 2)
		skip();
	CPU_ZERO(&ctx.cpus);
	CPU_SET(calib__nth_cpu(&all, 0), &ctx.cpus);
	CPU_SET(calib__nth_cpu(&all, 1), &ctx.cpus);
	ctx.ncpus = 2;
	assert_int_equal(calib_spin_threshold.run(&ctx, r), 0);
	headline = calib_json__string(r, "headline", "");
	assert_true(json_object_object_get_ex(r, "contention", &levels));
	for (int i = 0; i < 2; i++) {
		double v[32];
		int n;

		assert_true(json_object_object_get_ex(levels, names[i], &level));
		assert_true(json_object_object_get_ex(level, "cpu_distance", &d));
		assert_true(json_object_object_get_ex(d, "round_trip_ns", &ns));
		n = (int)json_object_array_length(ns);
		assert_int_equal(n, (int)calib_json__double(level, "reps", 0) + 1);
		for (int k = 0; k < n && k < 32; k++) {
			v[k] = json_object_get_double(json_object_array_get_idx(ns, k));
			assert_true(v[k] > 0 && v[k] < 1e7);
		}
		/* Changed exactly when the readings before each run split into
		 * two states, and then each state has its entry, near first. */
		assert_true(json_object_object_get_ex(d, "changed", NULL));
		if (json_object_object_get_ex(d, "states", &states)) {
			assert_int_equal(json_object_array_length(states), 2);
			assert_true(calib_json__double(json_object_array_get_idx(states, 0), "round_trip_ns", 0) <
				    calib_json__double(json_object_array_get_idx(states, 1), "round_trip_ns", 0));
			assert_true(json_object_get_boolean(json_object_object_get(d, "changed")));
		} else {
			assert_false(json_object_get_boolean(json_object_object_get(d, "changed")));
		}
		print_message("# %s: round trips %.0f .. %.0f ns, changed %d\n", names[i], v[0], v[n - 1],
			      json_object_get_boolean(json_object_object_get(d, "changed")));
	}
	assert_true(strstr(headline, " ns apart)") || strstr(headline, "CPUs' distance changed)"));
	json_object_put(r);
}

static void stop_at_first_progress(void *arg, double done)
{
	*(volatile sig_atomic_t *)arg = 1;
}

/* Ctrl-C after the first configuration: the run returns 0 and keeps what
 * it measured (one figure), and the heavy level never starts. */
static void test_early_stop_keeps_results(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct calib_ctx ctx = one_cpu_ctx(&stop);
	json_object *r = json_object_new_object(), *levels, *level, *configs;

	ctx.progress = stop_at_first_progress;
	ctx.progress_arg = (void *)&stop;
	assert_int_equal(calib_spin_threshold.run(&ctx, r), 0);
	assert_true(json_object_object_get_ex(r, "contention", &levels));
	assert_true(json_object_object_get_ex(levels, "light", &level));
	assert_false(json_object_object_get_ex(levels, "heavy", NULL));
	assert_true(json_object_object_get_ex(level, "configs", &configs));
	assert_int_equal(json_object_array_length(configs), 1);
	check_pick(level, "best");
	json_object_put(r);
}

static void test_print_skipped(void **state)
{
	json_object *r = json_object_new_object();
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	calib_json__skip(r, "test reason");
	calib_spin_threshold.print(r, f);
	fclose(f);
	assert_string_equal(text, "  skipped: test reason\n");
	free(text);
	json_object_put(r);
}

/* A configuration with acquisitions/s around m: nine repetitions, tight. */
static json_object *config(const char *strategy, int spins, double m)
{
	json_object *c = json_object_new_object(), *f = json_object_new_object();
	char label[48];

	snprintf(label, sizeof(label), "%s %d", strategy, spins);
	json_object_object_add(c, "strategy", json_object_new_string(strategy));
	json_object_object_add(c, "spins", json_object_new_int(spins));
	json_object_object_add(c, "label", json_object_new_string(label));
	json_object_object_add(f, "median", json_object_new_double(m));
	json_object_object_add(f, "min", json_object_new_double(m * 0.995));
	json_object_object_add(f, "max", json_object_new_double(m * 1.005));
	json_object_object_add(f, "cv", json_object_new_double(0.003));
	json_object_object_add(f, "ci_lo", json_object_new_double(m * 0.998));
	json_object_object_add(f, "ci_hi", json_object_new_double(m * 1.002));
	json_object_object_add(f, "mad", json_object_new_double(m * 0.002));
	json_object_object_add(f, "n", json_object_new_int(9));
	json_object_object_add(c, "acq_per_s", f);
	return c;
}

/* Members of one strategy at 1, 7, 31 and 63 spins, the count between (15)
 * clearly slower: the range said is the run around the pick, 1-7, not
 * 1-63 (which would claim 15). */
static void test_region_range_skips_a_slower_count(void **state)
{
	static const int spins[] = { 0, 1, 7, 15, 31, 63, 127, 255 };
	static const double park[] = { 5e6, 10e6, 10.02e6, 6e6, 9.99e6, 10.01e6, 7e6, 7e6 };
	json_object *level = json_object_new_object(), *configs = json_object_new_array();
	json_object *reg;

	(void)state;
	json_object_array_add(configs, config("pthread_mutex", 0, 3e6));
	for (int i = 0; i < 8; i++) {
		json_object_array_add(configs, config("spin_then_park", spins[i], park[i]));
		json_object_array_add(configs, config("spin_then_yield", spins[i], 4e6));
	}
	calib_spin_threshold__region(level, configs);
	assert_true(json_object_object_get_ex(level, "region", &reg));
	assert_string_equal(calib_json__string(json_object_object_get(reg, "pick"), "strategy", ""),
			    "spin_then_park");
	assert_int_equal((int)calib_json__double(reg, "strategy_members", 0), 4);
	assert_int_equal((int)calib_json__double(reg, "spins_min", -1), 1);
	assert_int_equal((int)calib_json__double(reg, "spins_max", -1), 7);
	check_range_is_members(reg, "spin_then_park");
	json_object_put(level);
	json_object_put(configs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result_keys_and_table),
		cmocka_unit_test(test_two_cpus_record_their_distance),
		cmocka_unit_test(test_early_stop_keeps_results),
		cmocka_unit_test(test_print_skipped),
		cmocka_unit_test(test_region_range_skips_a_slower_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

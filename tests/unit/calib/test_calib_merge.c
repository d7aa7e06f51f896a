// SPDX-License-Identifier: GPL-2.0
/*
 * What a calibration run may replace in the stored one (calib_merge.h): a
 * busier family never replaces a quieter one unless forced, nor a --quick
 * one a --full one, an interrupted or failed one never replaces a complete
 * one, untouched families stay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "calib/calib_merge.h"

/* {"measured_at":at,"busy":{others_cpu_share,steal_frac,busy,load1},"x":v}
 * plus extra (a JSON object's members, may be ""). */
static json_object *family(const char *at, double others, bool busy, double v, const char *extra)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "{\"measured_at\":\"%s\",\"busy\":{\"load1\":1.5,\"others_cpu_share\":%g,"
		 "\"steal_frac\":0,\"busy\":%s},\"x\":{\"median\":%g}%s%s}", at, others,
		 busy ? "true" : "false", v, extra[0] ? "," : "", extra);
	return json_tokener_parse(text);
}

static double x_of(const json_object *results, const char *fam)
{
	json_object *f, *x, *m;

	if (!json_object_object_get_ex(results, fam, &f) || !json_object_object_get_ex(f, "x", &x) ||
	    !json_object_object_get_ex(x, "median", &m))
		return -1;
	return json_object_get_double(m);
}

static void test_busier_does_not_replace_quieter(void **state)
{
	json_object *stored = json_object_new_object(), *fresh = json_object_new_object(), *out;
	struct calib_merge_note notes[4];
	size_t n;

	json_object_object_add(stored, "spin_hint", family("2026-12-01 12:00:00 UTC", 0.03, false, 13, ""));
	json_object_object_add(stored, "numa", family("2026-12-01 12:00:00 UTC", 0.02, false, 7, ""));
	json_object_object_add(fresh, "spin_hint", family("2026-12-01 13:00:00 UTC", 0.62, true, 40, ""));
	out = calib_merge__results(stored, fresh, false, notes, 4, &n);
	assert_true(x_of(out, "spin_hint") == 13);	/* the quiet one kept */
	assert_true(x_of(out, "numa") == 7);		/* untouched family kept */
	assert_int_equal(n, 1);
	assert_string_equal(notes[0].family, "spin_hint");
	/* Which one was kept, when, under what load; and how to override. */
	assert_non_null(strstr(notes[0].text, "kept the figures measured on a quieter host "
			       "(2026-12-01 12:00:00 UTC, other processes 3% of the CPUs"));
	assert_non_null(strstr(notes[0].text, "this run's (2026-12-01 13:00:00 UTC, other processes 62%"));
	assert_non_null(strstr(notes[0].text, "--force"));
	json_object_put(out);

	/* --force replaces it. */
	out = calib_merge__results(stored, fresh, true, notes, 4, &n);
	assert_true(x_of(out, "spin_hint") == 40);
	assert_int_equal(n, 0);
	json_object_put(out);
	json_object_put(stored);
	json_object_put(fresh);
}

static void test_quieter_or_equal_replaces(void **state)
{
	json_object *stored = json_object_new_object(), *fresh = json_object_new_object(), *out;
	struct calib_merge_note notes[4];
	size_t n;

	/* A busy stored family gives way to a quiet run... */
	json_object_object_add(stored, "a", family("t0", 0.70, true, 1, ""));
	json_object_object_add(fresh, "a", family("t1", 0.05, false, 2, ""));
	/* ...a quiet one to another quiet one (the newer)... */
	json_object_object_add(stored, "b", family("t0", 0.01, false, 1, ""));
	json_object_object_add(fresh, "b", family("t1", 0.20, false, 2, ""));
	/* ...and a busy one to a run about as busy or less. */
	json_object_object_add(stored, "c", family("t0", 0.60, true, 1, ""));
	json_object_object_add(fresh, "c", family("t1", 0.62, true, 2, ""));
	json_object_object_add(stored, "d", family("t0", 0.40, true, 1, ""));
	json_object_object_add(fresh, "d", family("t1", 0.90, true, 2, ""));
	out = calib_merge__results(stored, fresh, false, notes, 4, &n);
	assert_true(x_of(out, "a") == 2);
	assert_true(x_of(out, "b") == 2);
	assert_true(x_of(out, "c") == 2);
	assert_true(x_of(out, "d") == 1);	/* far busier: kept the stored */
	assert_int_equal(n, 1);
	assert_string_equal(notes[0].family, "d");
	json_object_put(out);
	/* Nothing stored: everything fresh is taken. */
	out = calib_merge__results(NULL, fresh, false, notes, 4, &n);
	assert_true(x_of(out, "d") == 2);
	assert_int_equal(n, 0);
	json_object_put(out);
	json_object_put(stored);
	json_object_put(fresh);
}

static void test_partial_never_replaces_complete(void **state)
{
	json_object *stored = json_object_new_object(), *fresh = json_object_new_object(), *out;
	struct calib_merge_note notes[4];
	size_t n;

	json_object_object_add(stored, "false_sharing", family("t0", 0.5, true, 5.4, ""));
	json_object_object_add(fresh, "false_sharing", family("t1", 0.0, false, 1.0, "\"partial\":true"));
	json_object_object_add(stored, "host_costs", family("t0", 0.0, false, 25, ""));
	json_object_object_add(fresh, "host_costs", family("t1", 0.0, false, 0, "\"error\":\"Protocol error\""));
	json_object_object_add(stored, "numa", family("t0", 0.0, false, 3, ""));
	json_object_object_add(fresh, "numa", family("t1", 0.0, false, 0, "\"skipped\":true"));
	/* A stored partial family is no better than a fresh partial one. */
	json_object_object_add(stored, "spin_hint", family("t0", 0.0, false, 1, "\"partial\":true"));
	json_object_object_add(fresh, "spin_hint", family("t1", 0.0, false, 2, "\"partial\":true"));
	/* Even --force keeps a complete family over an interrupted one. */
	out = calib_merge__results(stored, fresh, true, notes, 4, &n);
	assert_true(x_of(out, "false_sharing") == 5.4);
	assert_true(x_of(out, "host_costs") == 25);
	assert_true(x_of(out, "numa") == 3);
	assert_true(x_of(out, "spin_hint") == 2);
	assert_int_equal(n, 3);
	assert_non_null(strstr(notes[0].text, "false_sharing: kept the complete figures measured t0"));
	assert_non_null(strstr(notes[0].text, "this run's were interrupted and were not saved"));
	json_object_put(out);
	json_object_put(stored);
	json_object_put(fresh);
}

/* A --full family stays over a --quick run as quiet: it replaces it only
 * from a quieter host, when forced, or once the --full one is a week old;
 * a --full run replaces either. */
static void test_full_not_replaced_by_quick(void **state)
{
	const char *full = "\"mode\":\"full\"", *quick = "\"mode\":\"quick\"";
	json_object *stored = json_object_new_object(), *fresh = json_object_new_object(), *out;
	struct calib_merge_note notes[8];
	size_t n;

	/* a: a quick run as quiet: kept, said. */
	json_object_object_add(stored, "a", family("2026-12-01 12:00:00 UTC", 0.03, false, 1, full));
	json_object_object_add(fresh, "a", family("2026-12-02 12:00:00 UTC", 0.04, false, 2, quick));
	/* b: a quick run from a quieter host than a busy --full one. */
	json_object_object_add(stored, "b", family("2026-12-01 12:00:00 UTC", 0.60, true, 1, full));
	json_object_object_add(fresh, "b", family("2026-12-02 12:00:00 UTC", 0.02, false, 2, quick));
	/* c: the --full one eight days old. */
	json_object_object_add(stored, "c", family("2026-12-01 12:00:00 UTC", 0.01, false, 1, full));
	json_object_object_add(fresh, "c", family("2026-12-09 12:00:01 UTC", 0.04, false, 2, quick));
	/* d: a --full run replaces a --full one; e: a quick one, a quick one. */
	json_object_object_add(stored, "d", family("2026-12-01 12:00:00 UTC", 0.01, false, 1, full));
	json_object_object_add(fresh, "d", family("2026-12-02 12:00:00 UTC", 0.04, false, 2, full));
	json_object_object_add(stored, "e", family("2026-12-01 12:00:00 UTC", 0.01, false, 1, quick));
	json_object_object_add(fresh, "e", family("2026-12-02 12:00:00 UTC", 0.04, false, 2, quick));
	out = calib_merge__results(stored, fresh, false, notes, 8, &n);
	assert_true(x_of(out, "a") == 1);
	assert_true(x_of(out, "b") == 2);
	assert_true(x_of(out, "c") == 2);
	assert_true(x_of(out, "d") == 2);
	assert_true(x_of(out, "e") == 2);
	assert_int_equal(n, 1);
	assert_string_equal(notes[0].family, "a");
	assert_non_null(strstr(notes[0].text, "a: kept the figures of a --full run "
			       "(2026-12-01 12:00:00 UTC by --full, other processes 3% of the CPUs"));
	assert_non_null(strstr(notes[0].text, "this --quick run's (2026-12-02 12:00:00 UTC by "
			       "--quick, other processes 4%"));
	assert_non_null(strstr(notes[0].text, "run --full, or give --force"));
	json_object_put(out);

	/* --force replaces it. */
	out = calib_merge__results(stored, fresh, true, notes, 8, &n);
	assert_true(x_of(out, "a") == 2);
	assert_int_equal(n, 0);
	json_object_put(out);
	json_object_put(stored);
	json_object_put(fresh);
}

static void test_busy_score_and_conditions(void **state)
{
	json_object *f = family("2026-12-01 12:00:00 UTC", 0.25, true, 1, "");
	json_object *old = json_tokener_parse("{\"busy\":{\"load1\":7.7,\"steal_frac\":0,\"busy\":true}}");
	char buf[256];

	assert_true(calib_merge__busy_score(f) == 0.25);
	/* Files written before others' share was kept: the flag decides. */
	assert_true(calib_merge__busy_score(old) == 1.0);
	assert_string_equal(calib_merge__conditions(f, buf, sizeof(buf)),
			    "2026-12-01 12:00:00 UTC, other processes 25% of the CPUs, steal 0%, load 1.50: busy");
	assert_string_equal(calib_merge__conditions(old, buf, sizeof(buf)),
			    "time not recorded, steal 0%, load 7.70: busy");
	json_object_put(f);
	json_object_put(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busier_does_not_replace_quieter),
		cmocka_unit_test(test_quieter_or_equal_replaces),
		cmocka_unit_test(test_partial_never_replaces_complete),
		cmocka_unit_test(test_full_not_replaced_by_quick),
		cmocka_unit_test(test_busy_score_and_conditions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

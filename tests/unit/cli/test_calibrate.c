// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope calibrate` as a whole: the options parser's errors (exit 2,
 * one line), --quick completing with every family in the JSON, the saved
 * document, --show, and Ctrl-C saving a partial result.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "testlib.h"
#include "calib/calib_store.h"
#include "cli/calibrate.h"
#include "common/errors.h"

static char tmpdir[64];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ss-calibrate-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static int parse(struct calibrate_opts *o, int argc, char **argv)
{
	return calibrate__parse_args(argc, argv, o);
}

static void test_parser(void **state)
{
	struct calibrate_opts o;
	char *a1[] = { "calibrate", NULL };
	char *a2[] = { "calibrate", "--full", "--only", "spin_hint,memory_order", "--cpus", "0",
		       "--json", "-o", "/x.json", NULL };
	char *a3[] = { "calibrate", "--only", "spin_hint,bogus", NULL };
	char *a4[] = { "calibrate", "--cpus", "0-", NULL };
	char *a5[] = { "calibrate", "--cpus", "4095", NULL };
	char *a6[] = { "calibrate", "--quick", "--full", NULL };
	char *a7[] = { "calibrate", "--frobnicate", NULL };
	char *a8[] = { "calibrate", "--only", NULL };
	char *a9[] = { "calibrate", "extra", NULL };

	assert_int_equal(parse(&o, 1, a1), 0);
	assert_true(o.quick && !o.json && !o.show && !o.path);
	assert_int_equal(o.only, (1u << calibrate_nfamilies) - 1);
	assert_int_equal(calibrate_nfamilies, 6);
	assert_int_equal(parse(&o, 9, a2), 0);
	assert_false(o.quick);
	assert_true(o.json);
	assert_string_equal(o.path, "/x.json");
	assert_int_equal(CPU_COUNT(&o.cpus), 1);
	assert_true(CPU_ISSET(0, &o.cpus));
	for (int i = 0; i < calibrate_nfamilies; i++) {
		bool want = !strcmp(calibrate_families[i]->key, "spin_hint") ||
			    !strcmp(calibrate_families[i]->key, "memory_order");
		assert_int_equal(!!(o.only & (1u << i)), want);
	}
	assert_int_equal(parse(&o, 3, a3), SS_EXIT_USAGE);
	assert_int_equal(parse(&o, 3, a4), SS_EXIT_USAGE);
	assert_int_equal(parse(&o, 3, a5), SS_EXIT_USAGE);	/* not an allowed CPU */
	assert_int_equal(parse(&o, 3, a6), SS_EXIT_USAGE);
	assert_int_equal(parse(&o, 2, a7), SS_EXIT_USAGE);
	assert_int_equal(parse(&o, 2, a8), SS_EXIT_USAGE);
	assert_int_equal(parse(&o, 2, a9), SS_EXIT_USAGE);
}

/* Runs spinscope with args; returns the exit code, stdout and stderr. */
static int run(char **out, char **err, const char *a1, const char *a2, const char *a3,
	       const char *a4, const char *a5, const char *a6)
{
	char *argv[] = { (char *)tl_path("spinscope"), "calibrate", (char *)a1, (char *)a2,
			 (char *)a3, (char *)a4, (char *)a5, (char *)a6, NULL };

	return tl_run(argv, out, err);
}

/* CPU seconds (user + system) of the children waited for so far. */
static double children_cpu_s(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_usage_errors_are_one_line(void **state)
{
	char *out, *err;

	assert_int_equal(run(&out, &err, "--only", "nonsense", NULL, NULL, NULL, NULL), 2);
	assert_int_equal(lines(err), 1);
	assert_non_null(strstr(err, "unknown family 'nonsense' in --only"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(run(&out, &err, "--cpus", "1-0", NULL, NULL, NULL, NULL), 2);
	assert_int_equal(lines(err), 1);
	assert_non_null(strstr(err, "bad --cpus list '1-0'"));
	free(out);
	free(err);
	assert_int_equal(run(&out, &err, "--help", NULL, NULL, NULL, NULL, NULL), 0);
	assert_non_null(strstr(out, "Usage: spinscope calibrate"));
	free(out);
	free(err);
}

static void test_quick_completes_and_saves(void **state)
{
	char path[128], *out, *err;
	json_object *doc, *results, *saved, *v;
	double cpu0 = children_cpu_s();
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(path, sizeof(path), "%s/quick.json", tmpdir);
	int rc = run(&out, &err, "--quick", "--json", "-o", path, NULL, NULL);
	if (rc != 0) {
		/* Say which family failed and why, not just the exit code. */
		const char *e = strstr(out, "\"error\"");

		fail_msg("calibrate --quick exited %d: %s; first error: %.160s", rc, err,
			 e ? e : "(none in the document)");
	}
	/* Not a timing assertion: a generous bound that only a runaway breaks.
	 * It is the run's own CPU time spread over the CPUs (120 s of wall
	 * time on an idle host): on a host loaded by others the same work
	 * takes longer by the clock, not more CPU. */
	assert_true((children_cpu_s() - cpu0) / (ncpus > 0 ? ncpus : 1) < 120);
	/* stderr is a pipe here: no progress bar, no carriage returns. */
	assert_null(strchr(err, '\r'));
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "schema", &v));
	assert_int_equal(json_object_get_int(v), CALIB_SCHEMA);
	assert_true(json_object_object_get_ex(doc, "host", &v));
	assert_true(json_object_object_get_ex(doc, "results", &results));
	for (int i = 0; i < calibrate_nfamilies; i++) {
		json_object *r;

		assert_true(json_object_object_get_ex(results, calibrate_families[i]->key, &r));
		assert_false(json_object_object_get_ex(r, "error", &v));
		assert_true(json_object_object_get_ex(r, "seconds", &v));
	}
	/* The families of this file's author state a headline in words. */
	static const char *const headed[] = { "false_sharing", "spin_hint", "memory_order" };
	for (int i = 0; i < 3; i++) {
		json_object *r;

		assert_true(json_object_object_get_ex(results, headed[i], &r));
		assert_true(json_object_object_get_ex(r, "headline", &v));
		assert_true(json_object_get_string_len(v) > 20);
	}
	assert_true(json_object_object_get_ex(doc, "partial", &v));
	assert_false(json_object_get_boolean(v));
	/* The saved file is the same document and loads as this host's. */
	char why[512];
	assert_int_equal(calib_store__load_matching_at(path, NULL, &saved, why, sizeof(why)), 0);
	assert_true(json_object_object_get_ex(saved, "spin_hint", &v));
	json_object_put(saved);
	json_object_put(doc);
	free(out);
	free(err);

	/* --show prints it again, headline first per family. */
	assert_int_equal(run(&out, &err, "--show", "-o", path, NULL, NULL, NULL), 0);
	assert_non_null(strstr(out, "Spin-wait hint instructions [spin_hint]\n  measured 20"));
	assert_non_null(strstr(out, "\n  per hint: "));
	assert_non_null(strstr(out, "False sharing and padding [false_sharing]\n  measured 20"));
	assert_non_null(strstr(out, "\n  unpadded/padded: "));
	assert_non_null(strstr(out, "Memory ordering [memory_order]\n  measured 20"));
	assert_non_null(strstr(out, "\n  store: release "));
	/* When, by which run and under what load each family was measured. */
	assert_non_null(strstr(out, " UTC by --quick, other processes "));
	free(out);
	free(err);
}

static void test_ctrl_c_saves_partial(void **state)
{
	char path[128];
	char *argv[] = { (char *)tl_path("spinscope"), "calibrate", "--full", "--only",
			 "false_sharing,memory_order", "-o", path, NULL };
	struct tl_proc p;
	json_object *doc, *v, *results;

	snprintf(path, sizeof(path), "%s/partial.json", tmpdir);
	assert_int_equal(tl_spawn(&p, argv), 0);
	/* --full takes far longer than this: the signal lands mid-run. */
	usleep(700 * 1000);
	tl_kill(&p, SIGINT);
	char *out = tl_read_all(p.out_fd);
	char *err = tl_read_all(p.err_fd);
	assert_int_equal(tl_wait(&p), SS_EXIT_ERROR);
	assert_non_null(strstr(err, "calibration interrupted: partial results saved to"));
	assert_int_equal(calib_store__load(path, &doc), 0);
	assert_true(json_object_object_get_ex(doc, "partial", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(doc, "results", &results));
	assert_true(json_object_object_get_ex(results, "false_sharing", &v));
	json_object_put(doc);
	free(out);
	free(err);
}

#define CMP "tests/fixtures/calib/compare/"

/* --compare on two fixture files: side by side, ratios, and which
 * differences exceed the noise both measured. */
static void test_compare_fixtures(void **state)
{
	char *out, *err;
	json_object *doc, *figs;
	int seen = 0;

	assert_int_equal(run(&out, &err, "--compare", CMP "host-a.json", CMP "host-b.json", NULL,
			     NULL, NULL), 0);
	assert_string_equal(err, "");
	assert_non_null(strstr(out, "B: " CMP "host-b.json: Next Gen Processor (x86_64)"));
	/* 13.25 ns (12.98-13.65) against 26.5 ns (26.4-26.6): beyond noise. */
	assert_non_null(strstr(out, "PAUSE, ns                                     13.2 ±3%        "
			       "26.5 ±0%    2.00x  differs beyond noise\n"));
	/* 28.2 us (27.6-29.1) against 28.5 us (27.7-29.3): within noise. */
	assert_non_null(strstr(out, "futex handoff, across CPUs, us                28.2 ±2%        "
			       "28.5 ±3%    1.01x  within noise\n"));
	assert_non_null(strstr(out, "bimodal; B: modes 89 (60%) and 395 (40%)\n"));
	assert_non_null(strstr(out, "seq_cst store, ns                             5.68 ±2%                -"
			       "        -  measured on one only\n"));
	assert_non_null(strstr(out, "1 figure differs beyond the noise both runs measured"));
	assert_non_null(strstr(out, "lock, heavy contention (region)        spin_then_park 31 | spin_then_park 31"));
	free(out);
	free(err);

	assert_int_equal(run(&out, &err, "--compare", CMP "host-a.json", CMP "host-b.json", "--json",
			     NULL, NULL), 0);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "figures", &figs));
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i);
		const char *name = json_object_get_string(json_object_object_get(f, "figure"));

		if (!strcmp(name, "PAUSE")) {
			assert_float_equal(json_object_get_double(json_object_object_get(f, "ratio")),
					   2.0, 1e-9);
			assert_string_equal(json_object_get_string(json_object_object_get(f, "verdict")),
					    "differs beyond noise");
			seen++;
		}
	}
	assert_int_equal(seen, 1);
	json_object_put(doc);
	free(out);
	free(err);

	/* A file that is not a calibration: one line, exit 1. */
	assert_int_equal(run(&out, &err, "--compare", CMP "host-a.json",
			     "tests/fixtures/calib/absurd/malformed.json", NULL, NULL, NULL), 1);
	assert_int_equal(lines(err), 1);
	assert_non_null(strstr(err, "malformed.json is not valid JSON"));
	free(out);
	free(err);
	assert_int_equal(run(&out, &err, "--compare", CMP "host-a.json", NULL, NULL, NULL, NULL), 2);
	assert_non_null(strstr(err, "--compare needs two files"));
	free(out);
	free(err);
}

/* A level that met two CPU distances gets a row of its states' verdicts,
 * compared as the advisor compares them; files without states get none. */
static void test_compare_states(void **state)
{
	char *out, *err;
	json_object *doc, *ver;

	assert_int_equal(run(&out, &err, "--compare", CMP "host-a.json", CMP "host-b.json", NULL,
			     NULL, NULL), 0);
	assert_null(strstr(out, "by CPU distance"));
	free(out);
	free(err);
	assert_int_equal(run(&out, &err, "--compare", CMP "host-a.json", CMP "host-b-states.json",
			     NULL, NULL, NULL), 0);
	assert_string_equal(err, "");
	assert_non_null(strstr(out, "lock, light, by CPU distance           - | 62 ns spin_then_park "
			       "7-255, 352 ns spin_then_yield 0-7: none in both\n"));
	assert_non_null(strstr(out, "lock, heavy, by CPU distance           - | 58 ns spin_then_park "
			       "7-63, 330 ns spin_then_park 15-255: both 15-63\n"));
	/* The level's own verdict stays as it was. */
	assert_non_null(strstr(out, "lock, heavy contention (region)        spin_then_park 31 | "
			       "spin_then_park 31\n"));
	free(out);
	free(err);
	assert_int_equal(run(&out, &err, "--compare", CMP "host-a.json", CMP "host-b-states.json",
			     "--json", NULL, NULL), 0);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "verdicts", &ver));
	assert_string_equal(json_object_get_string(json_object_object_get(ver, "light_by_distance")),
			    "-");
	assert_string_equal(json_object_get_string(json_object_object_get(ver, "heavy_by_distance_b")),
			    "58 ns spin_then_park 7-63, 330 ns spin_then_park 15-255: both 15-63");
	json_object_put(doc);
	free(out);
	free(err);
}

/* --show ends with the lock strategy a trace's advice will quote from the
 * file: both CPU-distance states where a level has them. A file whose
 * figures are not the arrays calibrate writes (host-a.json's
 * memory_order) prints, where it aborted in json-c before. */
static void test_show_lock_advice(void **state)
{
	char *out, *err;

	assert_int_equal(run(&out, &err, "--show", "-o", CMP "host-b-states.json", NULL, NULL, NULL), 0);
	/* The fixture is another host's: said so, as the warning does. */
	assert_non_null(strstr(out, "\nlock strategy the advice would quote on the host that measured "
			       "these results: light contention: depends "
			       "on the CPUs' distance: spin_then_park N=7 at 62 ns, spin_then_yield N=0 "
			       "at 352 ns; heavy contention: spin_then_park N=15 (any N from 15 to 63), "
			       "good in both CPU-distance states (58 ns, 330 ns apart)\n"));
	free(out);
	free(err);
	assert_int_equal(run(&out, &err, "--show", "-o", CMP "host-a.json", NULL, NULL, NULL), 0);
	assert_non_null(strstr(out, "Memory ordering [memory_order]"));
	assert_non_null(strstr(out, "these results: light contention: spin_yield_repeat N=7; heavy "
			       "contention: spin_then_park N=31\n"));
	free(out);
	free(err);
}

/* Replaces the target-th array (depth first, from *k = 0) under o with
 * repl (taking it); true once done. */
static bool replace_nth_array(json_object *o, int *k, int target, json_object *repl)
{
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v) {
			if (json_object_is_type(v, json_type_array) && (*k)++ == target) {
				json_object_object_add(o, key, repl);
				return true;
			}
			if (replace_nth_array(v, k, target, repl))
				return true;
		}
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			json_object *v = json_object_array_get_idx(o, i);

			if (json_object_is_type(v, json_type_array) && (*k)++ == target) {
				json_object_array_put_idx(o, i, repl);
				return true;
			}
			if (replace_nth_array(v, k, target, repl))
				return true;
		}
	}
	return false;
}

/* A stored file is read back whatever its shape: every array of a real
 * store (two CPU-distance states, one carried) replaced in turn by an
 * object or null, --show and --compare exit 0, never a signal (json-c
 * asserts that an array length is asked of an array: the fixtures'
 * memory_order once aborted --show). */
static void test_show_survives_any_shape(void **state)
{
	static const char *fixture = "tests/fixtures/calib/store/two-states.json";
	json_object *doc = json_object_from_file(fixture);
	char path[] = "/tmp/spinscope-shape-XXXXXX";
	int fd = mkstemp(path), n = 0;

	assert_non_null(doc);
	assert_true(fd >= 0);
	close(fd);
	for (int target = 0;; target++) {
		bool done = false;

		for (int t = 0; t < 2; t++) {
			json_object *copy = NULL, *repl = t ? NULL : json_object_new_object();
			char *out, *err;
			int k = 0;

			assert_int_equal(json_object_deep_copy(doc, &copy, NULL), 0);
			if (!replace_nth_array(copy, &k, target, repl)) {
				/* Past the last array: the replacement went nowhere. */
				json_object_put(repl);
				json_object_put(copy);
				done = true;
				break;
			}
			assert_int_equal(json_object_to_file(path, copy), 0);
			json_object_put(copy);
			assert_int_equal(run(&out, &err, "--show", "-o", path, NULL, NULL, NULL), 0);
			free(out);
			free(err);
			assert_int_equal(run(&out, &err, "--compare", path, fixture, NULL, NULL, NULL), 0);
			free(out);
			free(err);
		}
		if (done)
			break;
		n++;
	}
	print_message("# %d arrays replaced in turn\n", n);
	assert_true(n >= 30);
	unlink(path);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parser),
		cmocka_unit_test(test_usage_errors_are_one_line),
		cmocka_unit_test(test_quick_completes_and_saves),
		cmocka_unit_test(test_ctrl_c_saves_partial),
		cmocka_unit_test(test_compare_fixtures),
		cmocka_unit_test(test_compare_states),
		cmocka_unit_test(test_show_lock_advice),
		cmocka_unit_test(test_show_survives_any_shape),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

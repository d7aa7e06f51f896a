// SPDX-License-Identifier: GPL-2.0
/*
 * A busy host never overwrites a good calibration, for real: a quiet stored
 * calibration of this host (a fixture's results under this host's
 * fingerprint, in a temporary store, never /var/lib/spinscope) survives
 * `spinscope calibrate` run while two CPU burners load the host, and the
 * run says which one it kept; `--force` replaces it. A --quick run does not
 * replace a --full run's family, and an interrupted run never replaces a
 * complete family either.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "testlib.h"
#include "tracetest.h"
#include "calib/calib_json.h"
#include "calib/calib_store.h"
#include "calib/kern/fingerprint.h"

#define FIXTURE "tests/fixtures/calib/store/quiet-results.json"
#define FIXTURE_TIME "2026-01-02 03:04:05 UTC"
/* CPU time after which an interrupted calibrate is inside its family. */
#define FAMILY_STARTED_CPU_MS 300

static char dir[64], store[128];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/ss-calkeep-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(store, sizeof(store), "%s/calibration.json", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* The fixture's quiet results saved as this host's calibration; full:
 * its spin_hint as a --full run's, measured now. */
static void plant_store(bool full)
{
	struct ss_fingerprint fp;
	json_object *results = json_object_from_file(FIXTURE), *doc, *sh;

	assert_non_null(results);
	if (full) {
		time_t now = time(NULL);
		char at[32];

		strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
		assert_true(json_object_object_get_ex(results, "spin_hint", &sh));
		json_object_object_add(sh, "mode", json_object_new_string("full"));
		json_object_object_add(sh, "measured_at", json_object_new_string(at));
	}
	assert_int_equal(fingerprint__read(NULL, &fp), 0);
	doc = calib_store__document(&fp, results, false);
	char why[256];
	assert_int_equal(calib_store__save(store, doc, why, sizeof(why)), 0);
	json_object_put(doc);
}

/* A string of a family in the store (measured_at, mode). */
static const char *stored_string(const char *family, const char *key, char *buf, size_t len)
{
	json_object *res, *f, *v;
	char why[256];

	buf[0] = 0;
	assert_int_equal(calib_store__load_matching_at(store, NULL, &res, why, sizeof(why)), 0);
	if (json_object_object_get_ex(res, family, &f) && json_object_object_get_ex(f, key, &v))
		snprintf(buf, len, "%s", json_object_get_string(v));
	json_object_put(res);
	return buf;
}

static const char *stored_time(const char *family, char *buf, size_t len)
{
	return stored_string(family, "measured_at", buf, len);
}

struct burners {
	pid_t pid[2];
};

/* Two processes that spin until killed: the load of other engineers. */
static void burners_start(struct burners *b)
{
	for (int i = 0; i < 2; i++) {
		b->pid[i] = fork();
		assert_true(b->pid[i] >= 0);
		if (b->pid[i] == 0) {
			volatile unsigned long x = 0;

			for (;;)
				x++;
		}
	}
}

static void burners_stop(struct burners *b)
{
	for (int i = 0; i < 2; i++) {
		kill(b->pid[i], SIGKILL);
		waitpid(b->pid[i], NULL, 0);
	}
}

static int calibrate(bool force, char **out, char **err)
{
	char *argv[] = { (char *)tl_path("spinscope"), "calibrate", "--only", "spin_hint",
			 "--json", "-o", store, force ? "--force" : NULL, NULL };

	return tl_run(argv, out, err);
}

static void test_busy_run_keeps_quiet_store(void **state)
{
	struct burners b;
	json_object *doc, *res, *sh, *busy, *v;
	char *out, *err, when[64];
	int rc;

	plant_store(false);
	burners_start(&b);
	rc = calibrate(false, &out, &err);
	burners_stop(&b);
	if (rc != 0)
		fail_msg("calibrate exited %d: %s", rc, err);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	/* This run was measured busy (the burners took their share)... */
	assert_true(json_object_object_get_ex(doc, "results", &res));
	assert_true(json_object_object_get_ex(res, "spin_hint", &sh));
	assert_true(json_object_object_get_ex(sh, "busy", &busy));
	assert_true(json_object_object_get_ex(busy, "busy", &v));
	if (!json_object_get_boolean(v))
		fail_msg("two burners did not make the host busy: %s",
			 json_object_to_json_string(busy));
	assert_true(calib_json__double(busy, "others_cpu_share", 0) > 0.25);
	/* ...so the quiet stored family stays, and the run says so. */
	assert_string_equal(stored_time("spin_hint", when, sizeof(when)), FIXTURE_TIME);
	assert_string_equal(stored_time("memory_order", when, sizeof(when)), FIXTURE_TIME);
	assert_true(json_object_object_get_ex(doc, "not_saved", &v));
	assert_int_equal(json_object_array_length(v), 1);
	assert_non_null(strstr(err, "spin_hint: kept the figures measured on a quieter host "
			       "(" FIXTURE_TIME ", other processes 2% of the CPUs"));
	assert_non_null(strstr(err, "give --force to replace them"));
	json_object_put(doc);
	free(out);
	free(err);

	/* --force replaces it, busy or not; the other family stays. */
	burners_start(&b);
	rc = calibrate(true, &out, &err);
	burners_stop(&b);
	if (rc != 0)
		fail_msg("calibrate --force exited %d: %s", rc, err);
	assert_string_not_equal(stored_time("spin_hint", when, sizeof(when)), FIXTURE_TIME);
	assert_string_equal(stored_time("memory_order", when, sizeof(when)), FIXTURE_TIME);
	assert_null(strstr(err, "kept the figures"));
	free(out);
	free(err);
}

/* A --quick run does not replace a --full run's family (measured now, on
 * a host as quiet as this one or quieter) unless forced, and says so. */
static void test_quick_run_keeps_full_family(void **state)
{
	char *out, *err, mode[16];
	int rc;

	plant_store(true);
	rc = calibrate(false, &out, &err);
	if (rc != 0)
		fail_msg("calibrate exited %d: %s", rc, err);
	assert_string_equal(stored_string("spin_hint", "mode", mode, sizeof(mode)), "full");
	/* Kept for being --full, or (a loaded host) for being quieter too. */
	if (!strstr(err, "spin_hint: kept the figures of a --full run (") &&
	    !strstr(err, "spin_hint: kept the figures measured on a quieter host"))
		fail_msg("no note of the kept --full family: %s", err);
	assert_non_null(strstr(err, "give --force to replace them"));
	free(out);
	free(err);

	rc = calibrate(true, &out, &err);
	if (rc != 0)
		fail_msg("calibrate --force exited %d: %s", rc, err);
	assert_string_equal(stored_string("spin_hint", "mode", mode, sizeof(mode)), "quick");
	assert_null(strstr(err, "kept the figures"));
	free(out);
	free(err);
}

static void test_interrupted_run_keeps_complete_family(void **state)
{
	char *argv[] = { (char *)tl_path("spinscope"), "calibrate", "--full", "--only",
			 "memory_order", "-o", store, NULL };
	char when[64];
	struct tl_proc p;

	plant_store(false);
	assert_int_equal(tl_spawn(&p, argv), 0);
	/* The signal must land mid-family: once calibrate has measured for a
	 * while (its start takes a few ms of CPU; --full memory_order about
	 * 3 s of it), however long a loaded host takes to give it that CPU. */
	for (int polls = 0; tt_cpu_ms(p.pid) < FAMILY_STARTED_CPU_MS; polls++) {
		/* A zombie's CPU time stands still: bounded, not forever. */
		if (polls == 12000) {
			tl_kill(&p, SIGKILL);
			fail_msg("calibrate used under %d ms of CPU in 120 s", FAMILY_STARTED_CPU_MS);
		}
		usleep(10 * 1000);
	}
	tl_kill(&p, SIGINT);
	char *out = tl_read_all(p.out_fd);
	char *err = tl_read_all(p.err_fd);
	assert_int_equal(tl_wait(&p), 1);
	assert_non_null(strstr(err, "memory_order: kept the complete figures measured " FIXTURE_TIME));
	assert_non_null(strstr(err, "this run's were interrupted and were not saved"));
	assert_string_equal(stored_time("memory_order", when, sizeof(when)), FIXTURE_TIME);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_run_keeps_quiet_store),
		cmocka_unit_test(test_quick_run_keeps_full_family),
		cmocka_unit_test(test_interrupted_run_keeps_complete_family),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

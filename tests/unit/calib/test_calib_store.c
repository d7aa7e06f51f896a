// SPDX-License-Identifier: GPL-2.0
/*
 * Host fingerprints read from fake /proc and /sys trees
 * (tests/fixtures/calib/), fingerprint matching, and the saved calibration
 * document: JSON round trip, atomic save, and loading only when the host
 * matches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "testlib.h"
#include "calib/calib_json.h"
#include "common/errors.h"
#include "calib/calib_store.h"
#include "calib/kern/fingerprint.h"

#define X86 "tests/fixtures/calib/x86-kvm"
#define ARM "tests/fixtures/calib/arm64-n2"

static char tmpdir[64];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ss-calib-store-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static void test_read_x86_fixture(void **state)
{
	struct ss_fingerprint fp;

	assert_int_equal(fingerprint__read(X86, &fp), 0);
	assert_string_equal(fp.vendor, "GenuineIntel");
	assert_string_equal(fp.model_name, "Intel(R) Xeon(R) Platinum 8480+");
	assert_int_equal(fp.family, 6);
	assert_int_equal(fp.model, 143);
	assert_int_equal(fp.stepping, 8);
	/* Only the first processor block is read. */
	assert_string_equal(fp.microcode, "0x2b000590");
	assert_int_equal(fp.threads, 4);
	assert_int_equal(fp.cores, 2);	/* two packages, one core id each */
	assert_int_equal(fp.nodes, 2);
	assert_int_equal(fp.cache_line, 64);
	assert_int_equal(fp.ncaches, 4);
	assert_int_equal(fp.caches[2].level, 2);
	assert_string_equal(fp.caches[2].type, "Unified");
	assert_int_equal(fp.caches[2].size_kb, 2048);
	assert_int_equal(fp.caches[3].size_kb, 105 * 1024);
	assert_string_equal(fp.kernel, "6.1.0-18-amd64");
	assert_true(fp.hypervisor);
	assert_int_equal(fp.nvulns, 2);
	assert_string_equal(fp.vulns[0].name, "meltdown");	/* sorted */
	assert_string_equal(fp.vulns[1].status,
			    "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional");
	assert_string_equal(fp.governor, "performance");
	assert_true(fp.load1 == 0.5);
	assert_true(fp.steal_frac == 400.0 / 10050.0);
}

static void test_read_arm64_fixture(void **state)
{
	struct ss_fingerprint fp;

	assert_int_equal(fingerprint__read(ARM, &fp), 0);
	assert_string_equal(fp.vendor, "ARM");
	assert_string_equal(fp.model_name, "ARM part 0xd49 r0p1");
	assert_int_equal(fp.family, 8);
	assert_int_equal(fp.model, 0xd49);
	assert_int_equal(fp.stepping, 1);
	assert_string_equal(fp.microcode, "");
	assert_int_equal(fp.threads, 8);
	assert_int_equal(fp.cores, 8);
	assert_int_equal(fp.nodes, 1);		/* no node/online: one node */
	assert_int_equal(fp.ncaches, 3);
	assert_false(fp.hypervisor);
	assert_string_equal(fp.governor, "none");	/* no cpufreq */
	assert_int_equal(fingerprint__read("/nonexistent", &fp), -ENOENT);
}

static void test_size_parse(void **state)
{
	assert_int_equal(fingerprint__parse_size_kb("32K"), 32);
	assert_int_equal(fingerprint__parse_size_kb("8M"), 8192);
	assert_int_equal(fingerprint__parse_size_kb("1G"), 1024 * 1024);
	assert_int_equal(fingerprint__parse_size_kb("512"), 1);
	assert_int_equal(fingerprint__parse_size_kb("x"), -1);
	assert_int_equal(fingerprint__parse_size_kb("4Q"), -1);
}

static void test_live_host(void **state)
{
	struct ss_fingerprint fp;

	assert_int_equal(fingerprint__read(NULL, &fp), 0);
	assert_int_equal(fp.threads, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(fp.cores >= 1 && fp.cores <= fp.threads);
	assert_true(fp.nodes >= 1);
	assert_true(fp.kernel[0] != '\0');
}

static void test_match(void **state)
{
	struct ss_fingerprint a, b;
	char why[256];

	assert_int_equal(fingerprint__read(X86, &a), 0);
	b = a;
	assert_true(fingerprint__match(&a, &b, why, sizeof(why)));
	assert_string_equal(why, "");
	/* Load and governor do not matter; microcode, kernel and counts do. */
	b.load1 = 9;
	snprintf(b.governor, sizeof(b.governor), "powersave");
	assert_true(fingerprint__match(&a, &b, why, sizeof(why)));
	snprintf(b.microcode, sizeof(b.microcode), "0x2b000600");
	assert_false(fingerprint__match(&a, &b, why, sizeof(why)));
	assert_string_equal(why, "different microcode: calibrated on '0x2b000590', this host has '0x2b000600'");
	b = a;
	b.threads = 8;
	assert_false(fingerprint__match(&a, &b, why, sizeof(why)));
	assert_string_equal(why, "different threads: calibrated with 4, this host has 8");
	b = a;
	snprintf(b.kernel, sizeof(b.kernel), "6.18.0");
	assert_false(fingerprint__match(&a, &b, why, sizeof(why)));
	assert_non_null(strstr(why, "different kernel"));
	assert_int_equal(fingerprint__read(ARM, &b), 0);
	assert_false(fingerprint__match(&a, &b, why, sizeof(why)));
}

static void test_host_json_round_trip(void **state)
{
	struct ss_fingerprint a, b;
	json_object *j;
	char why[256];

	assert_int_equal(fingerprint__read(X86, &a), 0);
	j = calib_store__host_json(&a);
	/* Through text, as a saved file goes. */
	json_object *back = json_tokener_parse(json_object_to_json_string(j));
	assert_int_equal(calib_store__host_from_json(back, &b), 0);
	assert_true(fingerprint__match(&a, &b, why, sizeof(why)));
	assert_int_equal(b.ncaches, a.ncaches);
	assert_int_equal(b.caches[3].size_kb, a.caches[3].size_kb);
	assert_int_equal(b.nvulns, 2);
	assert_string_equal(b.governor, "performance");
	assert_true(b.hypervisor);
	json_object_object_del(back, "microcode");
	assert_int_equal(calib_store__host_from_json(back, &b), -EINVAL);
	json_object_put(back);
	json_object_put(j);
}

static json_object *sample_results(void)
{
	json_object *r = json_object_new_object(), *fs = json_object_new_object();

	json_object_object_add(fs, "ratio", calib_stats__json(&(struct calib_stats){ 6.1, 5.9, 6.4, 0.03, 5, 5.9, 6.4, 0 },
							      CALIB_CV_CONTENTION, NULL));
	json_object_object_add(r, "false_sharing", fs);
	return r;
}

static void test_save_load_matching(void **state)
{
	struct ss_fingerprint fp;
	char path[256], why[512];
	json_object *doc, *out;
	struct stat st;

	assert_int_equal(fingerprint__read(X86, &fp), 0);
	snprintf(path, sizeof(path), "%s/a/b/calibration.json", tmpdir);
	doc = calib_store__document(&fp, sample_results(), true);
	assert_int_equal(calib_store__save(path, doc, why, sizeof(why)), 0);
	json_object_put(doc);
	assert_int_equal(stat(path, &st), 0);
	/* Saved as root: readable by root only, like every other output. */
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(calib_store__load(path, &doc), 0);
	assert_int_equal((int)calib_json__double(doc, "schema", 0), CALIB_SCHEMA);
	json_object *partial;
	assert_true(json_object_object_get_ex(doc, "partial", &partial));
	assert_true(json_object_get_boolean(partial));
	json_object_put(doc);

	/* Same host (the fixture) -> the results come back. */
	assert_int_equal(calib_store__load_matching_at(path, X86, &out, why, sizeof(why)), 0);
	json_object *fs;
	assert_true(json_object_object_get_ex(out, "false_sharing", &fs));
	struct calib_stats s;
	assert_true(calib_stats__from_json(fs, "ratio", &s, NULL));
	assert_true(s.median == 6.1 && s.n == 5);
	json_object_put(out);

	/* Another host -> refused, saying which field differs. */
	assert_int_equal(calib_store__load_matching_at(path, ARM, &out, why, sizeof(why)), -ESTALE);
	assert_null(out);
	assert_non_null(strstr(why, "is for another host (different architecture") ||
			strstr(why, "is for another host (different CPU vendor"));

	/* Nothing saved / not ours. */
	snprintf(path, sizeof(path), "%s/none.json", tmpdir);
	assert_int_equal(calib_store__load_matching_at(path, X86, &out, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "run 'spinscope calibrate'"));
	FILE *f = fopen(path, "w");
	fputs("{\"schema\": 99, \"results\": {}}", f);
	fclose(f);
	assert_int_equal(calib_store__load_matching_at(path, X86, &out, why, sizeof(why)), -EINVAL);
	f = fopen(path, "w");
	fputs("not json", f);
	fclose(f);
	/* Not JSON is told apart from another schema: "not valid JSON". */
	assert_int_equal(calib_store__load(path, &doc), -EBADMSG);
	assert_int_equal(calib_store__load_matching_at(path, X86, &out, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "is not valid JSON"));
}

static void test_save_replaces_atomically(void **state)
{
	struct ss_fingerprint fp;
	char path[256], cmd[512], why[512];
	json_object *doc;

	assert_int_equal(fingerprint__read(X86, &fp), 0);
	snprintf(path, sizeof(path), "%s/replace.json", tmpdir);
	for (int i = 0; i < 2; i++) {
		doc = calib_store__document(&fp, sample_results(), i == 0);
		assert_int_equal(calib_store__save(path, doc, why, sizeof(why)), 0);
		json_object_put(doc);
	}
	assert_int_equal(calib_store__load(path, &doc), 0);
	json_object *partial;
	json_object_object_get_ex(doc, "partial", &partial);
	assert_false(json_object_get_boolean(partial));
	json_object_put(doc);
	/* No temporary file is left behind. */
	snprintf(cmd, sizeof(cmd), "test $(ls '%s' | grep -c replace.json.) -eq 0", tmpdir);
	assert_int_equal(system(cmd), 0);
	/* A link planted at the name is refused and left as it was, by the
	 * check before measuring too. */
	snprintf(cmd, sizeof(cmd), "%s/planted.json", tmpdir);
	assert_int_equal(symlink("replace.json", cmd), 0);
	assert_int_equal(calib_store__check(cmd, why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "symbolic link"));
	assert_int_equal(calib_store__save(cmd, doc = json_object_new_object(), why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "symbolic link"));
	json_object_put(doc);
	assert_int_equal(calib_store__load(path, &doc), 0);
	json_object_put(doc);
	/* The check creates missing folders: the save then cannot fail on them. */
	snprintf(cmd, sizeof(cmd), "%s/new/dir/calibration.json", tmpdir);
	assert_int_equal(calib_store__check(cmd, why, sizeof(why)), 0);
	snprintf(cmd, sizeof(cmd), "%s/new/dir", tmpdir);
	assert_int_equal(access(cmd, W_OK), 0);
	assert_int_not_equal(calib_store__check("/proc/no/such/calibration.json", why, sizeof(why)), 0);
	/* An unwritable folder is an error, not silence. */
	assert_true(calib_store__save("/proc/no/such/calibration.json", doc = json_object_new_object(), why, sizeof(why)) < 0);
	json_object_put(doc);
}

static void test_default_path(void **state)
{
	char buf[512], *old_xdg = getenv("XDG_CACHE_HOME"), *old_home = getenv("HOME");
	char saved_xdg[512] = "", saved_home[512] = "";

	if (old_xdg)
		snprintf(saved_xdg, sizeof(saved_xdg), "%s", old_xdg);
	if (old_home)
		snprintf(saved_home, sizeof(saved_home), "%s", old_home);
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(calib_store__default_path(buf, sizeof(buf)), 0);
	if (geteuid() == 0) {
		assert_string_equal(buf, "/var/lib/spinscope/calibration.json");
	} else {
		assert_string_equal(buf, "/x/cache/spinscope/calibration.json");
		setenv("XDG_CACHE_HOME", "relative", 1);
		assert_int_equal(calib_store__default_path(buf, sizeof(buf)), 0);
		assert_string_equal(buf, "/home/u/.cache/spinscope/calibration.json");
	}
	if (old_xdg)
		setenv("XDG_CACHE_HOME", saved_xdg, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	if (old_home)
		setenv("HOME", saved_home, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_x86_fixture),
		cmocka_unit_test(test_read_arm64_fixture),
		cmocka_unit_test(test_size_parse),
		cmocka_unit_test(test_live_host),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_host_json_round_trip),
		cmocka_unit_test(test_save_load_matching),
		cmocka_unit_test(test_save_replaces_atomically),
		cmocka_unit_test(test_default_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

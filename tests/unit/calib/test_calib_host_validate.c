// SPDX-License-Identifier: GPL-2.0
/*
 * No nonsense from a bad calibration (issue 13 item 5): the absurd
 * calibration files of tests/fixtures/calib/absurd (1e308 and NaN per
 * hint, negative lock throughputs, a 2 s futex handoff) have the family
 * with the bad figure rejected whole, with its field named, and the advice
 * says so instead of quoting it; a malformed or 200 MB file is "cannot be
 * used", not "none stored".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "testlib.h"
#include "advisor/finding.h"
#include "advisor/hostcal.h"
#include "calib/calib_host.h"
#include "calib/calib_store.h"
#include "calib/kern/fingerprint.h"

#define ABSURD "tests/fixtures/calib/absurd/"

static char tmp[64];

static int setup(void **state)
{
	snprintf(tmp, sizeof(tmp), "/tmp/ss-calval-XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

/* The fixture's results saved as this host's calibration, loaded as -p
 * loads it. Returns calib_host__load's result. */
static int load_as_this_host(const char *fixture, struct adv_host *h)
{
	struct ss_fingerprint fp;
	json_object *doc, *results;
	char path[128];

	if (calib_store__load(fixture, &doc))
		fail_msg("%s does not load (run from the repository root)", fixture);
	assert_true(json_object_object_get_ex(doc, "results", &results));
	assert_int_equal(fingerprint__read(NULL, &fp), 0);
	json_object *mine = calib_store__document(&fp, json_object_get(results), false);
	snprintf(path, sizeof(path), "%s/cal.json", tmp);
	char why[256];
	assert_int_equal(calib_store__save(path, mine, why, sizeof(why)), 0);
	json_object_put(mine);
	json_object_put(doc);
	return calib_host__load(h, path, "x86_64");
}

/* The "calibration" evidence a finding resting on family gets. */
static const char *note_for(const struct adv_host *h, unsigned family, struct adv_finding *f)
{
	memset(f, 0, sizeof(*f));
	assert_true(adv_cal__note(f, h, family, 0.5) < 1.0);
	for (size_t i = 0; i < f->nevidence; i++)
		if (!strcmp(f->evidence[i].label, "calibration"))
			return f->evidence[i].value;
	fail_msg("no calibration evidence");
	return NULL;
}

static void test_huge_hint_rejects_spin_hint(void **state)
{
	struct adv_host h;
	struct adv_finding f;

	assert_int_equal(load_as_this_host(ABSURD "huge-hint.json", &h), 0);
	assert_true(h.present && h.matches);
	assert_false(h.spin_hint.present);
	assert_int_equal(h.rejected, ADV_FAM_SPIN_HINT);
	assert_string_equal(h.rejected_reason,
			    "spin_hint: pause ns per hint is 1e+308, outside 0.05 ns to 1 s");
	/* Nothing quotes it: no cheapest hint, and the advice says why. */
	assert_null(adv_cal__hint(&h));
	assert_non_null(strstr(note_for(&h, ADV_FAM_SPIN_HINT, &f),
			       "stored figures rejected (spin_hint: pause ns per hint is 1e+308"));
	/* The other families stay usable. */
	assert_true(adv_cal__usable(&h, ADV_FAM_HOST_COSTS));
	assert_true(adv_cal__usable(&h, ADV_FAM_SPIN_THRESHOLD));
	assert_true(adv_cal__usable(&h, ADV_FAM_MEMORY_ORDER));
}

static void test_nan_rejects_both_families(void **state)
{
	struct adv_host h;

	assert_int_equal(load_as_this_host(ABSURD "nan.json", &h), 0);
	assert_false(h.spin_hint.present);
	assert_false(h.host_costs.present);
	assert_int_equal(h.rejected, ADV_FAM_SPIN_HINT | ADV_FAM_HOST_COSTS);
	/* The first one found is named; each was warned about on stderr. */
	assert_non_null(strstr(h.rejected_reason, "pause ns per hint is nan"));
	assert_true(adv_cal__handoff_ns(&h, 4) == 0);
	assert_true(adv_cal__yield_ns(&h, 1) == 0);
}

static void test_negative_throughput_and_slow_handoff(void **state)
{
	struct adv_host h;

	assert_int_equal(load_as_this_host(ABSURD "negative-throughput.json", &h), 0);
	assert_false(h.spin_threshold.present);
	assert_null(adv_cal__best(&h, false));
	assert_string_equal(h.rejected_reason, "spin_threshold: best lock at light contention, acq/s "
			    "is -5e+06, outside 1 to 1e11 acq/s");
	assert_int_equal(load_as_this_host(ABSURD "slow-handoff.json", &h), 0);
	assert_false(h.host_costs.present);
	assert_string_equal(h.rejected_reason,
			    "host_costs: futex handoff on one CPU is 2e+09, outside 10 ns to 1 s");
}

static void test_good_file_rejects_nothing(void **state)
{
	struct adv_host h;
	char why[128] = "";
	json_object *doc, *res, *fam;

	assert_int_equal(load_as_this_host("tests/fixtures/advice/calib-x86-vm.json", &h), 0);
	assert_int_equal(h.rejected, 0);
	assert_true(h.spin_hint.present && h.host_costs.present && h.spin_threshold.present);
	/* The same check one family at a time, as the store's merge uses it. */
	assert_int_equal(calib_store__load(ABSURD "huge-hint.json", &doc), 0);
	assert_true(json_object_object_get_ex(doc, "results", &res));
	assert_true(json_object_object_get_ex(res, "spin_hint", &fam));
	assert_false(calib_host__family_valid("spin_hint", fam, why, sizeof(why)));
	assert_non_null(strstr(why, "1e+308"));
	assert_true(json_object_object_get_ex(res, "memory_order", &fam));
	assert_true(calib_host__family_valid("memory_order", fam, why, sizeof(why)));
	json_object_put(doc);
}

static void test_malformed_and_huge_files(void **state)
{
	struct adv_host h;
	struct adv_finding f;
	char path[128];
	int fd;

	assert_int_equal(calib_host__load(&h, ABSURD "malformed.json", "x86_64"), -EBADMSG);
	assert_true(h.present && h.unreadable && !h.matches);
	assert_string_equal(h.mismatch_reason, "not valid JSON");
	assert_non_null(strstr(note_for(&h, ADV_FAM_HOST_COSTS, &f),
			       "the stored one cannot be used (not valid JSON)"));
	assert_null(strstr(note_for(&h, ADV_FAM_HOST_COSTS, &f), "none stored"));

	/* 200 MB (sparse): refused before a byte is parsed. */
	snprintf(path, sizeof(path), "%s/huge.json", tmp);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 200 << 20), 0);
	close(fd);
	assert_int_equal(calib_host__load(&h, path, "x86_64"), -EFBIG);
	assert_true(h.present && h.unreadable);
	assert_string_equal(h.mismatch_reason, "larger than 16 MiB");

	/* A directory or FIFO is not a calibration either, and never blocks. */
	assert_int_equal(calib_host__load(&h, tmp, "x86_64"), -EISDIR);
	assert_true(h.unreadable);
	assert_string_equal(h.mismatch_reason, "not a regular file");
	snprintf(path, sizeof(path), "%s/fifo", tmp);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(calib_host__load(&h, path, "x86_64"), -ENXIO);
	/* And a missing file is "none stored". */
	snprintf(path, sizeof(path), "%s/none.json", tmp);
	assert_int_equal(calib_host__load(&h, path, "x86_64"), -ENOENT);
	assert_false(h.present);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_hint_rejects_spin_hint),
		cmocka_unit_test(test_nan_rejects_both_families),
		cmocka_unit_test(test_negative_throughput_and_slow_handoff),
		cmocka_unit_test(test_good_file_rejects_nothing),
		cmocka_unit_test(test_malformed_and_huge_files),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: GPL-2.0
/* recording.c: -o FILE[.zst] round trips, compression, atomic writes. */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include <zstd.h>
#include "common/errors.h"
#include "report/recording.h"

static json_object *sample_doc(int threads)
{
	json_object *doc = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(doc, "schema", json_object_new_int(1));
	for (int i = 0; i < threads; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "tid", json_object_new_int(1000 + i));
		json_object_object_add(t, "comm", json_object_new_string("worker"));
		json_object_object_add(t, "sched_yield", json_object_new_uint64(12345678901ull + i));
		json_object_array_add(a, t);
	}
	json_object_object_add(doc, "threads", a);
	return doc;
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void round_trip(const char *suffix, off_t *size)
{
	char path[64], why[256];
	json_object *doc = sample_doc(500), *back = NULL;

	snprintf(path, sizeof(path), "/tmp/ss-rec-%d%s", getpid(), suffix);
	assert_int_equal(recording__save(path, doc, why, sizeof(why)), 0);
	*size = file_size(path);
	assert_int_equal(recording__load(path, &back), 0);
	assert_true(json_object_equal(doc, back));
	json_object_put(back);
	json_object_put(doc);
	unlink(path);
}

static void test_plain_and_zstd_round_trip(void **state)
{
	off_t plain, zst;

	round_trip(".json", &plain);
	round_trip(".json.zst", &zst);
	/* 500 near-identical thread objects compress well. */
	assert_true(zst * 5 < plain);
}

static void test_load_refuses_junk(void **state)
{
	char path[64];
	json_object *doc = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ss-rec-junk-%d.zst", getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("\x28\xb5\x2f\xfd garbage that is not a zstd frame", f);
	fclose(f);
	assert_int_equal(recording__load(path, &doc), -EINVAL);
	assert_null(doc);
	f = fopen(path, "w");
	fputs("[1, 2, 3]", f);	/* JSON, but not a report */
	fclose(f);
	assert_int_equal(recording__load(path, &doc), -EINVAL);
	unlink(path);
	assert_int_equal(recording__load("/nonexistent/report.json", &doc), -ENOENT);
}

/* A recording recompressed with plain `zstd` (from a pipe: a frame that
 * does not say its size) reads as the original; cut short, it is refused.
 * Before: refused as corrupt (issue 30 item 6). */
static void test_zstd_frame_without_size_streamed(void **state)
{
	json_object *doc = sample_doc(300), *back = NULL;
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	size_t n = strlen(text), zn;
	void *z = malloc(ZSTD_compressBound(n));
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	char path[64];
	FILE *f;

	assert_non_null(z);
	assert_non_null(cc);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0)));
	zn = ZSTD_compress2(cc, z, ZSTD_compressBound(n), text, n);
	assert_false(ZSTD_isError(zn));
	assert_true(ZSTD_getFrameContentSize(z, zn) == ZSTD_CONTENTSIZE_UNKNOWN);
	snprintf(path, sizeof(path), "/tmp/ss-rec-nosize-%d.json.zst", getpid());
	for (int cut = 0; cut < 2; cut++) {
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(z, 1, cut ? zn - 9 : zn, f), cut ? zn - 9 : zn);
		fclose(f);
		if (cut) {
			assert_int_equal(recording__load(path, &back), -EINVAL);
			assert_null(back);
			continue;
		}
		assert_int_equal(recording__load(path, &back), 0);
		assert_string_equal(json_object_to_json_string_ext(back, JSON_C_TO_STRING_PLAIN), text);
		json_object_put(back);
	}
	unlink(path);
	ZSTD_freeCCtx(cc);
	free(z);
	json_object_put(doc);
}

/* A failed save leaves neither a half file nor its temporary behind. */
static void test_failed_save_leaves_nothing(void **state)
{
	char dir[] = "/tmp/ss-rec-dir-XXXXXX", path[128], why[256];
	json_object *doc = sample_doc(1);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub/r.json", dir);	/* sub/ does not exist */
	assert_int_equal(recording__save(path, doc, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "sub"));
	assert_int_equal(rmdir(dir), 0);	/* still empty */
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_zstd_round_trip),
		cmocka_unit_test(test_zstd_frame_without_size_streamed),
		cmocka_unit_test(test_load_refuses_junk),
		cmocka_unit_test(test_failed_save_leaves_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

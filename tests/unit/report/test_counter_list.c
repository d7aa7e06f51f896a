// SPDX-License-Identifier: GPL-2.0
/*
 * The counter lists of bpf/trace.h reach every place that shows or uses
 * them: each counter of SS_THREAD_COUNTERS and SS_FUTEX_COUNTERS, set to a
 * value no other counter has, must come out under its key in the JSON
 * report (threads, totals, futexes, intervals), in the advisor's input, and
 * be summed, maximised or differenced as its kind says. A counter added to
 * the list is checked here without editing this file.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/report.h"
#include "report/advice.h"

static const struct host_info host = { .hostname = "h", .kernel = "k", .machine = "m",
				       .cpu_model = "c", .cpus = 2 };
static const struct ss_stacks no_stacks;

#define NDESC SS_THREAD_NCOUNTERS
#define D(k) (&ss_thread_counter_descs[k])

static __u64 *slot_of(struct ss_thread *t, size_t k)
{
	return (__u64 *)((char *)t + D(k)->offset);
}

/* Value of slot s of counter k in thread number `seed`: unique per
 * (seed, k, s), and larger for a larger seed. */
static __u64 value(__u64 seed, size_t k, size_t s)
{
	return seed * 1000000000ull + k * 1000 + s + 1;
}

static void fill_thread(struct ss_thread *t, __u32 tid, __u64 seed)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), "t%u", tid);
	for (size_t k = 0; k < NDESC; k++)
		for (size_t s = 0; s < D(k)->slots; s++)
			slot_of(t, k)[s] = value(seed, k, s);
}

static json_object *key_of(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* j, an array (HIST) or a {name: count} object (OUTCOMES), holds v. */
static void expect_slots(json_object *j, const __u64 *v, size_t n)
{
	assert_non_null(j);
	if (json_object_is_type(j, json_type_array)) {
		/* Every slot is non-zero here, so none is trimmed. */
		assert_int_equal(json_object_array_length(j), n);
		for (size_t s = 0; s < n; s++)
			assert_int_equal(json_object_get_uint64(json_object_array_get_idx(j, s)), v[s]);
	} else {
		assert_int_equal(json_object_object_length(j), n);
		for (size_t s = 0; s < n; s++)
			assert_int_equal(json_object_get_uint64(key_of(j, ss_outcome_names[s])), v[s]);
	}
}

/* The JSON form of thread counter k holds exactly the values of slots v. */
static void expect_counter(json_object *o, size_t k, const __u64 *v)
{
	json_object *j = key_of(o, D(k)->json_key);

	if (!j)
		fail_msg("counter %s: no key '%s' in %s", D(k)->name, D(k)->json_key,
			 json_object_to_json_string(o));
	if (D(k)->slots == 1)
		assert_int_equal(json_object_get_uint64(j), v[0]);
	else
		expect_slots(j, v, D(k)->slots);
}

/* The list describes every counter of struct ss_thread, in field order, and
 * nothing else: the bookkeeping fields follow the last counter. */
static void test_list_covers_struct(void **state)
{
	size_t off = 0, n = 0;

	for (size_t k = 0; k < NDESC; k++) {
		assert_non_null(D(k)->name);
		assert_int_equal(D(k)->offset, off);
		assert_true(D(k)->slots >= 1);
		off += D(k)->slots * sizeof(__u64);
		n++;
	}
	assert_int_equal(n, SS_THREAD_NCOUNTERS);
	assert_int_equal(off, offsetof(struct ss_thread, last_in_ns));
	assert_int_equal(sizeof(struct ss_totals), sizeof(__u64) + off);
	assert_int_equal(sizeof(struct adv_counters), off);
}

static struct ss_thread threads[2];
static struct ss_profile prof;

static void make_profile(void)
{
	fill_thread(&threads[0], 101, 1);
	fill_thread(&threads[1], 102, 2);
	prof = (struct ss_profile){ .start_ns = 1, .now_ns = 1 + 2000000000ull,
				    .threads = threads, .nthreads = 2 };
	profile_finish(&prof);
}

/* Totals: sums add up, maxima are the larger thread's. */
static void test_totals_follow_kind(void **state)
{
	make_profile();
	for (size_t k = 0; k < NDESC; k++)
		for (size_t s = 0; s < D(k)->slots; s++) {
			const __u64 *tot = (const __u64 *)((const char *)&prof.totals +
							   sizeof(__u64) + D(k)->offset);
			__u64 want = D(k)->kind == SS_KIND_SUM ? value(1, k, s) + value(2, k, s)
								: value(2, k, s);

			if (tot[s] != want)
				fail_msg("totals.%s[%zu] = %llu, want %llu", D(k)->name, s,
					 (unsigned long long)tot[s], (unsigned long long)want);
		}
	assert_int_equal(prof.totals.threads, 2);
}

/* Every counter with a JSON key is in each thread's object; the ALL ones
 * (and the arrays) in "totals" too; the others in neither. */
static void test_every_counter_reaches_json(void **state)
{
	struct ss_report r = { .host = &host, .pid = 100, .comm = "app", .duration_ns = 2000000000ull,
			       .profile = &prof, .stacks = &no_stacks };
	json_object *root, *totals, *ths;

	make_profile();
	root = report_to_json(&r);
	totals = key_of(root, "totals");
	ths = key_of(root, "threads");
	assert_non_null(totals);
	assert_int_equal(json_object_array_length(ths), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *jt = json_object_array_get_idx(ths, i);
		struct ss_thread *t = &prof.threads[i];

		assert_int_equal(json_object_get_int(key_of(jt, "tid")), t->tid);
		for (size_t k = 0; k < NDESC; k++) {
			if (D(k)->json == SS_JSON_NONE) {
				assert_null(D(k)->json_key);
				assert_null(key_of(jt, D(k)->name));
				continue;
			}
			expect_counter(jt, k, slot_of(t, k));
		}
	}
	for (size_t k = 0; k < NDESC; k++) {
		const __u64 *tot = (const __u64 *)((const char *)&prof.totals + sizeof(__u64) +
						   D(k)->offset);

		if (D(k)->json == SS_JSON_ALL)
			expect_counter(totals, k, tot);
		else
			assert_null(key_of(totals, D(k)->name));
	}
	json_object_put(root);
}

/* An interval: sums are the difference, maxima the running maximum. */
static void test_interval_follows_kind(void **state)
{
	struct ss_thread before;
	struct ss_profile prev, d;
	json_object *j, *jt;

	make_profile();
	fill_thread(&before, 101, 0);	/* thread 101 as it was, smaller everywhere */
	prev = (struct ss_profile){ .start_ns = 1, .now_ns = 1000000001, .threads = &before,
				    .nthreads = 1 };
	assert_int_equal(profile_diff(&prof, &prev, &d), 0);
	j = report_interval_json(&d, 1.0, true);
	jt = json_object_array_get_idx(key_of(j, "threads"), 1);	/* 101 weighs less */
	assert_int_equal(json_object_get_int(key_of(jt, "tid")), 101);
	for (size_t k = 0; k < NDESC; k++) {
		__u64 want[SS_HIST_SLOTS + SS_FUTEX_OUTCOMES];

		for (size_t s = 0; s < D(k)->slots; s++)
			want[s] = D(k)->kind == SS_KIND_SUM ? value(1, k, s) - value(0, k, s)
							 : value(1, k, s);
		if (D(k)->json != SS_JSON_NONE)
			expect_counter(jt, k, want);
	}
	json_object_put(j);
	profile_free(&d);
}

/* The advisor gets every counter of every thread, of the totals and of
 * every futex address. */
#define SAME_C(name, kind, unit, json) assert_int_equal(a->name, t->name);
#define SAME_A(name, slots, kind, unit, json)					\
	for (size_t s = 0; s < (slots); s++)					\
		assert_int_equal(a->name[s], t->name[s]);
static void same_thread(const struct adv_counters *a, const struct ss_thread *t)
{
	SS_THREAD_COUNTERS(SAME_C, SAME_A)
}

static void same_totals(const struct adv_counters *a, const struct ss_totals *t)
{
	SS_THREAD_COUNTERS(SAME_C, SAME_A)
}

static void same_futex(const struct adv_futex *a, const struct ss_futex *t)
{
	SS_FUTEX_COUNTERS(SAME_C, SAME_A)
}

static void test_every_counter_reaches_advisor(void **state)
{
	struct advice_target tgt = { .pid = 100, .comm = "app", .ncpus = 2,
				     .duration_ns = 2000000000ull };
	struct ss_futex_rec fx = { .uaddr = 0x1000, .waiters = 1 };
	struct advice_input in;
	__u64 *f = (__u64 *)&fx.f;

	make_profile();
	for (size_t i = 0; i < sizeof(fx.f) / sizeof(__u64); i++)
		f[i] = 7000 + i;
	prof.futexes = &fx;
	prof.nfutexes = 1;
	assert_int_equal(advice__build_profile(&in, &tgt, &prof, &no_stacks, NULL, NULL, NULL), 0);
	same_totals(&in.profile.totals, &prof.totals);
	assert_int_equal(in.profile.nthreads, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(in.profile.threads[i].tid, prof.threads[i].tid);
		same_thread(&in.profile.threads[i].c, &prof.threads[i]);
	}
	assert_int_equal(in.profile.nfutexes, 1);
	same_futex(&in.profile.futexes[0], &fx.f);
	assert_int_equal(in.profile.futexes[0].uaddr, 0x1000);
	advice__free_input(&in);
	prof.futexes = NULL;
	prof.nfutexes = 0;
}

/* Every futex counter is in its JSON object under the list's key. */
#define FUTEX_KEY_C(name, kind, unit, json)					\
	assert_int_equal(json_object_get_uint64(key_of(jf, #name)), fx.f.name);
#define FUTEX_KEY_A(name, slots, kind, unit, json)				\
	expect_slots(key_of(jf, FUTEX_ARRAY_KEY json), fx.f.name, slots);	\
	narrays++;
#define FUTEX_ARRAY_KEY(key, form) #key
static void test_every_futex_counter_reaches_json(void **state)
{
	struct ss_futex_rec fx = { .uaddr = 0x1000, .waiters = 1 };
	struct ss_report r = { .host = &host, .pid = 100, .comm = "app", .duration_ns = 2000000000ull,
			       .profile = &prof, .stacks = &no_stacks };
	__u64 *f = (__u64 *)&fx.f;
	json_object *root, *jf;
	int narrays = 0;

	make_profile();
	for (size_t i = 0; i < sizeof(fx.f) / sizeof(__u64); i++)
		f[i] = 7000 + i;
	prof.futexes = &fx;
	prof.nfutexes = 1;
	root = report_to_json(&r);
	jf = json_object_array_get_idx(key_of(root, "futexes"), 0);
	assert_non_null(jf);
	SS_FUTEX_COUNTERS(FUTEX_KEY_C, FUTEX_KEY_A)
	assert_int_equal(narrays, 2);
	json_object_put(root);
	prof.futexes = NULL;
	prof.nfutexes = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_covers_struct),
		cmocka_unit_test(test_totals_follow_kind),
		cmocka_unit_test(test_every_counter_reaches_json),
		cmocka_unit_test(test_interval_follows_kind),
		cmocka_unit_test(test_every_counter_reaches_advisor),
		cmocka_unit_test(test_every_futex_counter_reaches_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

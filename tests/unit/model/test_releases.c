// SPDX-License-Identifier: GPL-2.0
/* model/releases.c: a word's release records summed by site and by
 * holder, the order of sites, and which words are locks. */
#include "testlib.h"
#include <stdlib.h>
#include "model/releases.h"

static struct ss_release_rec rec(__s32 stack, __u32 tid, __u64 wakes, __u64 held_ns, int slot)
{
	struct ss_release_rec r = { .stack_id = stack, .tid = tid };

	r.v.wakes = wakes;
	r.v.woken = wakes;
	r.v.held_contended = wakes;
	r.v.held_contended_ns = wakes * held_ns;
	r.v.held_contended_ns_max = held_ns;
	r.v.held_contended_hist[slot] = wakes;
	return r;
}

static void test_sites_sum_threads_and_rank_by_usual_hold(void **state)
{
	/* Stack 7: two threads, 5 us holds; stack 8: one thread, 200 us. */
	struct ss_release_rec recs[3] = {
		rec(7, 11, 30, 5000, 12), rec(8, 12, 20, 200000, 17), rec(7, 13, 10, 5000, 12),
	};
	__u32 tids[2] = { 11, 12 };
	struct ss_futex_rec r = { .releases = recs, .nreleases = 3, .tids = tids, .waiters = 2 };
	struct ss_release_site *s;
	struct ss_holder *h;

	assert_int_equal(releases_sites(&r, &s), 2);
	assert_int_equal(s[0].stack_id, 8);
	assert_int_equal(s[0].threads, 1);
	assert_int_equal(s[1].stack_id, 7);
	assert_int_equal(s[1].threads, 2);
	assert_int_equal(s[1].v.wakes, 40);
	assert_int_equal(s[1].v.held_contended_hist[12], 40);
	assert_int_equal(s[1].v.held_contended_ns_max, 5000);
	/* The usual hold: the middle of the lower quartile's log2 slot. */
	assert_true(releases_usual_held_ns(&s[0].v) == 1.5 * (1 << 17));
	free(s);

	assert_int_equal(releases_holders(&r, &h), 3);
	assert_int_equal(h[0].tid, 11);
	assert_int_equal(h[0].releases, 30);
	assert_true(h[0].also_waits);
	assert_int_equal(h[1].tid, 12);
	assert_true(h[1].also_waits);
	assert_int_equal(h[2].tid, 13);
	assert_false(h[2].also_waits);
	free(h);
	assert_int_equal(releases_wakes(&r), 60);
}

/* A few holds stretched to ms by preemption do not outrank a site whose
 * every hold is long. */
static void test_preempted_holds_do_not_outrank(void **state)
{
	struct ss_release_rec recs[2] = { rec(7, 11, 40, 5000, 12), rec(8, 12, 40, 200000, 17) };
	struct ss_futex_rec r = { .releases = recs, .nreleases = 2 };
	struct ss_release_site *s;

	recs[0].v.held_contended_hist[12] = 12;
	recs[0].v.held_contended_hist[23] = 28;
	recs[0].v.held_contended_ns = 12 * 5000 + 28 * 9000000ull;
	assert_int_equal(releases_sites(&r, &s), 2);
	assert_int_equal(s[0].stack_id, 8);
	free(s);
}

static void test_no_records_no_sites(void **state)
{
	struct ss_futex_rec r = { 0 };
	struct ss_release_site *s = (void *)1;
	struct ss_holder *h = (void *)1;

	assert_int_equal(releases_sites(&r, &s), 0);
	assert_null(s);
	assert_int_equal(releases_holders(&r, &h), 0);
	assert_null(h);
}

static void test_lock_words_are_released_by_their_waiters(void **state)
{
	/* glibc's mutex: FUTEX_WAIT, several waiters. */
	struct ss_futex_rec mutex = { .waiters = 3, .f = { .waits = 100, .blocked = 100, .wakes = 120,
							   .holder_wakes = 5 } };
	/* A condition variable: BITSET waits, signalled by others. */
	struct ss_futex_rec cond = { .waiters = 3, .f = { .waits = 100, .blocked = 100, .wakes = 100,
							  .bitset_waits = 100, .holder_wakes = 24 } };
	/* A mutex waiting with BITSET, released by its waiters. */
	struct ss_futex_rec bitset_mutex = { .waiters = 3, .f = { .waits = 100, .blocked = 100,
								  .wakes = 100, .bitset_waits = 100,
								  .holder_wakes = 25 } };
	/* One thread waits, another wakes it: nothing contends. */
	struct ss_futex_rec one = { .waiters = 1, .f = { .waits = 4, .blocked = 4, .wakes = 4 } };

	assert_true(releases_word_is_lock(&mutex));
	assert_false(releases_word_is_lock(&cond));
	assert_true(releases_word_is_lock(&bitset_mutex));
	assert_false(releases_word_is_lock(&one));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sites_sum_threads_and_rank_by_usual_hold),
		cmocka_unit_test(test_preempted_holds_do_not_outrank),
		cmocka_unit_test(test_no_records_no_sites),
		cmocka_unit_test(test_lock_words_are_released_by_their_waiters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

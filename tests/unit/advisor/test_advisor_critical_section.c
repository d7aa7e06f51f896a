// SPDX-License-Identifier: GPL-2.0
/* Who holds a contended lock (critical_section.c): the futex-contention
 * finding names the critical section by its release site, says what the
 * held-while-contended figure is, names a convoy, and never points at the
 * runtime. */
#include "advisor_fixture.h"

#define MUTEX "pthread_mutex_lock <- worker_hot (demo)"

/* A release site with n holds measured, every one held_ns. */
static struct adv_release_site site(const char *fn, bool user, uint64_t wakes, uint64_t n,
				    double held_ns)
{
	struct adv_release_site s = { .user_named = user, .threads = 1, .wakes = wakes,
				      .woken = wakes, .held_contended = n };

	if (user) {
		snprintf(s.name, sizeof(s.name), "%s in demo (via pthread_mutex_unlock in libc)", fn);
		snprintf(s.frame, sizeof(s.frame), "%s+0x84 (demo)", fn);
	} else {
		snprintf(s.name, sizeof(s.name), "%s in libc", fn);
	}
	s.held_contended_ns = (uint64_t)(n * held_ns);
	s.held_contended_ns_max = (uint64_t)held_ns;
	s.held_contended_hist[fx_slot(held_ns)] = n;
	return s;
}

static const struct adv_finding *run(struct fx *fx, struct adv_release_site *sites, size_t n,
				     struct adv_holder *holders, size_t nh)
{
	struct adv_futex *fu = fx_lock(fx, MUTEX, 4, 20000, 300000, 0.6);

	fu->release_sites = sites;
	fu->nrelease_sites = n;
	fu->holders = holders;
	fu->nholders = nh;
	fx_host(fx);
	fx_run(fx);
	return fx_get(fx, "futex-contention");
}

static void test_dominant_section_is_named_and_to_be_shortened(void **state)
{
	struct adv_release_site sites[2] = {
		site("flush_queue", true, 780, 700, 200000),	/* 200 us, most of the holds */
		site("stats_bump", true, 220, 100, 5000),	/* 5 us */
	};
	struct adv_holder holders[2] = { { .tid = 11, .comm = "flusher", .releases = 780 },
					 { .tid = 12, .comm = "stats", .releases = 220 } };
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = run(fx, sites, 2, holders, 2);

	fx_print(f);
	assert_non_null(f);
	assert_string_equal(fx_evidence(f, "critical section"),
			    "held in flush_queue (release at flush_queue+0x84 (demo), 78% of contended releases)");
	/* Its distribution and the next site's, labelled a lower bound. */
	assert_non_null(strstr(fx_evidence(f, "held while contended (lower bound)"),
			       "flush_queue: median 197 us, p90 200 us, max 200 us over 700 holds measured"));
	assert_non_null(strstr(fx_evidence(f, "held while contended (lower bound)"),
			       "; stats_bump: median"));
	assert_non_null(strstr(fx_evidence(f, "holders"), "2 threads: 11 flusher 78%, 12 stats 22%"));
	assert_null(strstr(fx_evidence(f, "holders"), "convoy"));
	/* 700 holds of ~200 us against 100 of ~5 us: it dominates. */
	assert_non_null(strstr(f->recommendation, "in flush_queue, where it is held longest"));
	assert_non_null(strstr(f->recommendation, "Move out what does not need the lock"));
	assert_null(strstr(f->recommendation, "function named above"));
	fx_free(fx);
}

static void test_spread_holds_name_the_largest_of_several(void **state)
{
	struct adv_release_site sites[3] = {
		site("parse", true, 300, 300, 50000),
		site("commit", true, 300, 280, 50000),
		site("flush", true, 300, 260, 50000),
	};
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = run(fx, sites, 3, NULL, 0);

	assert_non_null(f);
	assert_non_null(strstr(fx_evidence(f, "critical section"), "held in parse "));
	assert_non_null(strstr(f->recommendation, "Shorten the longest-held sections first (parse, the largest"));
	assert_null(strstr(f->recommendation, "Move out what does not need the lock"));
	fx_free(fx);
}

/* A few holds stretched by a preempted holder (ms) do not make a short
 * section the critical one. */
static void test_preempted_short_section_does_not_outrank_a_long_one(void **state)
{
	struct adv_release_site sites[2] = {
		site("short_path", true, 300, 40, 5000),
		site("long_path", true, 300, 280, 200000),
	};
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	/* short_path: 30 of its 40 holds stretched to 8 ms by preemption. */
	sites[0].held_contended_hist[fx_slot(5000)] = 10;
	sites[0].held_contended_hist[fx_slot(8e6)] = 30;
	sites[0].held_contended_ns = 10 * 5000 + 30 * 8000000ULL;
	f = run(fx, sites, 2, NULL, 0);
	assert_non_null(f);
	assert_non_null(strstr(fx_evidence(f, "critical section"), "held in long_path "));
	fx_free(fx);
}

static void test_convoy_is_said(void **state)
{
	struct adv_release_site sites[1] = { site("worker_step", true, 900, 800, 100000) };
	struct adv_holder holders[3] = {
		{ .tid = 21, .comm = "w", .releases = 300, .also_waits = true },
		{ .tid = 22, .comm = "w", .releases = 300, .also_waits = true },
		{ .tid = 23, .comm = "w", .releases = 300, .also_waits = true },
	};
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = run(fx, sites, 1, holders, 3);

	assert_non_null(f);
	assert_non_null(strstr(fx_evidence(f, "holders"), "3 also wait for it (100% of releases): a convoy"));
	assert_non_null(strstr(fx_evidence(f, "convoy"), "more threads only add waiting"));
	fx_free(fx);
}

static void test_runtime_release_site_is_not_the_place_to_change(void **state)
{
	struct adv_release_site sites[1] = { site("__lll_lock_wake", false, 900, 800, 100000) };
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = run(fx, sites, 1, NULL, 0);

	assert_non_null(f);
	assert_string_equal(fx_evidence(f, "critical section"),
			    "not named: the release stack does not reach the user's code (__lll_lock_wake in libc, 100% of contended releases)");
	assert_null(strstr(f->recommendation, "__lll_lock_wake"));
	assert_non_null(strstr(f->recommendation, "release stacks stop in the runtime"));
	fx_free(fx);
}

static void test_no_release_sites_no_critical_section(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f = run(fx, NULL, 0, NULL, 0);

	assert_non_null(f);
	assert_null(fx_evidence(f, "critical section"));
	assert_null(fx_evidence(f, "holders"));
	assert_non_null(strstr(f->recommendation, "function named above"));
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dominant_section_is_named_and_to_be_shortened),
		cmocka_unit_test(test_spread_holds_name_the_largest_of_several),
		cmocka_unit_test(test_preempted_short_section_does_not_outrank_a_long_one),
		cmocka_unit_test(test_convoy_is_said),
		cmocka_unit_test(test_runtime_release_site_is_not_the_place_to_change),
		cmocka_unit_test(test_no_release_sites_no_critical_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

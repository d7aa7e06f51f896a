// SPDX-License-Identifier: GPL-2.0
/*
 * The reference kernels count exactly: every increment, CAS and store that
 * a kernel claims to have done is in the totals, at every spacing, ordering,
 * hint and thread count (including more threads than CPUs).
 */
#include <errno.h>
#include <string.h>
#include "testlib.h"
#include "calib/kern/calib_kern.h"
#include "calib/kern/calib_util.h"

static cpu_set_t allowed;

static int setup(void **state)
{
	return sched_getaffinity(0, sizeof(allowed), &allowed);
}

static void test_false_sharing_totals(void **state)
{
	const size_t spacings[] = { 8, 64, 128, 256 };

	for (int threads = 1; threads <= 3; threads++)
		for (size_t s = 0; s < 4; s++)
			for (int atomic = 0; atomic <= 1; atomic++) {
				struct calib_fs_result r;

				assert_int_equal(calib_fs__run(&allowed, threads, spacings[s],
							       atomic, 20000, &r), 0);
				assert_int_equal(r.total, (uint64_t)threads * 20000);
				assert_true(r.ns_per_inc > 0);
				assert_true(r.overlap > 0);
			}
}

static void test_false_sharing_rejects_bad_spacing(void **state)
{
	struct calib_fs_result r;

	assert_int_equal(calib_fs__run(&allowed, 2, 12, false, 10, &r), -EINVAL);
	assert_int_equal(calib_fs__run(&allowed, 2, 4, false, 10, &r), -EINVAL);
	assert_int_equal(calib_fs__run(&allowed, 0, 64, false, 10, &r), -EINVAL);
}

static void test_shared_counter_totals(void **state)
{
	uint32_t avail = calib_hints__available();
	int ran = 0;

	for (int h = 0; h < CALIB_HINT__COUNT; h++) {
		if (!(avail & CALIB_HINT_BIT(h)))
			continue;
		for (int threads = 1; threads <= 4; threads *= 2) {
			struct calib_sh_counter c;

			assert_int_equal(calib_sh__shared_counter(&allowed, threads, h, 30000, &c), 0);
			assert_int_equal(c.final, 30000);
			assert_int_equal(c.successes, 30000);
			if (threads == 1)
				assert_int_equal(c.failures, 0);
			assert_true(c.ns_per_million > 0);
		}
		ran++;
	}
	/* Every CPU offers at least the baseline, a nop and one real hint. */
	assert_true(ran >= 3);
}

static void test_hint_cost_and_refusal(void **state)
{
	uint32_t avail = calib_hints__available();
	double ns;

	for (int h = 0; h < CALIB_HINT__COUNT; h++) {
		if (avail & CALIB_HINT_BIT(h)) {
			assert_int_equal(calib_sh__hint_cost(h, 3, 1000, &ns), 0);
			assert_true(ns > 0);
		} else {
			/* Absent hints are refused before anything executes. */
			assert_int_equal(calib_hints__exec(h, 1), -ENOTSUP);
			assert_int_equal(calib_sh__hint_cost(h, 3, 1000, &ns), -ENOTSUP);
			struct calib_sh_counter c;
			assert_int_equal(calib_sh__shared_counter(&allowed, 2, h, 10, &c), -ENOTSUP);
		}
	}
	assert_int_equal(calib_sh__hint_cost(CALIB_HINT_NONE, 3, 0, &ns), -EINVAL);
}

static void test_memory_order_totals(void **state)
{
	for (int op = 0; op < CALIB_MO__COUNT; op++) {
		struct calib_mo_result r;
		uint64_t final = 0;

		assert_true(calib_mo__uncontended(op, 5000, &final) > 0);
		/* Stores write 1..n, CAS ops increment: both end at n. */
		assert_int_equal(final, 5000);
		for (int threads = 2; threads <= 3; threads++) {
			assert_int_equal(calib_mo__contended(&allowed, threads, op, 5000, &r), 0);
			if (calib_mo__is_cas(op)) {
				assert_int_equal(r.final, (uint64_t)threads * 5000);
			} else {
				/* The last store of some thread: n. */
				assert_int_equal(r.final, 5000);
				assert_int_equal(r.cas_failures, 0);
			}
			assert_true(r.ns_per_op > 0);
		}
	}
	assert_string_equal(calib_mo__name(CALIB_MO_STORE_FENCE), "store_fence");
	assert_true(calib_mo__is_cas(CALIB_MO_CAS_RELEASE));
	assert_false(calib_mo__is_cas(CALIB_MO_STORE_SEQ_CST));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_false_sharing_totals),
		cmocka_unit_test(test_false_sharing_rejects_bad_spacing),
		cmocka_unit_test(test_shared_counter_totals),
		cmocka_unit_test(test_hint_cost_and_refusal),
		cmocka_unit_test(test_memory_order_totals),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

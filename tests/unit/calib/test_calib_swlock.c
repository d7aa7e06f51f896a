// SPDX-License-Identifier: GPL-2.0
/*
 * calib_swlock.c: every acquire strategy keeps mutual exclusion at every
 * thread count (a non-atomic counter adds up exactly and no critical
 * section ever sees a second owner), the stop-all coordinator always ends
 * with every thread's ack, and the latency histogram's quantiles are right.
 * Nothing here asserts a timing.
 */
#include "testlib.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calib/kern/calib_swlock.h"

static cpu_set_t allowed_cpus(void)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	return set;
}

static const uint32_t spin_counts[] = { 0, 1, 0xF, 0xFF };

/* Runs iters acquisitions per thread and checks the books. */
static void check_exclusion(enum swlock_strategy s, uint32_t spins, int nthreads,
			    uint64_t iters)
{
	struct swbench_cfg cfg = { .nthreads = nthreads, .cpus = allowed_cpus(),
				   .cs_work = 20, .outside_work = 5 };
	struct swbench_sample *out = malloc(sizeof(*out));
	struct swbench *b = NULL;

	assert_non_null(out);
	assert_int_equal(swbench__create(&b, &cfg), 0);
	swbench__set_lock(b, s, spins);
	/* Twice: the second run proves the team resumes after a stop. */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(swbench__run(b, 0, iters, 1, out), 0);
		assert_int_equal(out->violations, 0);
		assert_int_equal(out->counter, (uint64_t)nthreads * iters);
		assert_int_equal(out->total_acq, (uint64_t)nthreads * iters);
		assert_int_equal(out->min_acq, iters);
		assert_int_equal(out->max_acq, iters);
		assert_int_equal(out->acks, (uint32_t)nthreads);
		assert_int_equal(out->lat.count, (uint64_t)nthreads * iters);
	}
	swbench__destroy(b);
	free(out);
}

static void test_exclusion_every_strategy(void **state)
{
	cpu_set_t set = allowed_cpus();
	int ncpus = CPU_COUNT(&set);
	/* One thread, about one per CPU, and oversubscribed (several per CPU). */
	const int counts[] = { 1, 2, 3, 8, 4 * ncpus };

	for (int s = 0; s < SWLOCK__COUNT; s++) {
		for (unsigned c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			/* Pure spin with preempted holders costs a time slice per
			 * handoff: fewer rounds keep the binary quick. */
			uint64_t iters = s == SWLOCK_SPIN && counts[c] > 2 ? 200 : 3000;

			if (swlock_strategy__has_spins((enum swlock_strategy)s)) {
				for (unsigned k = 0; k < sizeof(spin_counts) / sizeof(spin_counts[0]); k++)
					check_exclusion((enum swlock_strategy)s, spin_counts[k],
							counts[c], iters / 4);
			} else {
				check_exclusion((enum swlock_strategy)s, 0, counts[c], iters);
			}
		}
	}
}

/* Timed runs: every thread acknowledges every stop, whatever it was doing
 * (spinning, yielding or parked in the futex), and the books still add up. */
static void test_stop_all_collects_every_ack(void **state)
{
	const int counts[] = { 1, 5, 16 };
	struct swbench_sample *out = malloc(sizeof(*out));

	assert_non_null(out);
	for (unsigned c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		struct swbench_cfg cfg = { .nthreads = counts[c], .cpus = allowed_cpus(),
					   .cs_work = 20, .outside_work = 20 };
		struct swbench *b = NULL;

		assert_int_equal(swbench__create(&b, &cfg), 0);
		for (int s = 0; s < SWLOCK__COUNT; s++) {
			swbench__set_lock(b, (enum swlock_strategy)s, 7);
			assert_int_equal(swbench__run(b, 3000000, 0, 3, out), 0);
			assert_int_equal(out->acks, (uint32_t)counts[c]);
			assert_int_equal(out->stops, 3);
			assert_true(out->stop_all_max_ns >= out->stop_all_ns);
			assert_int_equal(out->violations, 0);
			assert_int_equal(out->counter, out->total_acq);
			assert_true(out->min_acq <= out->max_acq);
			assert_int_equal(out->lat.count, out->total_acq);
		}
		swbench__destroy(b);
	}
	free(out);
}

static void test_bad_arguments(void **state)
{
	struct swbench_cfg cfg = { .nthreads = 0, .cpus = allowed_cpus() };
	struct swbench_sample *out = malloc(sizeof(*out));
	struct swbench *b = NULL;

	assert_int_equal(swbench__create(&b, &cfg), -EINVAL);
	cfg.nthreads = 1;
	CPU_ZERO(&cfg.cpus);
	assert_int_equal(swbench__create(&b, &cfg), -EINVAL);
	cfg.cpus = allowed_cpus();
	assert_int_equal(swbench__create(&b, &cfg), 0);
	assert_int_equal(swbench__run(b, 1000000, 0, 0, out), -EINVAL);
	assert_int_equal(swbench__run(b, 1000000, 0, SWBENCH_MAX_STOPS + 1, out), -EINVAL);
	swbench__destroy(b);
	swbench__destroy(NULL);
	free(out);
}

static void test_histogram_quantiles(void **state)
{
	struct swhist *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	assert_int_equal(swhist__quantile(h, 0.5), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		swhist__add(h, v);
	assert_int_equal(h->count, 1000);
	assert_int_equal(h->max, 1000);
	/* Buckets are 1/8 of a power of two wide: the quantile is the floor of
	 * the bucket holding the exact value. */
	assert_in_range(swhist__quantile(h, 0.50), 448, 500);
	assert_in_range(swhist__quantile(h, 0.99), 896, 990);
	assert_int_equal(swhist__quantile(h, 1.0), 960);
	assert_int_equal(swhist__quantile(h, 0.0), 1);
	/* Small values are exact. */
	memset(h, 0, sizeof(*h));
	swhist__add(h, 7);
	swhist__add(h, 7);
	swhist__add(h, 9);
	assert_int_equal(swhist__quantile(h, 0.5), 7);
	/* One huge outlier: p50 unmoved, max exact. */
	swhist__add(h, 5000000000ULL);
	assert_int_equal(h->max, 5000000000ULL);
	assert_int_equal(swhist__quantile(h, 0.25), 7);
	free(h);
}

static void test_histogram_merge(void **state)
{
	struct swhist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	assert_non_null(a);
	assert_non_null(b);
	for (int i = 0; i < 100; i++)
		swhist__add(a, 10);
	for (int i = 0; i < 300; i++)
		swhist__add(b, 100000);
	swhist__merge(a, b);
	assert_int_equal(a->count, 400);
	assert_int_equal(a->max, 100000);
	assert_int_equal(swhist__quantile(a, 0.2), 10);
	assert_in_range(swhist__quantile(a, 0.5), 98304, 100000);
	free(a);
	free(b);
}

static void test_strategy_words(void **state)
{
	char buf[64];

	swlock_strategy__describe(SWLOCK_SPIN_THEN_PARK, 0x1F, buf, sizeof(buf));
	assert_string_equal(buf, "spin 31 (0x1F) then futex park");
	swlock_strategy__describe(SWLOCK_SPIN_YIELD_REPEAT, 0x7, buf, sizeof(buf));
	assert_string_equal(buf, "(spin 7 + yield) repeated");
	swlock_strategy__describe(SWLOCK_SPIN_THEN_YIELD, 0, buf, sizeof(buf));
	assert_string_equal(buf, "spin 0 then yield loop");
	assert_string_equal(swlock_strategy__name(SWLOCK_PTHREAD_MUTEX), "pthread_mutex");
	assert_false(swlock_strategy__has_spins(SWLOCK_SPIN));
	assert_false(swlock_strategy__has_spins(SWLOCK_PTHREAD_MUTEX));
	assert_true(swlock_strategy__has_spins(SWLOCK_SPIN_THEN_PARK));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exclusion_every_strategy),
		cmocka_unit_test(test_stop_all_collects_every_ack),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_histogram_quantiles),
		cmocka_unit_test(test_histogram_merge),
		cmocka_unit_test(test_strategy_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

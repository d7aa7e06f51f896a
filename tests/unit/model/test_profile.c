// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c: log2 bucketing (the BPF side's rule), closing a thread's open
 * on/off-CPU tail, sorting and totals of a snapshot, and interval diffs.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/profile.h"

/* floor(log2(v)) by repeated halving: a different way to the same rule as
 * ss_log2_slot (bpf/common.h, run by BPF and user space), clamped to the
 * last slot. */
static unsigned int slot_by_halving(__u64 v)
{
	unsigned int r = 0;

	while (v > 1) {
		v >>= 1;
		r++;
	}
	return r < SS_HIST_SLOTS ? r : SS_HIST_SLOTS - 1;
}

static void test_log2_slot_edges(void **state)
{
	assert_int_equal(ss_log2_slot(0), 0);
	assert_int_equal(ss_log2_slot(1), 0);
	assert_int_equal(ss_log2_slot(2), 1);
	assert_int_equal(ss_log2_slot(3), 1);
	assert_int_equal(ss_log2_slot(4), 2);
	assert_int_equal(ss_log2_slot(1023), 9);
	assert_int_equal(ss_log2_slot(1024), 10);
	assert_int_equal(ss_log2_slot(1ull << 34), 34);
	assert_int_equal(ss_log2_slot((1ull << 35) - 1), 34);
	assert_int_equal(ss_log2_slot(1ull << 35), 35);
	assert_int_equal(ss_log2_slot(1ull << 40), SS_HIST_SLOTS - 1);
	assert_int_equal(ss_log2_slot(1ull << 63), SS_HIST_SLOTS - 1);
	assert_int_equal(ss_log2_slot(UINT64_MAX), SS_HIST_SLOTS - 1);
	/* 2^35 ns (34 s) is where the last slot starts: trace.h's comment. */
	assert_int_equal(SS_HIST_SLOTS, 36);
}

/* Every power of two and its neighbours, against the halving rule. */
static void test_log2_slot_all_powers(void **state)
{
	for (int k = 0; k < 64; k++) {
		__u64 p = 1ull << k;
		__u64 vals[] = { p - 1, p, p + 1, p | (p >> 1) };

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			if (ss_log2_slot(vals[i]) != slot_by_halving(vals[i]))
				fail_msg("slot of %llu: %u, want %u", (unsigned long long)vals[i],
					 ss_log2_slot(vals[i]), slot_by_halving(vals[i]));
	}
}

/* Values of every magnitude between, against the halving rule. */
static void test_log2_slot_spread(void **state)
{
	__u64 x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 200000; i++) {
		__u64 v;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		v = x >> (x % 64);
		if (ss_log2_slot(v) != slot_by_halving(v))
			fail_msg("slot of %llu: %u, want %u", (unsigned long long)v,
				 ss_log2_slot(v), slot_by_halving(v));
	}
}

static void test_close_oncpu_tail(void **state)
{
	struct ss_thread t = { .oncpu_ns = 100, .offcpu_ns = 200, .last_in_ns = 1000 };

	profile_close_thread(&t, 500, 5000, false);
	assert_int_equal(t.oncpu_ns, 100 + 4000);
	assert_int_equal(t.offcpu_ns, 200);
}

static void test_close_offcpu_tail(void **state)
{
	struct ss_thread t = { .oncpu_ns = 100, .offcpu_ns = 200, .last_out_ns = 2000 };

	/* running only matters for a thread that never switched. */
	profile_close_thread(&t, 500, 5000, true);
	assert_int_equal(t.oncpu_ns, 100);
	assert_int_equal(t.offcpu_ns, 200 + 3000);
}

static void test_close_never_switched(void **state)
{
	struct ss_thread run = { 0 }, sleep = { 0 };

	profile_close_thread(&run, 1000, 8000, true);
	assert_int_equal(run.oncpu_ns, 7000);
	assert_int_equal(run.offcpu_ns, 0);
	profile_close_thread(&sleep, 1000, 8000, false);
	assert_int_equal(sleep.oncpu_ns, 0);
	assert_int_equal(sleep.offcpu_ns, 7000);
}

static void test_close_exited_untouched(void **state)
{
	struct ss_thread t = { .oncpu_ns = 10, .offcpu_ns = 20, .last_out_ns = 2000,
			       .flags = SS_THREAD_EXITED };
	struct ss_thread never = { .flags = SS_THREAD_EXITED };
	struct ss_thread before;

	before = t;
	profile_close_thread(&t, 500, 9000, false);
	assert_memory_equal(&t, &before, sizeof(t));
	before = never;
	profile_close_thread(&never, 500, 9000, true);
	assert_memory_equal(&never, &before, sizeof(never));
}

/* A clock that has not passed the last switch adds nothing. */
static void test_close_no_time_passed(void **state)
{
	struct ss_thread in = { .last_in_ns = 5000 }, out = { .last_out_ns = 5000 }, none = { 0 };

	profile_close_thread(&in, 1000, 5000, false);
	profile_close_thread(&out, 1000, 4000, false);
	profile_close_thread(&none, 6000, 6000, true);
	assert_int_equal(in.oncpu_ns + in.offcpu_ns, 0);
	assert_int_equal(out.oncpu_ns + out.offcpu_ns, 0);
	assert_int_equal(none.oncpu_ns + none.offcpu_ns, 0);
}

/* A thread whose counters are all derived from seed, so that sums can be
 * checked exactly. */
static struct ss_thread mk_thread(__u32 tid, __u64 wait_ns, __u64 yields, __u64 seed)
{
	struct ss_thread t = { .tid = tid, .futex_wait_ns = wait_ns, .sched_yield = yields };

	t.futex_wait = seed;
	t.futex_wait_ns_max = wait_ns / 2;
	t.futex_wake = seed + 1;
	t.futex_woken = seed + 2;
	t.futex_other = seed + 3;
	for (int i = 0; i < SS_FUTEX_OUTCOMES; i++)
		t.futex_outcome[i] = seed * 10 + i;
	t.switches_voluntary = seed + 4;
	t.switches_involuntary = seed + 5;
	t.oncpu_ns = seed * 1000 + 6;
	t.offcpu_ns = seed * 1000 + 7;
	t.runq_count = seed + 8;
	t.runq_ns = seed * 100 + 9;
	t.runq_ns_max = seed * 7;
	for (int i = 0; i < SS_HIST_SLOTS; i++)
		t.runq_hist[i] = seed + i;
	snprintf(t.comm, sizeof(t.comm), "t%u", tid);
	return t;
}

static struct ss_waiter_stack *mk_stacks(size_t n, const __s32 *ids, const __u64 *wait)
{
	struct ss_waiter_stack *s = calloc(n, sizeof(*s));

	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		s[i].stack_id = ids[i];
		s[i].count = i + 1;
		s[i].wait_ns = wait[i];
	}
	return s;
}

/* Fills p with four threads, three futexes and three yield sites, all out
 * of order. Arrays are malloc'd: profile_free frees them. */
static void mk_profile(struct ss_profile *p)
{
	static const __s32 ids[] = { 4, 9, 2 };
	static const __u64 waits[] = { 10, 30, 20 };
	struct ss_thread th[] = {
		mk_thread(11, 500, 0, 1),	/* weight 500 */
		mk_thread(12, 0, 700, 2),	/* weight 700: a spinner */
		mk_thread(13, 900, 0, 3),	/* weight 900 */
		mk_thread(10, 500, 0, 4),	/* weight 500, lower tid than 11 */
	};

	memset(p, 0, sizeof(*p));
	p->start_ns = 1000;
	p->now_ns = 5000;
	p->threads = malloc(sizeof(th));
	assert_non_null(p->threads);
	memcpy(p->threads, th, sizeof(th));
	p->nthreads = 4;
	p->futexes = calloc(3, sizeof(*p->futexes));
	assert_non_null(p->futexes);
	p->futexes[0] = (struct ss_futex_rec){ .uaddr = 0x3000, .f = { .waits = 1, .wait_ns = 50, .wakes = 1 } };
	p->futexes[1] = (struct ss_futex_rec){ .uaddr = 0x2000, .f = { .waits = 9, .wait_ns = 80, .wakes = 2 } };
	/* Same wait time as 0x3000, more wakes: ranks above it. */
	p->futexes[2] = (struct ss_futex_rec){ .uaddr = 0x1000, .f = { .waits = 4, .wait_ns = 50, .wakes = 7 } };
	p->futexes[1].stacks = mk_stacks(3, ids, waits);
	p->futexes[1].nstacks = 3;
	p->nfutexes = 3;
	p->yields = calloc(3, sizeof(*p->yields));
	assert_non_null(p->yields);
	p->yields[0] = (struct ss_yield_site){ .stack_id = 5, .count = 3 };
	p->yields[1] = (struct ss_yield_site){ .stack_id = 1, .count = 40 };
	p->yields[2] = (struct ss_yield_site){ .stack_id = 0, .count = 3 };
	p->nyields = 3;
	for (int i = 0; i < SS_DROPS; i++)
		p->drops[i] = 100 + i;
}

static void test_finish_sorts(void **state)
{
	struct ss_profile p;
	static const __u32 tids[] = { 13, 12, 10, 11 };

	mk_profile(&p);
	profile_finish(&p);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(p.threads[i].tid, tids[i]);
	/* Thread records move whole: the comm follows its tid. */
	assert_string_equal(p.threads[0].comm, "t13");
	assert_int_equal(p.threads[0].futex_wait, 3);

	assert_int_equal(p.futexes[0].uaddr, 0x2000);
	assert_int_equal(p.futexes[1].uaddr, 0x1000);
	assert_int_equal(p.futexes[2].uaddr, 0x3000);
	/* The stacks moved with their futex and are sorted by wait time. */
	assert_int_equal(p.futexes[0].nstacks, 3);
	assert_int_equal(p.futexes[0].stacks[0].stack_id, 9);
	assert_int_equal(p.futexes[0].stacks[1].stack_id, 2);
	assert_int_equal(p.futexes[0].stacks[2].stack_id, 4);
	assert_int_equal(p.futexes[0].stacks[0].count, 2);

	assert_int_equal(p.yields[0].stack_id, 1);
	assert_int_equal(p.yields[1].stack_id, 0);	/* tie on count: lower id first */
	assert_int_equal(p.yields[2].stack_id, 5);
	profile_free(&p);
	assert_null(p.threads);
	assert_int_equal(p.nthreads, 0);
}

static void test_finish_totals(void **state)
{
	struct ss_profile p;
	const __u64 seeds = 1 + 2 + 3 + 4;

	mk_profile(&p);
	/* Totals are recomputed, not added to stale ones. */
	p.totals.sched_yield = 12345;
	p.totals.threads = 99;
	profile_finish(&p);
	assert_int_equal(p.totals.threads, 4);
	assert_int_equal(p.totals.sched_yield, 700);
	assert_int_equal(p.totals.futex_wait, seeds);
	assert_int_equal(p.totals.futex_wait_ns, 500 + 900 + 500);
	assert_int_equal(p.totals.futex_wake, seeds + 4 * 1);
	assert_int_equal(p.totals.futex_woken, seeds + 4 * 2);
	for (int i = 0; i < SS_FUTEX_OUTCOMES; i++)
		assert_int_equal(p.totals.futex_outcome[i], seeds * 10 + 4 * i);
	assert_int_equal(p.totals.switches_voluntary, seeds + 4 * 4);
	assert_int_equal(p.totals.switches_involuntary, seeds + 4 * 5);
	assert_int_equal(p.totals.oncpu_ns, seeds * 1000 + 4 * 6);
	assert_int_equal(p.totals.offcpu_ns, seeds * 1000 + 4 * 7);
	assert_int_equal(p.totals.runq_count, seeds + 4 * 8);
	assert_int_equal(p.totals.runq_ns, seeds * 100 + 4 * 9);
	assert_int_equal(p.totals.runq_ns_max, 4 * 7);	/* a maximum, not a sum */
	for (int i = 0; i < SS_HIST_SLOTS; i++)
		assert_int_equal(p.totals.runq_hist[i], seeds + 4 * i);
	/* Totals equal the per-thread sums of what the report shows. */
	{
		__u64 on = 0, y = 0;

		for (size_t i = 0; i < p.nthreads; i++) {
			on += p.threads[i].oncpu_ns;
			y += p.threads[i].sched_yield;
		}
		assert_int_equal(p.totals.oncpu_ns, on);
		assert_int_equal(p.totals.sched_yield, y);
	}
	profile_free(&p);
}

static void test_finish_empty(void **state)
{
	struct ss_profile p = { 0 };

	profile_finish(&p);
	assert_int_equal(p.totals.threads, 0);
	assert_int_equal(p.totals.oncpu_ns, 0);
	profile_free(&p);
	profile_free(NULL);
}

static void test_diff_subtracts(void **state)
{
	struct ss_profile prev, cur, d;
	const struct ss_thread *t13 = NULL, *t12 = NULL;

	mk_profile(&prev);
	mk_profile(&cur);
	prev.now_ns = 3000;
	cur.now_ns = 7000;
	/* Thread 13 waited 250 ns more in 2 more waits; its max grew. */
	for (size_t i = 0; i < cur.nthreads; i++) {
		struct ss_thread *t = &cur.threads[i];

		if (t->tid == 13) {
			t->futex_wait += 2;
			t->futex_wait_ns += 250;
			t->futex_wait_ns_max = 9999;
			t->oncpu_ns += 1234;
			t->runq_hist[3] += 5;
			t->last_in_ns = 6500;
		}
		if (t->tid == 12)
			t->sched_yield += 70;
	}
	cur.drops[SS_DROP_STACK_FAIL] += 6;
	profile_finish(&prev);	/* prev sorted differently from cur */

	assert_int_equal(profile_diff(&cur, &prev, &d), 0);
	assert_int_equal(d.start_ns, 3000);
	assert_int_equal(d.now_ns, 7000);
	assert_int_equal(d.nthreads, 4);
	for (size_t i = 0; i < d.nthreads; i++) {
		if (d.threads[i].tid == 13)
			t13 = &d.threads[i];
		if (d.threads[i].tid == 12)
			t12 = &d.threads[i];
	}
	assert_non_null(t13);
	assert_non_null(t12);
	assert_int_equal(t13->futex_wait, 2);
	assert_int_equal(t13->futex_wait_ns, 250);
	assert_int_equal(t13->futex_wait_ns_max, 9999);	/* maxima are kept */
	assert_int_equal(t13->runq_ns_max, 3 * 7);
	assert_int_equal(t13->oncpu_ns, 1234);
	assert_int_equal(t13->offcpu_ns, 0);
	assert_int_equal(t13->switches_voluntary, 0);
	for (int i = 0; i < SS_HIST_SLOTS; i++)
		assert_int_equal(t13->runq_hist[i], i == 3 ? 5 : 0);
	for (int i = 0; i < SS_FUTEX_OUTCOMES; i++)
		assert_int_equal(t13->futex_outcome[i], 0);
	/* Identity and bookkeeping come from cur. */
	assert_string_equal(t13->comm, "t13");
	assert_int_equal(t13->last_in_ns, 6500);
	assert_int_equal(t12->sched_yield, 70);
	/* Sorted by the interval's weights, totals of the interval. */
	assert_int_equal(d.threads[0].tid, 13);
	assert_int_equal(d.threads[1].tid, 12);
	assert_int_equal(d.totals.futex_wait_ns, 250);
	assert_int_equal(d.totals.sched_yield, 70);
	assert_int_equal(d.totals.threads, 4);
	for (int i = 0; i < SS_DROPS; i++)
		assert_int_equal(d.drops[i], i == SS_DROP_STACK_FAIL ? 6 : 0);
	assert_int_equal(d.nfutexes, 0);
	assert_int_equal(d.nyields, 0);
	profile_free(&d);
	profile_free(&prev);
	profile_free(&cur);
}

/* Threads born during the interval count whole; threads gone from cur
 * are not invented. */
static void test_diff_new_threads(void **state)
{
	struct ss_profile prev = { 0 }, cur = { 0 }, d;
	struct ss_thread pt[] = { mk_thread(20, 100, 1, 1), mk_thread(21, 100, 1, 1) };
	struct ss_thread ct[] = { mk_thread(20, 300, 1, 1), mk_thread(22, 40, 9, 5) };

	prev.threads = pt;
	prev.nthreads = 2;
	prev.now_ns = 100;
	cur.threads = ct;
	cur.nthreads = 2;
	cur.now_ns = 200;
	assert_int_equal(profile_diff(&cur, &prev, &d), 0);
	assert_int_equal(d.nthreads, 2);
	assert_int_equal(d.threads[0].tid, 20);	/* weight 200 */
	assert_int_equal(d.threads[0].futex_wait_ns, 200);
	assert_int_equal(d.threads[0].futex_wait, 0);
	assert_int_equal(d.threads[1].tid, 22);	/* new: all of it */
	assert_memory_equal(&d.threads[1], &ct[1], sizeof(ct[1]));
	assert_int_equal(d.totals.futex_wait_ns, 200 + 40);
	profile_free(&d);
}

/* Without a previous snapshot the first interval is everything so far. */
static void test_diff_first_interval(void **state)
{
	struct ss_profile cur, d;

	mk_profile(&cur);
	profile_finish(&cur);
	assert_int_equal(profile_diff(&cur, NULL, &d), 0);
	assert_int_equal(d.start_ns, cur.start_ns);
	assert_int_equal(d.now_ns, cur.now_ns);
	assert_int_equal(d.nthreads, cur.nthreads);
	assert_memory_equal(d.threads, cur.threads, cur.nthreads * sizeof(*cur.threads));
	assert_memory_equal(&d.totals, &cur.totals, sizeof(d.totals));
	assert_memory_equal(d.drops, cur.drops, sizeof(d.drops));
	profile_free(&d);

	/* No threads at all still gives a valid, empty diff. */
	{
		struct ss_profile empty = { .start_ns = 1, .now_ns = 2 };

		assert_int_equal(profile_diff(&empty, NULL, &d), 0);
		assert_int_equal(d.nthreads, 0);
		profile_free(&d);
	}
	profile_free(&cur);
}

static void test_names_cover_every_enum(void **state)
{
	for (int i = 0; i < SS_DROPS; i++) {
		assert_non_null(ss_drop_names[i]);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(ss_drop_names[i], ss_drop_names[j]);
	}
	for (int i = 0; i < SS_FUTEX_OUTCOMES; i++)
		assert_non_null(ss_outcome_names[i]);
	assert_string_equal(ss_outcome_names[SS_FUTEX_WOKEN], "woken");
	assert_string_equal(ss_drop_names[SS_DROP_STACK_FAIL], "stack_failed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2_slot_edges),
		cmocka_unit_test(test_log2_slot_all_powers),
		cmocka_unit_test(test_log2_slot_spread),
		cmocka_unit_test(test_close_oncpu_tail),
		cmocka_unit_test(test_close_offcpu_tail),
		cmocka_unit_test(test_close_never_switched),
		cmocka_unit_test(test_close_exited_untouched),
		cmocka_unit_test(test_close_no_time_passed),
		cmocka_unit_test(test_finish_sorts),
		cmocka_unit_test(test_finish_totals),
		cmocka_unit_test(test_finish_empty),
		cmocka_unit_test(test_diff_subtracts),
		cmocka_unit_test(test_diff_new_threads),
		cmocka_unit_test(test_diff_first_interval),
		cmocka_unit_test(test_names_cover_every_enum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * top_verdict.c on processes shaped as `spinscope top` measured the
 * workloads of the ranking test (tests/integration/test_top.c) over 3 s on
 * this 2-CPU host: a 4-thread mutex convoy (convoy_lock), two sched_yield
 * spinners (yield_spinners) and an idle condition-variable pool
 * (condvar_pool). Each gets the verdict the advisor gives, the convoy's
 * word is a lock by adv_futex_use() (its waiters wake it) and the pool's
 * words are events (another thread wakes them); what needs -p is said.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "top/top_verdict.h"

#define S 1000000000ull
#define INTERVAL (3 * S)

static struct top_verdict_scratch *scratch;

static int setup(void **state)
{
	scratch = malloc(sizeof(*scratch));
	return scratch ? 0 : -1;
}

static int teardown(void **state)
{
	free(scratch);
	return 0;
}

static void proc_init(struct top_proc *p, int pid, const char *comm, const struct top_thread *t, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->cpus_allowed = 2;
	p->nthreads = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		p->oncpu_ns += t[i].oncpu_ns;
		p->runq_ns += t[i].runq_ns;
		p->runq_count += t[i].runq_count;
		p->switches_voluntary += t[i].switches_voluntary;
		p->switches_involuntary += t[i].switches_involuntary;
		p->futex_waits_all += t[i].futex_waits;
		p->futex_wait_ns_all += t[i].futex_wait_ns;
		p->wakes += t[i].futex_wakes;
		p->woken += t[i].futex_woken;
		p->yields += t[i].yields;
	}
}

static void apply(struct top_proc *p, const struct top_thread *t, size_t nt, struct top_word *w, size_t nw)
{
	struct top_verdict_input in = { .interval_ns = INTERVAL, .host_cpus = 2, .threads = t,
					.nthreads = nt, .words = w, .nwords = nw };

	assert_int_equal(top_verdict_apply(p, &in, scratch), 0);
}

static void test_convoy_is_lock_contention(void **state)
{
	struct top_thread t[4];
	struct top_word w = { .uaddr = 0x55eb5cfed160, .waits = 1764, .blocked = 1764, .wait_ns = 5235142200,
			      .wakes = 1767, .woken = 1767, .woken_waits = 1760, .waiters = 4, .wakers = 4,
			      .wakes_by_waiters = 1767 };
	struct top_proc p;

	for (int i = 0; i < 4; i++)
		t[i] = (struct top_thread){ .tid = 100 + i, .oncpu_ns = 668598228, .runq_ns = 1621692961,
					    .runq_count = 441, .switches_voluntary = 441,
					    .switches_involuntary = 20, .futex_waits = 441,
					    .futex_wait_ns = 1308785550, .futex_wakes = 442, .futex_woken = 442 };
	proc_init(&p, 100, "convoy_lock", t, 4);
	apply(&p, t, 4, &w, 1);
	assert_true(w.lock);
	assert_int_equal(p.lock_wait_ns, w.wait_ns);
	assert_int_equal(p.event_wait_ns, 0);
	assert_int_equal(p.lock_waits, 1764);
	assert_string_equal(p.verdict, "futex-contention");
	assert_true(p.verdict_severity > 0);
	assert_true(p.verdict_summary[0] != 0);
}

static void test_yield_spinners(void **state)
{
	struct top_thread t[2];
	struct top_proc p;

	for (int i = 0; i < 2; i++)
		t[i] = (struct top_thread){ .tid = 200 + i, .oncpu_ns = 790414357, .runq_ns = 2203986554,
					    .runq_count = 344593, .switches_involuntary = 344593,
					    .yields = 344593 };
	proc_init(&p, 200, "yield_spinners", t, 2);
	apply(&p, t, 2, NULL, 0);
	assert_string_equal(p.verdict, "spin-yield");
	assert_int_equal(p.lock_wait_ns + p.event_wait_ns, 0);
}

static void test_idle_pool_has_no_verdict(void **state)
{
	struct top_thread t[5];
	/* cond's sequence word and the mutex: woken by the main thread */
	struct top_word w[2] = {
		{ .uaddr = 0x1000, .waits = 7, .blocked = 7, .wait_ns = 10000000000ull, .wakes = 8, .woken = 8,
		  .woken_waits = 7, .waiters = 4, .wakers = 1 },
		{ .uaddr = 0x1040, .waits = 4, .blocked = 4, .wait_ns = 791862843, .wakes = 7, .woken = 7,
		  .woken_waits = 4, .waiters = 4, .wakers = 1 },
	};
	struct top_proc p;

	memset(t, 0, sizeof(t));
	for (int i = 0; i < 5; i++)
		t[i] = (struct top_thread){ .tid = 300 + i, .oncpu_ns = 283811, .runq_ns = 8876944,
					    .switches_voluntary = 3, .futex_waits = i ? 3 : 0,
					    .futex_wait_ns = i ? 2697965710ull : 0, .futex_wakes = i ? 0 : 15,
					    .futex_woken = i ? 0 : 15 };
	proc_init(&p, 300, "condvar_pool", t, 5);
	apply(&p, t, 5, w, 2);
	assert_false(w[0].lock);
	assert_false(w[1].lock);
	assert_int_equal(p.event_wait_ns, w[0].wait_ns + w[1].wait_ns);
	assert_int_equal(p.lock_wait_ns, 0);
	assert_string_equal(p.verdict, "");
	assert_int_equal(p.verdict_severity, 0);
}

/* Past TOP_MAX_VERDICT_WORDS the most-waited are judged, the rest are
 * events, never locks they were not shown to be. */
static void test_word_cap(void **state)
{
	size_t n = TOP_MAX_VERDICT_WORDS + 10;
	struct top_word *w = calloc(n, sizeof(*w));
	struct top_thread t = { .tid = 400, .oncpu_ns = S };
	struct top_proc p;
	uint64_t total = 0;

	assert_non_null(w);
	for (size_t i = 0; i < n; i++) {
		w[i] = (struct top_word){ .uaddr = 0x1000 + 8 * i, .waits = 1, .blocked = 1,
					  .wait_ns = 1000 + i, .waiters = 1 };
		total += w[i].wait_ns;
	}
	proc_init(&p, 400, "many_words", &t, 1);
	apply(&p, &t, 1, w, n);
	assert_int_equal(p.lock_wait_ns + p.event_wait_ns, total);
	assert_int_equal(w[0].wait_ns, 1000 + n - 1);	/* most waited first */
	free(w);
}

static void test_what_needs_trace(void **state)
{
	size_t n;
	const char *const *ids = top_verdict_trace_only(&n);

	assert_null(top_verdict_needs_trace("futex-contention"));
	assert_null(top_verdict_needs_trace("spin-yield"));
	assert_null(top_verdict_needs_trace("oversubscription"));
	assert_non_null(top_verdict_needs_trace("false-sharing"));
	assert_non_null(top_verdict_needs_trace("spin-loop"));
	assert_non_null(top_verdict_needs_trace("no-such-rule"));
	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++)
		assert_non_null(top_verdict_needs_trace(ids[i]));
}

static void test_bad_input(void **state)
{
	struct top_proc p;
	struct top_verdict_input in = { 0 };

	memset(&p, 0, sizeof(p));
	assert_int_equal(top_verdict_apply(&p, &in, scratch), -22);
	assert_int_equal(top_verdict_apply(NULL, &in, scratch), -22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convoy_is_lock_contention),
		cmocka_unit_test(test_yield_spinners),
		cmocka_unit_test(test_idle_pool_has_no_verdict),
		cmocka_unit_test(test_word_cap),
		cmocka_unit_test(test_what_needs_trace),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

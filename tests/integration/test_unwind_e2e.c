// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks through Debian's own glibc, which keeps no frame pointers, end to
 * end: frameless_callers (built -O2 -fno-omit-frame-pointer, as a user
 * builds) yields, waits on a mutex and on a condition variable from named
 * functions. The frame-pointer walk alone lost those callers (a yield was
 * blamed on start_thread, a mutex wait showed only __lll_lock_wait); the
 * CFI unwinder must name them, and the report must say it unwound.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracetest.h"

#define ITERATIONS "400"
#define ITERATIONS_N 400
#define WORK_TIMEOUT_MS 60000
#define END_TIMEOUT_MS 15000

/* Index of the first frame of stack that is fn in module, or -1. */
static int frame_index(json_object *stack, const char *fn, const char *module)
{
	json_object *frames = tt_get(stack, "frames");

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(frames, i));

		if (s && tt_frame_is(s, fn, module))
			return (int)i;
	}
	return -1;
}

static json_object *trace_workload(struct tt_workload *w)
{
	/* A stack for every event: no stack is reused for another call. */
	const char *extra[] = { "--stack-interval", "0", NULL };

	return tt_trace_until_done(w, extra, WORK_TIMEOUT_MS, END_TIMEOUT_MS);
}

/* Every stack in the array names caller (in the workload) right above the
 * libc function api, both below the thread's start. */
static void assert_stacks_name(json_object *stacks, const char *api, const char *caller, const char *what)
{
	assert_true(json_object_array_length(stacks) >= 1);
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *st = json_object_array_get_idx(stacks, i);
		int a = frame_index(st, api, "libc.so.6"), c = frame_index(st, caller, "frameless_callers");
		int start = frame_index(st, "start_thread", "libc.so.6");

		if (a < 0 || c != a + 1 || (start >= 0 && start < c))
			fail_msg("%s stack %s does not name %s (frameless_callers) as the caller of %s",
				 what, json_object_to_json_string(st), caller, api);
	}
}

static void test_frameless_libc_callers_are_named(void **state)
{
	json_object *doc, *sites, *futexes, *mutex, *unwind;
	unsigned long long lock, cond, cond_end;
	bool cond_wait_seen = false;
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "frameless_callers", TT_ARGS(ITERATIONS));
	lock = tt_field(w.ready, "mutex");
	cond = tt_field(w.ready, "cond");
	cond_end = tt_field(w.ready, "cond_end");
	doc = trace_workload(&w);

	/* 2 yielders x N: every yield site is yield_spin, not start_thread. */
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), 2 * ITERATIONS_N);
	sites = tt_get(doc, "yield_sites");
	assert_stacks_name(sites, "__sched_yield", "yield_spin", "yield site");

	/* Mutex waiters: __lll_lock_wait <- pthread_mutex_lock <- lock_and_hold. */
	mutex = tt_futex(doc, lock);
	if (!mutex)
		fail_msg("the mutex at 0x%llx is not among the futexes", lock);
	assert_true(tt_u64(mutex, "waits") >= 1);
	assert_stacks_name(tt_get(mutex, "stacks"), "pthread_mutex_lock", "lock_and_hold", "mutex waiter");

	/* The condition variable's words: pthread_cond_wait <- wait_for_turn. */
	futexes = tt_get(doc, "futexes");
	for (size_t i = 0; i < json_object_array_length(futexes); i++) {
		json_object *f = json_object_array_get_idx(futexes, i);
		unsigned long long a = tt_uaddr(f);

		if (a < cond || a >= cond_end)
			continue;
		assert_stacks_name(tt_get(f, "stacks"), "pthread_cond_wait", "wait_for_turn", "condvar waiter");
		cond_wait_seen = true;
	}
	assert_true(cond_wait_seen);

	/* The report says the stacks were unwound, and that none stopped
	 * early: glibc's rows for these paths are all plain offsets. */
	unwind = tt_get(doc, "symbols.unwind");
	assert_true(json_object_get_boolean(tt_get(unwind, "enabled")));
	print_message("# unwinder: %llu stacks, %llu from libc, %llu CFI frames, %llu cut short\n",
		      (unsigned long long)tt_u64(unwind, "stacks"), (unsigned long long)tt_u64(unwind, "cfi_stacks"),
		      (unsigned long long)tt_u64(unwind, "cfi_frames"), (unsigned long long)tt_u64(unwind, "cut_short"));
	assert_true(tt_u64(unwind, "cfi_stacks") >= 3);
	assert_true(tt_u64(unwind, "cfi_frames") >= tt_u64(unwind, "cfi_stacks"));
	assert_int_equal(tt_u64(unwind, "cut_short"), 0);
	assert_int_equal(tt_u64(unwind, "id_collisions"), 0);
	json_object_put(doc);
	tt_workload_end(&w);
}

/* Events of the stacks in arr whose frames include fn (two_sites), split
 * into those that do and those that do not. */
static void count_by_frame(json_object *arr, const char *fn, uint64_t *with, uint64_t *without)
{
	*with = *without = 0;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *st = json_object_array_get_idx(arr, i);

		if (frame_index(st, fn, "two_sites") >= 0)
			*with += tt_u64(st, "count");
		else
			*without += tt_u64(st, "count");
	}
}

/* Stacks of arr: 2n events in all, n of them from far_site: every call
 * site keeps its own events. */
static void assert_split(json_object *arr, const char *what, uint64_t n)
{
	uint64_t far, near;

	count_by_frame(arr, "far_site", &far, &near);
	print_message("# %s: %llu from far_site, %llu from near_site alone\n", what,
		      (unsigned long long)far, (unsigned long long)near);
	assert_int_equal(far + near, 2 * n);
	assert_int_equal(far, n);
	assert_int_equal(near, n);
}

/*
 * One thread yields and waits on one word from two call sites in turn,
 * with the default stack interval: a stack may be reused only from the
 * same call site, so each site gets exactly its own N events. fp_only:
 * the frame-pointer programs (SPINSCOPE_UNWIND=off; the only ones before
 * Linux 5.17), which read the user stack pointer from the kernel stack
 * where the unwinding ones have bpf_task_pt_regs.
 */
static void check_call_sites_apart(bool fp_only)
{
	const uint64_t n = 2000;
	json_object *doc, *fx;
	struct tt_workload w;
	bool unwound;

	tt_workload_start(&w, "two_sites", TT_ARGS(tt_num((long long)n)));
	if (fp_only)
		setenv("SPINSCOPE_UNWIND", "off", 1);
	doc = tt_trace_until_done(&w, NULL, WORK_TIMEOUT_MS, END_TIMEOUT_MS);
	unsetenv("SPINSCOPE_UNWIND");
	unwound = json_object_get_boolean(tt_get(doc, "symbols.unwind.enabled"));
	print_message("# %s programs\n", unwound ? "unwinding" : "frame-pointer");
	if (fp_only)
		assert_false(unwound);
	assert_int_equal(tt_u64(doc, "dropped.call_site_unknown"), 0);
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), 2 * n);
	fx = tt_futex(doc, tt_field(w.ready, "word"));
	assert_non_null(fx);
	assert_int_equal(tt_u64(fx, "returned_at_once"), 2 * n);

	assert_split(tt_get(doc, "yield_sites"), "yields", n);
	assert_split(tt_get(fx, "stacks"), "waits", n);
	json_object_put(doc);
	tt_workload_end(&w);
}

static void test_each_call_site_keeps_its_own_stack(void **state)
{
	TL_REQUIRE_BPF();
	check_call_sites_apart(false);
}

static void test_each_call_site_keeps_its_own_stack_fp(void **state)
{
	TL_REQUIRE_BPF();
	check_call_sites_apart(true);
}

/*
 * A thread that waits on one word, or yields, from one call site over and
 * over, with the default 1 ms stack interval: a walk that finds the same
 * stack doubles the site's interval, up to 16 ms (bpf/trace.bpf.c,
 * stack_backoff()), so the trace walks about once per 16 ms after a ramp
 * of four walks, where it walked once per millisecond before. The bound
 * allows twice that, plus the threads' other stacks; the wall time of the
 * whole trace bounds its length. The frame-pointer programs count no
 * walks: only the unwinding ones are checked.
 */
static json_object *trace_timed(struct tt_workload *w, uint64_t *ms)
{
	long long t0 = tt_now_ms();
	json_object *doc = tt_trace_until_done(w, NULL, WORK_TIMEOUT_MS, END_TIMEOUT_MS);

	*ms = (uint64_t)(tt_now_ms() - t0);
	return doc;
}

static void assert_walks_backed_off(json_object *doc, uint64_t ms, long long events, const char *what)
{
	uint64_t walks, samples;

	assert_true(json_object_get_boolean(tt_get(doc, "symbols.unwind.enabled")));
	walks = tt_u64(doc, "symbols.unwind.stacks");
	samples = tt_u64(doc, "samples.total");	/* each sample walks too */
	print_message("# %lld %s in %llu ms: %llu stacks walked, %llu samples\n", events, what,
		      (unsigned long long)ms, (unsigned long long)walks, (unsigned long long)samples);
	assert_true(walks >= 1);
	assert_true(walks <= samples + ms / 8 + 20);
}

static void test_steady_wait_site_walks_less_often(void **state)
{
	const long long again = 400000;
	struct tt_workload w;
	json_object *doc;
	uint64_t ms;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "futex_wait",
			  TT_ARGS(tt_num(1), tt_num(1), tt_num(1), tt_num(again), tt_num(1), tt_num(1)));
	doc = trace_timed(&w, &ms);
	assert_int_equal(tt_u64(tt_futex(doc, tt_field(w.ready, "again")), "returned_at_once"), again);
	assert_walks_backed_off(doc, ms, again, "waits");
	json_object_put(doc);
	tt_workload_end(&w);
}

static void test_steady_yield_site_walks_less_often(void **state)
{
	const long long yields = 400000;
	struct tt_workload w;
	json_object *doc;
	uint64_t ms;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS(tt_num(yields), tt_num(1)));
	doc = trace_timed(&w, &ms);
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), yields);
	assert_walks_backed_off(doc, ms, yields, "yields");
	json_object_put(doc);
	tt_workload_end(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_frameless_libc_callers_are_named, tt_teardown),
		cmocka_unit_test_teardown(test_each_call_site_keeps_its_own_stack, tt_teardown),
		cmocka_unit_test_teardown(test_each_call_site_keeps_its_own_stack_fp, tt_teardown),
		cmocka_unit_test_teardown(test_steady_wait_site_walks_less_often, tt_teardown),
		cmocka_unit_test_teardown(test_steady_yield_site_walks_less_often, tt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * report_json.c and report_text.c on a profile built by hand: every JSON key
 * the issue requires, with exact values; the key lines of the text report;
 * the bcc-style histogram and fmt_ns's unit boundaries.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "common/version.h"
#include "report/report.h"

#define UADDR_HOT 0x7f00dead1000ull
#define UADDR_COLD 0x55aa00000040ull

static const struct host_info host = {
	.hostname = "testhost",
	.kernel = "6.1.0-test",
	.machine = "x86_64",
	.cpu_model = "Test CPU @ 1.00GHz",
	.cpus = 2,
};

/* Stacks 7 (symbolized, 10 frames) and 8 (raw addresses); 9 is missing. */
static __u64 ips7[10] = { 0x401000, 0x401100, 0x401200, 0x401300, 0x401400,
			  0x401500, 0x401600, 0x401700, 0x401800, 0x401900 };
static char *frames7[10] = { "lock_wait+0x10", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8",
			     "main+0x2a" };
static __u64 ips8[2] = { 0x7f0000001234, 0x7f0000005678 };
static struct ss_stack stack_v[] = {
	{ .id = 7, .depth = 10, .ips = ips7, .frames = frames7 },
	{ .id = 8, .depth = 2, .ips = ips8 },
};
static const struct ss_stacks stacks = { .v = stack_v, .n = 2, .cap = 2 };

struct fixture {
	struct ss_thread threads[2];
	struct ss_futex_rec futexes[2];
	struct ss_waiter_stack wstacks[4];
	struct ss_yield_site yields[1];
	struct ss_profile prof;
	struct ss_report rep;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct ss_thread *a = &fx->threads[0], *b = &fx->threads[1];
	struct ss_futex_rec *hot = &fx->futexes[0], *cold = &fx->futexes[1];

	if (!fx)
		return -1;
	/* a: blocks on the hot lock. b: spins with sched_yield, then exits. */
	*a = (struct ss_thread){
		.tid = 4243, .comm = "locker", .futex_wait = 3, .futex_blocked = 3,
		.futex_wait_ns = 3000000,
		.futex_wait_ns_max = 2000000, .futex_wake = 1, .futex_woken = 1,
		.futex_outcome = { [SS_FUTEX_WOKEN] = 2, [SS_FUTEX_TIMEDOUT] = 1 },
		.switches_voluntary = 4, .switches_involuntary = 5, .oncpu_ns = 700000000,
		.offcpu_ns = 1600000000, .runq_count = 2, .runq_ns = 6000, .runq_ns_max = 5000,
		.runq_hist = { [9] = 1, [12] = 1 },
	};
	*b = (struct ss_thread){
		.tid = 4244, .comm = "spinner", .sched_yield = 40, .futex_wake = 2,
		.futex_woken = 2, .switches_involuntary = 41, .oncpu_ns = 2000000000,
		.offcpu_ns = 300000000, .flags = SS_THREAD_EXITED,
	};
	*hot = (struct ss_futex_rec){
		.uaddr = UADDR_HOT,
		.f = { .waits = 3, .blocked = 3, .wait_ns = 3000000, .wait_ns_max = 2000000,
		       .wakes = 3, .woken = 3, .outcome = { [SS_FUTEX_WOKEN] = 2, [SS_FUTEX_TIMEDOUT] = 1 },
		       .hist = { [18] = 1, [19] = 1, [20] = 1 } },
		.stacks = fx->wstacks, .nstacks = 4, .waiters = 2,
	};
	fx->wstacks[0] = (struct ss_waiter_stack){ .stack_id = 7, .count = 2, .wait_ns = 2500000 };
	fx->wstacks[1] = (struct ss_waiter_stack){ .stack_id = 8, .count = 1, .wait_ns = 400000 };
	fx->wstacks[2] = (struct ss_waiter_stack){ .stack_id = 9, .count = 1, .wait_ns = 100000 };
	fx->wstacks[3] = (struct ss_waiter_stack){ .stack_id = 10, .count = 1, .wait_ns = 1 };
	*cold = (struct ss_futex_rec){ .uaddr = UADDR_COLD, .f = { .wakes = 1 } };
	fx->yields[0] = (struct ss_yield_site){ .stack_id = 8, .count = 40 };

	fx->prof = (struct ss_profile){
		.start_ns = 1000, .now_ns = 1000 + 2300000000ull,
		.threads = fx->threads, .nthreads = 2,
		.futexes = fx->futexes, .nfutexes = 2,
		.yields = fx->yields, .nyields = 1,
	};
	profile_finish(&fx->prof);
	fx->rep = (struct ss_report){
		.host = &host, .pid = 4242, .comm = "app", .exited = true,
		.duration_ns = 2300000000ull, .profile = &fx->prof, .stacks = &stacks,
	};
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* ---- JSON ------------------------------------------------------------- */

static json_object *get(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("JSON has no key '%s' in %s", key, json_object_to_json_string(o));
	return v;
}

static void expect_u64(json_object *o, const char *key, __u64 want)
{
	json_object *v = get(o, key);

	if (!json_object_is_type(v, json_type_int) || json_object_get_uint64(v) != want)
		fail_msg("'%s' is %s, want %llu", key, json_object_to_json_string(v),
			 (unsigned long long)want);
}

static void expect_str(json_object *o, const char *key, const char *want)
{
	json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_string));
	assert_string_equal(json_object_get_string(v), want);
}

static void expect_u64_array(json_object *a, const __u64 *want, size_t n)
{
	assert_true(json_object_is_type(a, json_type_array));
	assert_int_equal(json_object_array_length(a), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(json_object_get_uint64(json_object_array_get_idx(a, i)), want[i]);
}

/* The counters "totals" and every thread share (issue 2's list). */
static void expect_counters(json_object *o, __u64 yield, __u64 waits, __u64 wait_ns, __u64 wakes,
			    __u64 vol, __u64 invol, __u64 on, __u64 off)
{
	expect_u64(o, "sched_yield", yield);
	expect_u64(o, "futex_wait", waits);
	expect_u64(o, "futex_wait_ns", wait_ns);
	expect_u64(o, "futex_wake", wakes);
	expect_u64(o, "switches_voluntary", vol);
	expect_u64(o, "switches_involuntary", invol);
	expect_u64(o, "oncpu_ns", on);
	expect_u64(o, "offcpu_ns", off);
}

/* Serializes and parses back, as a consumer of stdout would see it. */
static json_object *report_json_roundtrip(const struct ss_report *r)
{
	json_object *doc = report_to_json(r), *back;

	assert_non_null(doc);
	back = json_tokener_parse(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	assert_non_null(back);
	return back;
}

static void test_json_header(void **state)
{
	struct fixture *fx = *state;
	json_object *doc = report_json_roundtrip(&fx->rep), *o;

	assert_true(json_object_is_type(get(doc, "schema"), json_type_int));
	assert_int_equal(json_object_get_int(get(doc, "schema")), SS_JSON_SCHEMA);
	o = get(doc, "tool");
	expect_str(o, "name", "spinscope");
	expect_str(o, "version", SS_VERSION);
	o = get(doc, "host");
	expect_str(o, "kernel", "6.1.0-test");
	expect_u64(o, "cpus", 2);
	expect_str(o, "cpu_model", "Test CPU @ 1.00GHz");
	o = get(doc, "target");
	expect_u64(o, "pid", 4242);
	expect_str(o, "comm", "app");
	assert_true(json_object_is_type(get(o, "exited"), json_type_boolean));
	assert_true(json_object_get_boolean(get(o, "exited")));
	assert_false(json_object_object_get_ex(o, "tid", NULL));	/* no -t */
	expect_u64(doc, "duration_ns", 2300000000ull);
	json_object_put(doc);

	/* -t and a target still alive. */
	fx->rep.tid = 4243;
	fx->rep.exited = false;
	doc = report_json_roundtrip(&fx->rep);
	o = get(doc, "target");
	expect_u64(o, "tid", 4243);
	assert_false(json_object_get_boolean(get(o, "exited")));
	/* Without a /proc/stat reading there is no host load to show. */
	assert_false(json_object_object_get_ex(get(doc, "host"), "busy_other_cpus", NULL));
	json_object_put(doc);

	/* The host's load during the trace. */
	fx->rep.host_load = (struct host_load){ .measured = true, .cpus = 2, .busy_cpus = 1.9,
						.busy_other_cpus = 1.5 };
	doc = report_json_roundtrip(&fx->rep);
	o = get(doc, "host");
	assert_true(json_object_get_double(get(o, "busy_cpus")) == 1.9);
	assert_true(json_object_get_double(get(o, "busy_other_cpus")) == 1.5);
	json_object_put(doc);
}

static void test_json_totals_and_threads(void **state)
{
	struct fixture *fx = *state;
	json_object *doc = report_json_roundtrip(&fx->rep), *a, *t;

	expect_counters(get(doc, "totals"), 40, 3, 3000000, 3, 4, 46, 2700000000ull, 1900000000ull);
	a = get(doc, "threads");
	assert_true(json_object_is_type(a, json_type_array));
	assert_int_equal(json_object_array_length(a), 2);
	/* Sorted by waiting time: the locker (3 ms) before the spinner (40 yields). */
	t = json_object_array_get_idx(a, 0);
	expect_u64(t, "tid", 4243);
	expect_str(t, "comm", "locker");
	expect_counters(t, 0, 3, 3000000, 1, 4, 5, 700000000, 1600000000);
	assert_false(json_object_get_boolean(get(t, "exited")));
	t = json_object_array_get_idx(a, 1);
	expect_u64(t, "tid", 4244);
	expect_str(t, "comm", "spinner");
	expect_counters(t, 40, 0, 0, 2, 0, 41, 2000000000, 300000000);
	assert_true(json_object_get_boolean(get(t, "exited")));
	json_object_put(doc);
}

static void test_json_futexes(void **state)
{
	struct fixture *fx = *state;
	json_object *doc = report_json_roundtrip(&fx->rep), *a, *f, *st, *s, *fr;
	static const __u64 hist[] = { [18] = 1, [19] = 1, [20] = 1 };

	a = get(doc, "futexes");
	assert_int_equal(json_object_array_length(a), 2);
	f = json_object_array_get_idx(a, 0);
	expect_str(f, "uaddr", "0x7f00dead1000");
	expect_u64(f, "waits", 3);
	expect_u64(f, "wait_ns", 3000000);
	expect_u64(f, "wait_ns_max", 2000000);
	expect_u64(f, "wakes", 3);
	/* Trailing empty slots are cut: slot 20 is the last one shown. */
	expect_u64_array(get(f, "hist_log2_ns"), hist, 21);

	st = get(f, "stacks");
	assert_true(json_object_is_type(st, json_type_array));
	assert_int_equal(json_object_array_length(st), SS_REPORT_TOP_STACKS);
	s = json_object_array_get_idx(st, 0);
	expect_u64(s, "stack_id", 7);
	expect_u64(s, "count", 2);
	expect_u64(s, "wait_ns", 2500000);
	fr = get(s, "frames");
	assert_int_equal(json_object_array_length(fr), 10);	/* JSON keeps every frame */
	assert_string_equal(json_object_get_string(json_object_array_get_idx(fr, 0)), "lock_wait+0x10");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(fr, 9)), "main+0x2a");
	/* Not symbolized: hex addresses. */
	fr = get(json_object_array_get_idx(st, 1), "frames");
	assert_int_equal(json_object_array_length(fr), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(fr, 0)), "0x7f0000001234");
	/* Not collected: the stack is listed, with no frames. */
	s = json_object_array_get_idx(st, 2);
	expect_u64(s, "stack_id", 9);
	assert_int_equal(json_object_array_length(get(s, "frames")), 0);

	/* A futex only woken, never waited on. */
	f = json_object_array_get_idx(a, 1);
	expect_str(f, "uaddr", "0x55aa00000040");
	expect_u64(f, "waits", 0);
	expect_u64(f, "wakes", 1);
	expect_u64_array(get(f, "hist_log2_ns"), hist, 1);	/* [0] */
	assert_int_equal(json_object_array_length(get(f, "stacks")), 0);
	json_object_put(doc);
}

static void test_json_yields_drops_advice(void **state)
{
	struct fixture *fx = *state;
	json_object *doc, *o, *advice;
	struct adv_report *adv;

	fx->prof.drops[SS_DROP_STACK_FAIL] = 6;
	fx->prof.drops[SS_DROP_FUTEXES_FULL] = 1;
	doc = report_json_roundtrip(&fx->rep);
	o = get(doc, "yield_sites");
	assert_int_equal(json_object_array_length(o), 1);
	expect_u64(json_object_array_get_idx(o, 0), "count", 40);
	o = get(doc, "dropped");
	assert_int_equal(json_object_object_length(o), SS_DROPS);
	for (int i = 0; i < SS_DROPS; i++)
		expect_u64(o, ss_drop_names[i], i == SS_DROP_STACK_FAIL ? 6 :
						i == SS_DROP_FUTEXES_FULL ? 1 : 0);
	o = get(doc, "advice");
	assert_true(json_object_is_type(o, json_type_array));
	assert_int_equal(json_object_array_length(o), 0);
	assert_false(json_object_object_get_ex(doc, "samples", NULL));
	json_object_put(doc);

	/* The advisor's findings are rendered into the document, and the
	 * caller's report is left as it was. */
	adv = calloc(1, sizeof(*adv));
	assert_non_null(adv);
	adv->n = 1;
	snprintf(adv->findings[0].id, sizeof(adv->findings[0].id), "false-sharing");
	snprintf(adv->findings[0].recommendation, sizeof(adv->findings[0].recommendation),
		 "pad the counters");
	fx->rep.advice = adv;
	doc = report_to_json(&fx->rep);
	advice = get(doc, "advice");
	assert_int_equal(json_object_array_length(advice), 1);
	expect_str(json_object_array_get_idx(advice, 0), "recommendation", "pad the counters");
	json_object_put(doc);
	assert_int_equal(adv->n, 1);
	assert_string_equal(adv->findings[0].recommendation, "pad the counters");
	fx->rep.advice = NULL;
	free(adv);
}

static void test_json_interval(void **state)
{
	struct fixture *fx = *state;
	json_object *doc = report_interval_json(&fx->prof, 1.5, true);

	expect_str(doc, "type", "interval");
	assert_true(json_object_get_double(get(doc, "t_s")) == 1.5);
	expect_u64(doc, "duration_ns", 2300000000ull);
	expect_counters(get(doc, "totals"), 40, 3, 3000000, 3, 4, 46, 2700000000ull, 1900000000ull);
	assert_int_equal(json_object_array_length(get(doc, "threads")), 2);
	assert_int_equal(json_object_object_length(get(doc, "dropped")), SS_DROPS);
	json_object_put(doc);
	/* The recording's series: the same totals, no per-thread array. */
	doc = report_interval_json(&fx->prof, 1.5, false);
	assert_false(json_object_object_get_ex(doc, "threads", NULL));
	expect_counters(get(doc, "totals"), 40, 3, 3000000, 3, 4, 46, 2700000000ull, 1900000000ull);
	json_object_put(doc);
}

/* ---- text ------------------------------------------------------------- */

/* A memory stream for the printers; text() closes it and returns the
 * malloc'd text. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *capture_open(struct capture *c)
{
	c->buf = NULL;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static char *capture_text(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->buf;
}

static void has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("text lacks '%s':\n%s", want, text);
}

static void starts(const char *text, const char *want)
{
	if (strncmp(text, want, strlen(want)))
		fail_msg("text does not start with '%s':\n%s", want, text);
}

static void lacks(const char *text, const char *unwanted)
{
	if (strstr(text, unwanted))
		fail_msg("text has '%s':\n%s", unwanted, text);
}

/* The mechanism is always named; --light also lists what it cannot see,
 * in the JSON and in the text header, and a recording reads it back. */
static void test_light_mode_stated(void **state)
{
	struct fixture *fx = *state;
	json_object *doc = report_json_roundtrip(&fx->rep), *blind;
	struct capture cap;
	size_t n = 0;
	char *t;

	expect_str(get(doc, "traced"), "mechanism", "syscall_tracepoints");
	assert_false(json_object_object_get_ex(get(doc, "traced"), "blind_spots", NULL));
	json_object_put(doc);

	fx->rep.light = true;
	doc = report_json_roundtrip(&fx->rep);
	expect_str(get(doc, "traced"), "mechanism", "light");
	blind = get(get(doc, "traced"), "blind_spots");
	while (ss_light_blind_spots[n])
		n++;
	assert_true(n >= 3);
	assert_int_equal(json_object_array_length(blind), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(json_object_get_string(json_object_array_get_idx(blind, i)),
				    ss_light_blind_spots[i]);
	json_object_put(doc);

	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "mode --light");
	for (size_t i = 0; i < n; i++)
		has(t, ss_light_blind_spots[i]);
	free(t);
}

/* Which mechanism traced the calls, and what it cost the host, in both
 * reports: syscall tracepoints by default, fentry when the tracer says. */
static void test_attach_mechanism_stated(void **state)
{
	struct fixture *fx = *state;
	json_object *doc = report_json_roundtrip(&fx->rep);
	struct capture cap;
	char *t;

	expect_str(get(doc, "traced"), "mechanism_cost",
		   "syscall tracepoints: every syscall on this host pays ~40 ns while attached");
	json_object_put(doc);
	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "attached by syscall tracepoints: every syscall on this host pays ~40 ns");
	free(t);

	fx->rep.fentry = true;
	doc = report_json_roundtrip(&fx->rep);
	expect_str(get(doc, "traced"), "mechanism", "fentry");
	assert_non_null(strstr(json_object_get_string(get(get(doc, "traced"), "mechanism_cost")),
			       "only those calls pay"));
	json_object_put(doc);
	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "attached by fentry/fexit on the futex and sched_yield syscall functions");
	lacks(t, "every syscall on this host pays");
	free(t);
}

static void test_text_header(void **state)
{
	struct capture cap;
	struct fixture *fx = *state;
	char *t;

	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	starts(t, "spinscope " SS_VERSION ": pid 4242 (app)\n");
	has(t, "host testhost: Linux 6.1.0-test x86_64, 2 CPUs, Test CPU @ 1.00GHz\n");
	has(t, "traced 2.30 s");
	has(t, "target exited after 2.3 s");
	free(t);

	fx->rep.exited = false;
	fx->rep.tid = 4243;
	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "pid 4242 (app), thread 4243 only\n");
	lacks(t, "exited after");
	lacks(t, "host load");
	free(t);

	/* Other processes' load, said in the header. */
	fx->rep.host_load = (struct host_load){ .measured = true, .cpus = 2, .busy_cpus = 1.9,
						.busy_other_cpus = 1.5 };
	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "host load: 1.90 of 2 CPUs busy, 1.50 of them other processes (the host was busy");
	free(t);
}

static void test_text_sections(void **state)
{
	struct capture cap;
	struct fixture *fx = *state;
	const char *locker, *spinner;
	char *t;

	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "  futex waits                    3");
	has(t, "  sched_yield                   40");
	/* Threads by waiting time; the exited one is marked. */
	locker = strstr(t, "  4243     locker");
	spinner = strstr(t, "  4244     spinner");
	assert_non_null(locker);
	assert_non_null(spinner);
	assert_true(locker < spinner);
	assert_non_null(strstr(spinner, "(exited)\n"));
	has(t, "#1 0x7f00dead1000: 2 threads, 3 waits (3 blocked, 0 returned at once), 3.0 ms waiting (avg 1.0 ms, max 2.0 ms); 3 wakes woke 3\n");
	has(t, "#2 0x55aa00000040: 0 threads, 0 waits");
	/* The hot futex's histogram: slots 18-20, one wait each. */
	has(t, "     256 us -> 512 us        : 1         |****************************************|\n"
	       "     512 us -> 1 ms          : 1         |****************************************|\n"
	       "     1 ms -> 2 ms            : 1         |****************************************|\n");
	/* Stacks: symbolized frames cut at 8, raw addresses, and a missing one. */
	has(t, "     waiters' stack 1: 2 waits, 2.5 ms\n        lock_wait+0x10\n");
	has(t, "        f7\n        ... 2 more frames\n");
	lacks(t, "main+0x2a");
	has(t, "     waiters' stack 2: 1 waits, 400.0 us\n        0x7f0000001234\n        0x7f0000005678\n");
	has(t, "     waiters' stack 3: 1 waits, 100.0 us\n        [stack not collected]\n");
	lacks(t, "waiters' stack 4");
	has(t, "SCHED_YIELD CALL SITES\n  #1: 40 calls (100%)\n");
	has(t, "RUN-QUEUE DELAY");
	has(t, "  512 ns -> 1 us          : 1");
	has(t, "  4 us -> 8 us            : 1");
	free(t);
}

static void test_text_drops_only_when_nonzero(void **state)
{
	struct capture cap;
	struct fixture *fx = *state;
	char *t;

	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	lacks(t, "DROPPED");
	for (int i = 0; i < SS_DROPS; i++)
		lacks(t, ss_drop_names[i]);
	free(t);

	fx->prof.drops[SS_DROP_WAITERS_FULL] = 17;
	report_print_text(&fx->rep, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "DROPPED");
	has(t, "  waiter_stacks_map_full     17\n");
	for (int i = 0; i < SS_DROPS; i++)
		if (i != SS_DROP_WAITERS_FULL)
			lacks(t, ss_drop_names[i]);
	free(t);
}

static void test_text_interval(void **state)
{
	struct capture cap;
	struct fixture *fx = *state;
	char *t;

	report_print_interval_text(&fx->prof, 2.0, capture_open(&cap));
	t = capture_text(&cap);
	has(t, "futex waits 3 ");
	has(t, "yields 40 ");
	has(t, "switches 4 vol / 46 invol");
	/* One line per interval. */
	assert_non_null(strchr(t, '\n'));
	assert_string_equal(strchr(t, '\n'), "\n");
	free(t);
}

static void test_hist_rows(void **state)
{
	struct capture cap;
	__u64 slots[SS_HIST_SLOTS] = { [0] = 1, [2] = 4, [10] = 8 };
	char *t;

	print_log2_hist_ns(slots, SS_HIST_SLOTS, "  ", capture_open(&cap));
	t = capture_text(&cap);
	assert_string_equal(t,
		"  range                   : count     distribution\n"
		"  0 ns -> 2 ns            : 1         |*****                                   |\n"
		"  2 ns -> 4 ns            : 0         |                                        |\n"
		"  4 ns -> 8 ns            : 4         |********************                    |\n"
		"  8 ns -> 16 ns           : 0         |                                        |\n"
		"  16 ns -> 32 ns          : 0         |                                        |\n"
		"  32 ns -> 64 ns          : 0         |                                        |\n"
		"  64 ns -> 128 ns         : 0         |                                        |\n"
		"  128 ns -> 256 ns        : 0         |                                        |\n"
		"  256 ns -> 512 ns        : 0         |                                        |\n"
		"  512 ns -> 1 us          : 0         |                                        |\n"
		"  1 us -> 2 us            : 8         |****************************************|\n");
	free(t);
}

static void test_hist_last_slot_and_empty(void **state)
{
	struct capture cap;
	__u64 slots[SS_HIST_SLOTS] = { [34] = 3, [35] = 1 };
	__u64 none[SS_HIST_SLOTS] = { 0 };
	char *t;

	print_log2_hist_ns(slots, SS_HIST_SLOTS, "", capture_open(&cap));
	t = capture_text(&cap);
	assert_string_equal(t,
		"range                   : count     distribution\n"
		"16 s -> 32 s            : 3         |****************************************|\n"
		"32 s and up             : 1         |*************                           |\n");
	free(t);
	print_log2_hist_ns(none, SS_HIST_SLOTS, "    ", capture_open(&cap));
	t = capture_text(&cap);
	assert_string_equal(t, "    (no samples)\n");
	free(t);
}

static void test_fmt_ns(void **state)
{
	static const struct {
		__u64 ns;
		const char *want;
	} cases[] = {
		{ 0, "0 ns" },
		{ 999, "999 ns" },
		{ 1000, "1.0 us" },
		{ 1500, "1.5 us" },
		{ 999949, "999.9 us" },
		{ 1000000, "1.0 ms" },
		{ 2500000, "2.5 ms" },
		{ 999949999, "999.9 ms" },
		{ 1000000000, "1.00 s" },
		{ 2300000000ull, "2.30 s" },
		{ 9994999999ull, "9.99 s" },
		{ 10000000000ull, "10.0 s" },
		{ 3600000000000ull, "3600.0 s" },
		{ UINT64_MAX, "18446744073.7 s" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = fmt_ns(cases[i].ns, buf, sizeof(buf));

		assert_ptr_equal(got, buf);
		if (strcmp(got, cases[i].want))
			fail_msg("fmt_ns(%llu) = '%s', want '%s'", (unsigned long long)cases[i].ns,
				 got, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_light_mode_stated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_mechanism_stated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_totals_and_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_futexes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_yields_drops_advice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_drops_only_when_nonzero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_interval, setup, teardown),
		cmocka_unit_test(test_hist_rows),
		cmocka_unit_test(test_hist_last_slot_and_empty),
		cmocka_unit_test(test_fmt_ns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 28's shapes end to end: programs whose waits are known, traced by
 * the real spinscope, each asked three times for the same verdict, which
 * must come from what the kernel measured:
 *   - a lock convoy on a pthread mutex, and the same program with a
 *     home-made futex lock and no symbols at all: futex-contention both;
 *   - a condition variable broadcast to 8 consumers, one item each time:
 *     wake-herd; the same with pthread_cond_signal: no herd;
 *   - a barrier where one thread has 4x the others' work:
 *     barrier-imbalance naming that thread;
 *   - threads sleeping under a mutex: blocking-under-lock;
 *   - 4 threads of pure Python on CPython's GIL: serialization, the GIL;
 *   - a pthread rwlock with slow writers: its holders named.
 * The host is shared and loaded: assertions are on the verdicts, whose
 * thresholds sit far from these programs' figures (docs/ADVISOR.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracetest.h"

#define RUNS 3
#define RUN_TIMEOUT_MS 90000

/* Starts a workload, attaches spinscope for 3 s, tells it to go, ends it. */
static json_object *trace_shape(const char *name, const char *const args[])
{
	const char *targs[] = { "-p", NULL, "-d", "3", "--no-calibrate", "--json", NULL };
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc;

	tt_workload_start(&w, name, args);
	targs[1] = tt_num(w.proc.pid);
	tt_trace_start(&t, targs);
	tt_workload_go(&w);
	tt_trace_end(&t, 0, RUN_TIMEOUT_MS);
	tt_workload_end(&w);
	if (t.rc != 0)
		fail_msg("spinscope -p %d exited with %d: %s", w.proc.pid, t.rc, t.err);
	doc = tt_parse_report(t.out);
	tt_trace_free(&t);
	return doc;
}

/* "id (severity): title; ..." for the log and failure messages. */
static const char *advised(json_object *doc)
{
	static char buf[2048];
	json_object *advice = tt_get(doc, "advice");
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < json_object_array_length(advice) && len < sizeof(buf); i++) {
		json_object *f = json_object_array_get_idx(advice, i);

		len += snprintf(buf + len, sizeof(buf) - len, "%s%s (%s): %s", i ? "; " : "",
				json_object_get_string(tt_get(f, "id")),
				json_object_get_string(tt_get(f, "severity")),
				json_object_get_string(tt_get(f, "title")));
	}
	return buf;
}

/* The finding id, at warning or critical, else a failure naming what came. */
static json_object *warned(json_object *doc, const char *id, const char *what)
{
	json_object *f = tt_finding(doc, id);

	print_message("# %s: %s\n", what, advised(doc));
	if (!f || !strcmp(json_object_get_string(tt_get(f, "severity")), "info"))
		fail_msg("%s: no %s warning; got %s", what, id, advised(doc));
	return f;
}

static void test_stripped_home_lock_same_as_mutex(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 0; run < RUNS; run++) {
		json_object *a = trace_shape("convoy_lock", TT_ARGS("4", "20", "30"));
		json_object *b = trace_shape("convoy_lock_home", TT_ARGS("4", "20", "30"));
		json_object *fa = warned(a, "futex-contention", "pthread mutex convoy");
		json_object *fb = warned(b, "futex-contention", "stripped home-made lock convoy");

		/* Both decided by the wakes (their wakers wait on it too),
		 * not by glibc's name, which only one of them has. */
		assert_non_null(strstr(tt_evidence(fa, "why a lock"), "they hand it on"));
		assert_non_null(strstr(tt_evidence(fb, "why a lock"), "they hand it on"));
		json_object_put(a);
		json_object_put(b);
	}
}

static void test_broadcast_herd(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 0; run < RUNS; run++) {
		json_object *herd = trace_shape("cond_herd", TT_ARGS("8", "30"));
		json_object *one = trace_shape("cond_herd", TT_ARGS("8", "30", "signal"));
		json_object *f = warned(herd, "wake-herd", "broadcast to 8 consumers");

		assert_non_null(strstr(json_object_get_string(tt_get(f, "recommendation")),
				       "signal instead of broadcast"));
		print_message("# signal to 8 consumers: %s\n", advised(one));
		assert_null(tt_finding(one, "wake-herd"));
		json_object_put(herd);
		json_object_put(one);
	}
}

static void test_barrier_names_its_slow_thread(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 0; run < RUNS; run++) {
		json_object *doc = trace_shape("barrier_skew", TT_ARGS("4", "4", "30"));
		json_object *f = warned(doc, "barrier-imbalance", "barrier, one thread 4x the work");

		/* The slow thread named: it computes 4x the others. */
		assert_non_null(strstr(json_object_get_string(tt_get(f, "title")), "for thread"));
		assert_null(tt_finding(doc, "futex-contention"));
		json_object_put(doc);
	}
}

static void test_sleep_under_lock(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 0; run < RUNS; run++) {
		json_object *doc = trace_shape("io_under_lock", TT_ARGS("4", "sleep", "30"));
		json_object *f = warned(doc, "blocking-under-lock", "sleeping under a mutex");

		assert_non_null(strstr(json_object_get_string(tt_get(f, "recommendation")),
				       "append_record"));
		json_object_put(doc);
	}
}

static void test_gil_serializes(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 0; run < RUNS; run++) {
		json_object *doc = trace_shape("gil_threads", TT_ARGS("4", "30"));
		json_object *f = warned(doc, "serialization", "4 Python threads on the GIL");

		assert_non_null(strstr(json_object_get_string(tt_get(f, "title")), "GIL"));
		json_object_put(doc);
	}
}

static void test_rwlock_holders_named(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 0; run < RUNS; run++) {
		json_object *doc = trace_shape("rwlock_writers", TT_ARGS("4", "2", "300", "30"));
		json_object *f = warned(doc, "futex-contention", "rwlock with 300 us writers");
		const char *cs = tt_evidence(f, "critical section");

		assert_non_null(cs);
		assert_non_null(strstr(cs, "write_record"));
		json_object_put(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_stripped_home_lock_same_as_mutex, tt_teardown),
		cmocka_unit_test_teardown(test_broadcast_herd, tt_teardown),
		cmocka_unit_test_teardown(test_barrier_names_its_slow_thread, tt_teardown),
		cmocka_unit_test_teardown(test_sleep_under_lock, tt_teardown),
		cmocka_unit_test_teardown(test_gil_serializes, tt_teardown),
		cmocka_unit_test_teardown(test_rwlock_holders_named, tt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 33's known answers end to end, without a PMU: fs_cases traced by
 * the real spinscope with --event cpu-clock (the samples' registers give
 * the data addresses), with this host's false-sharing calibration
 * (`calibrate --quick --only false_sharing`, measured once). Each case must
 * be right on 3 runs of 3:
 *   - two global counters in one line: false-sharing, naming the function
 *     and both variables, with the fix in C;
 *   - the same counters 128 bytes apart: no false-sharing, no true-sharing;
 *   - two threads' heap records 48 bytes apart: false-sharing at offset 48;
 *   - each record in its own aligned block: quiet;
 *   - one counter both threads add to: true-sharing, never padding advice;
 *   - a reader polling a flag beside a counter another thread writes:
 *     false-sharing, read/write;
 *   - Java: adjacent volatile long fields written by three threads:
 *     false-sharing with the JVM's fix (@Contended), once the JIT code has a
 *     perf map (jcmd Compiler.perfmap); quiet with @Contended under
 *     -XX:-RestrictContended; without a map the JIT code is skipped and
 *     counted, and nothing is guessed.
 * And --no-data-addresses turns the capture off. The host is shared and
 * loaded: the assertions are on what the advice says, never on timings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracetest.h"

#define RUN_TIMEOUT_MS 90000
#define RUNS 3

static const char *calibration(void)
{
	return tt_calibration("false_sharing", RUN_TIMEOUT_MS);
}

/* spinscope -p pid for 3 s with cpu-clock and --no-jvm-map: the map, where
 * a case wants one, is made by jcmd before the trace (trace_java_fields()),
 * so that spinscope's own ask after the trace (a safepoint in the JVM
 * while the samples' code is still to be read) is not what is tested
 * here; test_lang_e2e tests that ask. */
static json_object *trace_pid(pid_t pid)
{
	const char *argv[] = { tl_path("spinscope"), "-p", tt_num(pid), "-d", "3", "--event",
			       "cpu-clock", "--no-calibrate", "--calibration", calibration(),
			       "--json", "--no-jvm-map", NULL };

	return tt_run_report(argv, RUN_TIMEOUT_MS);
}

/* FalseSharingFields LAYOUT traced, its JIT code mapped first or not. */
static json_object *trace_java_fields(const char *layout, bool perfmap)
{
	struct tl_proc p;
	json_object *doc;

	tt_java_start(&p, TT_ARGS("-XX:-RestrictContended", "-cp", "FalseSharingFields", layout, "60"));
	if (perfmap) {
		const char *jcmd[] = { "/usr/bin/jcmd", tt_num(p.pid), "Compiler.perfmap", NULL };
		char *out, *err;
		int rc = tt_run(jcmd, &out, &err, RUN_TIMEOUT_MS);

		free(out);
		free(err);
		if (rc) {
			tt_java_end(&p);
			fail_msg("jcmd %d Compiler.perfmap exited with %d", p.pid, rc);
		}
	}
	doc = trace_pid(p.pid);
	tt_java_end(&p);
	return doc;
}

/* fs_cases CASE traced for 3 s with cpu-clock (and extra, or NULL), with
 * this host's false-sharing calibration, or none (calibrated false). */
static json_object *trace_case_cal(const char *which, const char *extra, bool calibrated)
{
	const char *targs[16];
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc;
	int n = 0;

	tt_workload_start(&w, "fs_cases", TT_ARGS(which, "30"));
	targs[n++] = "-p";
	targs[n++] = tt_num(w.proc.pid);
	targs[n++] = "-d";
	targs[n++] = "3";
	targs[n++] = "--event";
	targs[n++] = "cpu-clock";
	targs[n++] = "--no-calibrate";
	if (calibrated) {
		targs[n++] = "--calibration";
		targs[n++] = calibration();
	}
	if (extra)
		targs[n++] = extra;
	targs[n++] = "--json";
	targs[n] = NULL;
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

static json_object *trace_case(const char *which, const char *extra)
{
	return trace_case_cal(which, extra, true);
}

static const char *str(json_object *f, const char *key)
{
	const char *s = f ? json_object_get_string(tt_get(f, key)) : NULL;

	return s ? s : "";
}

/* Whether the finding's title, evidence or recommendation says needle. */
static bool says(json_object *f, const char *needle)
{
	json_object *ev = f ? tt_get(f, "evidence") : NULL;

	if (!f)
		return false;
	if (strstr(str(f, "title"), needle) || strstr(str(f, "recommendation"), needle))
		return true;
	for (size_t i = 0; ev && i < json_object_array_length(ev); i++)
		if (strstr(str(json_object_array_get_idx(ev, i), "value"), needle))
			return true;
	return false;
}

static void print_findings(const char *which, int run, json_object *doc)
{
	json_object *advice = tt_get(doc, "advice");
	int said = 0;

	for (size_t i = 0; i < json_object_array_length(advice); i++) {
		json_object *f = json_object_array_get_idx(advice, i);

		if (strstr(str(f, "id"), "sharing") && ++said)
			print_message("# %s run %d: %s (%s): %s\n", which, run, str(f, "id"),
				      str(f, "severity"), str(f, "title"));
	}
	if (!said)
		print_message("# %s run %d: no sharing finding (%llu samples)\n", which, run,
			      (unsigned long long)tt_u64(doc, "samples.total"));
	/* The ring's drops are always in the report. */
	assert_non_null(tt_get(doc, "samples.dropped.regs_ring_full"));
	print_message("#   %llu samples, regs_ring_full %llu, regs_in_kernel %llu, data addresses: %llu samples decoded, %llu skipped\n",
		      (unsigned long long)tt_u64(doc, "samples.total"),
		      (unsigned long long)tt_u64(doc, "samples.dropped.regs_ring_full"),
		      (unsigned long long)tt_u64(doc, "samples.dropped.regs_in_kernel"),
		      (unsigned long long)tt_u64(doc, "advisor_input.data_addresses.samples"),
		      (unsigned long long)tt_u64(doc, "advisor_input.data_addresses.skipped"));
}

static void assert_warns(json_object *f, const char *const needles[])
{
	assert_non_null(f);
	assert_true(!strcmp(str(f, "severity"), "warning") || !strcmp(str(f, "severity"), "critical"));
	for (size_t i = 0; needles[i]; i++)
		if (!says(f, needles[i]))
			fail_msg("the finding does not say '%s': %s / %s", needles[i], str(f, "title"),
				 str(f, "recommendation"));
}

static void test_global_counters_in_one_line(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 1; run <= RUNS; run++) {
		json_object *doc = trace_case("globals", NULL);

		print_findings("globals", run, doc);
		assert_warns(tt_finding(doc, "false-sharing"),
			     TT_ARGS("counters[0] (fs_cases)", "counters[1] (fs_cases)",
				     "bump_counter (fs_cases)", "_Alignas(", "measured at 2 threads"));
		assert_null(tt_finding(doc, "true-sharing"));
		json_object_put(doc);
	}
}

static void quiet(const char *which)
{
	for (int run = 1; run <= RUNS; run++) {
		json_object *doc = trace_case(which, NULL);

		print_findings(which, run, doc);
		assert_true(tt_u64(doc, "samples.total") > 0);
		assert_null(tt_finding(doc, "false-sharing"));
		assert_null(tt_finding(doc, "true-sharing"));
		json_object_put(doc);
	}
}

/*
 * The stores themselves, decoded on this architecture (capstone's x86-64
 * or AArch64 decoder from the samples' registers), with no calibration:
 * the kernel matrix runs this in its guests, arm64 among them, where a
 * calibration would take minutes. Each of the two threads must be seen
 * storing, in bump_counter, to its own named counter.
 */
static void test_stores_decoded_on_this_arch(void **state)
{
	static const char *const vars[] = { "counters[0] (fs_cases)", "counters[1] (fs_cases)" };
	json_object *doc, *acc;
	int64_t tid_of[2] = { -1, -1 };

	TL_REQUIRE_BPF();
	doc = trace_case_cal("globals", NULL, false);
	print_findings("globals, no calibration", 1, doc);
	acc = tt_get(doc, "advisor_input.data_addresses.accesses");
	assert_non_null(acc);
	for (size_t i = 0; i < json_object_array_length(acc); i++) {
		json_object *a = json_object_array_get_idx(acc, i);

		if (!json_object_get_boolean(tt_get(a, "store")) || !strstr(str(a, "function"), "bump_counter"))
			continue;
		for (int v = 0; v < 2; v++)
			if (!strncmp(str(a, "data"), vars[v], strlen(vars[v])) &&
			    str(a, "data")[strlen(vars[v])] == 0)
				tid_of[v] = json_object_get_int64(tt_get(a, "tid"));
	}
	for (int v = 0; v < 2; v++) {
		if (tid_of[v] >= 0)
			continue;
		for (size_t i = 0; i < json_object_array_length(acc) && i < 8; i++) {
			json_object *a = json_object_array_get_idx(acc, i);

			print_message("#   %s %s in %s by %s (%" PRId64 " samples)\n",
				      json_object_get_boolean(tt_get(a, "store")) ? "store to" : "load of",
				      str(a, "data"), str(a, "function"), str(a, "instruction"),
				      json_object_get_int64(tt_get(a, "samples")));
		}
		print_message("#   top: %s\n", json_object_to_json_string(tt_get(doc, "samples.top")));
		fail_msg("no store to %s decoded in bump_counter", vars[v]);
	}
	assert_true(tid_of[0] != tid_of[1]);
	json_object_put(doc);
}

static void test_padded_counters_are_quiet(void **state)
{
	TL_REQUIRE_BPF();
	quiet("padded");
}

static void test_heap_records_48_bytes_apart(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 1; run <= RUNS; run++) {
		json_object *doc = trace_case("heap", NULL);

		print_findings("heap", run, doc);
		assert_warns(tt_finding(doc, "false-sharing"),
			     TT_ARGS("a heap block at line offset +48", "bump_counter (fs_cases)",
				     "aligned_alloc("));
		json_object_put(doc);
	}
}

static void test_heap_records_on_their_own_blocks_are_quiet(void **state)
{
	TL_REQUIRE_BPF();
	quiet("heapsep");
}

static void test_one_counter_is_true_sharing(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 1; run <= RUNS; run++) {
		json_object *doc = trace_case("shared", NULL);
		json_object *f = tt_finding(doc, "true-sharing");

		print_findings("shared", run, doc);
		assert_non_null(f);
		assert_true(says(f, "one counter shared by 2 threads (shared_counter (fs_cases)"));
		assert_true(says(f, "per-thread counters merged on read"));
		assert_null(strstr(str(f, "recommendation"), "pad"));
		assert_null(strstr(str(f, "recommendation"), "lignas"));
		assert_null(tt_finding(doc, "false-sharing"));
		json_object_put(doc);
	}
}

static void test_flag_beside_a_counter_is_read_write(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 1; run <= RUNS; run++) {
		json_object *doc = trace_case("flag", NULL);

		print_findings("flag", run, doc);
		assert_warns(tt_finding(doc, "false-sharing"),
			     TT_ARGS("(read/write)", "writes pair.counter (fs_cases)", "reads pair.flag (fs_cases)",
				     "poll_flag (fs_cases)"));
		json_object_put(doc);
	}
}

/* Without data addresses the line cannot be seen: no line is named. */
static void test_no_data_addresses_turns_it_off(void **state)
{
	json_object *doc, *f;

	TL_REQUIRE_BPF();
	doc = trace_case("globals", "--no-data-addresses");
	print_findings("globals --no-data-addresses", 1, doc);
	f = tt_finding(doc, "false-sharing");
	assert_false(says(f, "counters[1]") || says(f, "counters+8"));
	assert_true(!f || !strcmp(str(f, "severity"), "info"));
	assert_int_equal(tt_u64(doc, "samples.dropped.regs_in_kernel"), 0);
	json_object_put(doc);
}

/* Three threads each write one of three adjacent fields: two always share
 * a line, wherever the heap puts the object (the workload says why). */
static void test_java_adjacent_fields(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 1; run <= RUNS; run++) {
		json_object *doc = trace_java_fields("adjacent", true);

		print_findings("java adjacent", run, doc);
		assert_warns(tt_finding(doc, "false-sharing"),
			     TT_ARGS("FalseSharingFields.lambda$main$", "@jdk.internal.vm.annotation.Contended"));
		json_object_put(doc);
	}
}

static void test_java_contended_fields_are_quiet(void **state)
{
	TL_REQUIRE_BPF();
	for (int run = 1; run <= RUNS; run++) {
		json_object *doc = trace_java_fields("contended", true);

		print_findings("java @Contended", run, doc);
		assert_null(tt_finding(doc, "false-sharing"));
		json_object_put(doc);
	}
}

/* No perf map: the JIT code is nobody's to decode, counted, not guessed. */
static void test_java_without_perf_map_is_skipped(void **state)
{
	json_object *doc, *f;

	TL_REQUIRE_BPF();
	doc = trace_java_fields("adjacent", false);
	print_findings("java adjacent, no perf map", 1, doc);
	f = tt_finding(doc, "false-sharing");
	assert_true(!f || !strcmp(str(f, "severity"), "info"));
	assert_true(tt_u64(doc, "advisor_input.data_addresses.skipped") > 0);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_stores_decoded_on_this_arch, tt_teardown),
		cmocka_unit_test_teardown(test_global_counters_in_one_line, tt_teardown),
		cmocka_unit_test_teardown(test_padded_counters_are_quiet, tt_teardown),
		cmocka_unit_test_teardown(test_heap_records_48_bytes_apart, tt_teardown),
		cmocka_unit_test_teardown(test_heap_records_on_their_own_blocks_are_quiet, tt_teardown),
		cmocka_unit_test_teardown(test_one_counter_is_true_sharing, tt_teardown),
		cmocka_unit_test_teardown(test_flag_beside_a_counter_is_read_write, tt_teardown),
		cmocka_unit_test_teardown(test_no_data_addresses_turns_it_off, tt_teardown),
		cmocka_unit_test_teardown(test_java_adjacent_fields, tt_teardown),
		cmocka_unit_test_teardown(test_java_without_perf_map_is_skipped, tt_teardown),
		cmocka_unit_test_teardown(test_java_contended_fields_are_quiet, tt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, tt_calibration_remove);
}

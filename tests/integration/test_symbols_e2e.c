// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols end to end, through the real spinscope binary: every stack the
 * report shows names the workload's functions ("function+0x.. (module)"),
 * never addresses. A futex waiter's stack names its caller; a yield site
 * names the libc wrapper and the workload function that called it;
 * cpu-clock samples of a thread spinning in spin_here() land on that name;
 * a target that exits before the report, and one whose binary was deleted
 * after it started, are still named; --folded writes the four kinds of
 * folded stacks (waits, yields, samples, release sites) with integer
 * counts and function names.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tracetest.h"

#define WORK_TIMEOUT_MS 20000
#define END_TIMEOUT_MS 15000
/* The demo's budget, as test_advice_e2e's: a child's CPU time counts its
 * reaped children, and the demo's threads spin on every CPU from before
 * attach to the end. Under `make asan` on a loaded host 30 s ran out. */
#define DEMO_TIMEOUT_MS 60000

/* The index of the first frame of stack (an object with "frames") that is
 * one of fns in module, or -1. */
static int find_frame(json_object *stack, const char *const fns[], const char *module)
{
	json_object *frames = tt_get(stack, "frames");

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(frames, i));

		for (int k = 0; s && fns[k]; k++)
			if (tt_frame_is(s, fns[k], module))
				return (int)i;
	}
	return -1;
}

static const char *frame_at(json_object *stack, size_t i)
{
	json_object *frames = tt_get(stack, "frames");

	assert_true(i < json_object_array_length(frames));
	return json_object_get_string(json_object_array_get_idx(frames, i));
}

/* Traces workload w from before its go until its "done" line, then stops
 * spinscope with SIGINT and returns the report. */
static json_object *trace_until_done(struct tt_workload *w, const char *event)
{
	const char *extra[] = { "--event", event, NULL };

	return tt_trace_until_done(w, event ? extra : NULL, WORK_TIMEOUT_MS, END_TIMEOUT_MS);
}

/* Every yield site of the report names the syscall wrapper innermost and
 * one of callers of module among its frames. */
static void assert_yield_sites_named(json_object *doc, const char *const callers[],
				     const char *module, size_t want_sites)
{
	json_object *sites = tt_get(doc, "yield_sites");

	assert_int_equal(json_object_array_length(sites), want_sites);
	for (size_t i = 0; i < want_sites; i++) {
		json_object *s = json_object_array_get_idx(sites, i);

		if (!tt_frame_is(frame_at(s, 0), "syscall", "libc.so.6") ||
		    find_frame(s, callers, module) < 1)
			fail_msg("yield site %s does not name syscall (libc.so.6) and its caller in %s",
				 json_object_to_json_string(s), module);
	}
}

static void test_futex_waiter_names_its_caller(void **state)
{
	static const char *const callers[] = { "waiter", "contend_on_mutex", NULL };
	json_object *doc, *top, *stacks;
	unsigned long long mutex;
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "mutex_hold", TT_ARGS("3", "3", "30"));
	mutex = tt_field(w.ready, "mutex");
	doc = trace_until_done(&w, NULL);
	top = tt_futex(doc, mutex);
	if (!top)
		fail_msg("the mutex at 0x%llx is not among the futexes", mutex);
	stacks = tt_get(top, "stacks");
	assert_true(json_object_array_length(stacks) >= 1);
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *st = json_object_array_get_idx(stacks, i);

		if (find_frame(st, callers, "mutex_hold") < 0)
			fail_msg("waiter stack %s names neither waiter() nor contend_on_mutex()",
				 json_object_to_json_string(st));
	}
	json_object_put(doc);
	tt_workload_end(&w);
}

static void test_yield_site_names_the_yield_function(void **state)
{
	static const char *const callers[] = { "yield_many", "worker", NULL };
	struct tt_workload w;
	json_object *doc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("200", "2"));
	doc = trace_until_done(&w, NULL);
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), 400);
	/* Both workers yield from one place. */
	assert_yield_sites_named(doc, callers, "yield_n", 1);
	assert_int_equal(tt_u64(json_object_array_get_idx(tt_get(doc, "yield_sites"), 0), "count"),
			 400);
	json_object_put(doc);
	tt_workload_end(&w);
}

/* spin_known: one thread spins in spin_here() for the whole trace. */
static void test_cpu_clock_samples_name_spin_here(void **state)
{
	char *argv[] = { (char *)tl_path("workloads/spin_known"), "4", NULL };
	const char *args[] = { NULL, "-p", NULL, "--event", "cpu-clock", "-d", "1", "--json",
			       "--no-calibrate", NULL };
	unsigned long long sum = 0, spin = 0;
	json_object *doc, *top;
	struct tl_proc p;
	char line[256], *out, *err;
	int rc;

	TL_REQUIRE_BPF();
	assert_int_equal(tl_spawn(&p, argv), 0);
	/* Printed by the spinner as it starts spinning. */
	assert_true(tl_read_line(&p, line, sizeof(line), 5000));
	args[0] = tl_path("spinscope");
	args[2] = tt_num(p.pid);
	rc = tt_run(args, &out, &err, 20000);
	tl_kill(&p, SIGKILL);
	tl_wait(&p);
	close(p.out_fd);
	close(p.err_fd);
	if (rc)
		fail_msg("spinscope exited with %d: %s", rc, err);
	doc = tt_parse_report(out);
	assert_true(json_object_get_boolean(tt_get(doc, "samples.available")));
	assert_string_equal(json_object_get_string(tt_get(doc, "samples.event")), "cpu-clock");
	top = tt_get(doc, "samples.top");
	for (size_t i = 0; i < json_object_array_length(top); i++) {
		json_object *e = json_object_array_get_idx(top, i);
		const char *module = json_object_get_string(tt_get(e, "module"));

		sum += tt_u64(e, "count");
		if (!strcmp(json_object_get_string(tt_get(e, "symbol")), "spin_here")) {
			spin += tt_u64(e, "count");
			assert_non_null(module);
			assert_non_null(strstr(module, "/spin_known"));
		}
	}
	print_message("# spin_here: %llu of %llu samples in samples.top\n", spin, sum);
	assert_true(sum > 0);
	assert_true(spin * 100 >= sum * 80);
	json_object_put(doc);
	free(out);
	free(err);
}

/* exit_midway ends while traced: spinscope ends early, and the stacks it
 * took are named from the maps it saw while the target lived. */
static void test_target_exited_before_report_is_named(void **state)
{
	static const char *const worker[] = { "worker", NULL }, *const main_fn[] = { "main", NULL };
	json_object *doc, *sites;
	struct tt_workload w;
	struct tt_trace t;
	bool seen_worker = false, seen_main = false;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "exit_midway", TT_ARGS("300", "300"));
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", "20", "--json",
				   "--no-calibrate"));
	tt_workload_go(&w);
	assert_int_equal(tt_workload_wait_exit(&w, WORK_TIMEOUT_MS), 0);
	tt_trace_end(&t, 0, END_TIMEOUT_MS);
	if (t.rc != 0)
		fail_msg("spinscope exited with %d; stderr: %s", t.rc, t.err);
	doc = tt_parse_report(t.out);
	assert_true(json_object_get_boolean(tt_get(doc, "target.exited")));
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), 600);
	sites = tt_get(doc, "yield_sites");
	assert_int_equal(json_object_array_length(sites), 2);
	/* One site per thread: the worker, and main. */
	for (size_t i = 0; i < 2; i++) {
		json_object *s = json_object_array_get_idx(sites, i);

		assert_true(tt_frame_is(frame_at(s, 0), "syscall", "libc.so.6"));
		seen_worker |= find_frame(s, worker, "exit_midway") > 0;
		seen_main |= find_frame(s, main_fn, "exit_midway") > 0;
	}
	if (!seen_worker || !seen_main)
		fail_msg("yield sites do not name worker() and main() of exit_midway: %s",
			 json_object_to_json_string(sites));
	json_object_put(doc);
	tt_trace_free(&t);
}

/* A copy of yield_n, started, then deleted: its maps say "(deleted)". */
static void test_deleted_binary_is_named(void **state)
{
	static const char *const callers[] = { "yield_many", "worker", NULL };
	char dir[] = "/tmp/ss-symbols-XXXXXX", bin[64], exe[128], link[256], line[256];
	char *argv[] = { bin, "150", "2", NULL };
	json_object *doc;
	struct tl_proc p;
	struct tt_trace t;
	ssize_t n;
	char cmd[128];

	TL_REQUIRE_BPF();
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/yield_n", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", tl_path("workloads/yield_n"), bin);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(tl_spawn(&p, argv), 0);
	assert_true(tl_read_line(&p, line, sizeof(line), 10000));
	assert_int_equal(strncmp(line, "ready pid=", 10), 0);
	assert_int_equal(unlink(bin), 0);
	assert_int_equal(rmdir(dir), 0);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", p.pid);
	n = readlink(exe, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = 0;
	assert_non_null(strstr(link, " (deleted)"));

	tt_trace_start(&t, TT_ARGS("-p", tt_num(p.pid), "-d", "0", "--json", "--no-calibrate"));
	assert_int_equal(kill(p.pid, SIGUSR1), 0);
	assert_true(tl_read_line(&p, line, sizeof(line), WORK_TIMEOUT_MS));
	assert_int_equal(strncmp(line, "done", 4), 0);
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	tl_kill(&p, SIGKILL);
	tl_wait(&p);
	close(p.out_fd);
	close(p.err_fd);
	if (t.rc != 0)
		fail_msg("spinscope exited with %d; stderr: %s", t.rc, t.err);
	doc = tt_parse_report(t.out);
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), 300);
	assert_yield_sites_named(doc, callers, "yield_n", 1);
	json_object_put(doc);
	tt_trace_free(&t);
}

/* ---- --folded ---------------------------------------------------------- */

struct fold_kind {
	const char *prefix;		/* "futex-wait-ns;" */
	const char *const *names;	/* functions its heaviest stack names */
	unsigned lines;
	unsigned long long best;
	char best_line[1024];
};

/* "kind;root;...;leaf COUNT": the count an integer, every frame a name. */
static void fold_line(char *line, struct fold_kind *kinds, size_t nkinds)
{
	char *sp = strrchr(line, ' '), *end;
	unsigned long long count;
	size_t k;

	if (!sp || !sp[1])
		fail_msg("folded line without a count: '%s'", line);
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (errno || *end || !isdigit((unsigned char)sp[1]) || !count)
		fail_msg("folded count is not a positive integer: '%s'", line);
	*sp = 0;
	for (k = 0; k < nkinds; k++)
		if (!strncmp(line, kinds[k].prefix, strlen(kinds[k].prefix)))
			break;
	if (k == nkinds)
		fail_msg("folded line of no known kind: '%s'", line);
	if (strstr(line, ";;") || line[strlen(line) - 1] == ';')
		fail_msg("folded line with an empty frame: '%s'", line);
	/* Function names, not addresses or offsets. */
	if (strstr(line, ";0x") || strstr(line, "+0x"))
		fail_msg("folded line with an unnamed frame: '%s'", line);
	kinds[k].lines++;
	if (count > kinds[k].best) {
		kinds[k].best = count;
		snprintf(kinds[k].best_line, sizeof(kinds[k].best_line), "%s", line);
	}
}

static bool has_fold_frame(const char *line, const char *name)
{
	size_t n = strlen(name);

	for (const char *f = strchr(line, ';'); f; f = strchr(f + 1, ';'))
		if (!strncmp(f + 1, name, n) && (f[1 + n] == ';' || !f[1 + n]))
			return true;
	return false;
}

static void test_folded_names_four_kinds(void **state)
{
	static const char *const lock_fns[] = { "demo_locked_update", "demo_mutex_worker", NULL };
	static const char *const yield_fns[] = { "demo_spin_lock", "demo_yield_spinner", NULL };
	static const char *const sample_fns[] = { "demo_count_adjacent", "demo_locked_update",
						  "demo_mutex_worker", "demo_yield_spinner",
						  "demo_busy_ns", "demo_spin_lock", NULL };
	struct fold_kind kinds[] = {
		{ .prefix = "futex-wait-ns;", .names = lock_fns },
		{ .prefix = "sched-yield;", .names = yield_fns },
		{ .prefix = "samples-cpu-clock;", .names = sample_fns },
		/* The demo's mutex convoy: its release sites. */
		{ .prefix = "futex-release;", .names = lock_fns },
	};
	char path[] = "/tmp/ss-folded-XXXXXX", line[4096];
	const char *args[] = { NULL, "demo", "-d", "1", "--json", "--no-calibrate",
			       "--calibration", "/nonexistent/spinscope-calibration.json",
			       "--folded", path, NULL };
	char *out, *err;
	FILE *f;
	int fd, rc;

	TL_REQUIRE_BPF();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	args[0] = tl_path("spinscope");
	rc = tt_run(args, &out, &err, DEMO_TIMEOUT_MS);
	if (rc)
		fail_msg("spinscope demo exited with %d: %s", rc, err);
	json_object_put(tt_parse_report(out));
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		fold_line(line, kinds, 4);
	}
	fclose(f);
	unlink(path);
	for (size_t k = 0; k < 4; k++) {
		bool named = false;

		print_message("# %u %s lines, heaviest: %s %llu\n", kinds[k].lines, kinds[k].prefix,
			      kinds[k].best_line, kinds[k].best);
		if (!kinds[k].lines)
			fail_msg("no %s lines in the folded output", kinds[k].prefix);
		for (size_t i = 0; kinds[k].names[i]; i++)
			named |= has_fold_frame(kinds[k].best_line, kinds[k].names[i]);
		if (!named)
			fail_msg("the heaviest %s stack names no demo function: %s", kinds[k].prefix,
				 kinds[k].best_line);
	}
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_futex_waiter_names_its_caller, tt_teardown),
		cmocka_unit_test_teardown(test_yield_site_names_the_yield_function, tt_teardown),
		cmocka_unit_test_teardown(test_cpu_clock_samples_name_spin_here, tt_teardown),
		cmocka_unit_test_teardown(test_target_exited_before_report_is_named, tt_teardown),
		cmocka_unit_test_teardown(test_deleted_binary_is_named, tt_teardown),
		cmocka_unit_test_teardown(test_folded_names_four_kinds, tt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

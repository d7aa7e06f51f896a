// SPDX-License-Identifier: GPL-2.0
/*
 * Runtimes end to end, through the real spinscope binary and the
 * workloads of tests/workloads/lang and java (make lang-workloads):
 * a Java synchronized storm on Debian's OpenJDK 17 gets its perf map
 * asked for (the report says so, Java methods are named in the samples,
 * no attach file is left), or not with --no-jvm-map; a process named
 * java that is no JVM is told so in one line and is not signalled; a
 * Rust std::sync::Mutex storm is detected as Rust and named demangled,
 * without legacy hashes; gcc -O2's tail-called unlock names the function
 * that held the lock. Workloads not built are skipped with the reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracetest.h"

#define READY_TIMEOUT_MS 60000
#define TRACE_TIMEOUT_MS 90000

static void require(const char *path)
{
	if (access(path, R_OK)) {
		print_message("skip: %s is not there (make lang-workloads)\n", path);
		skip();
	}
}

/* Starts argv (argv[0] a path), waits for its "ready" line. */
static void start_ready(struct tl_proc *p, char *const argv[])
{
	char line[256];

	assert_int_equal(tl_spawn(p, argv), 0);
	tt_track(p->pid);
	if (!tl_read_line(p, line, sizeof(line), READY_TIMEOUT_MS) || strncmp(line, "ready", 5)) {
		tt_untrack(p->pid);
		tl_kill(p, SIGKILL);
		tl_wait(p);
		fail_msg("%s did not start", argv[0]);
	}
}

static void stop(struct tl_proc *p)
{
	tt_untrack(p->pid);
	tl_kill(p, SIGKILL);
	tl_wait(p);
}

/* spinscope -p pid -d secs --json --no-calibrate --event cpu-clock [extra] */
static json_object *trace(pid_t pid, const char *secs, const char *extra, char **err)
{
	const char *argv[] = { tl_path("spinscope"), "-p", tt_num(pid), "-d", secs, "--json",
			       "--no-calibrate", "--event", "cpu-clock", extra, NULL };
	char *out = NULL;
	json_object *doc;
	int rc = tt_run(argv, &out, err, TRACE_TIMEOUT_MS);

	if (rc != 0)
		fail_msg("spinscope exited %d: %s", rc, *err ? *err : "");
	doc = tt_parse_report(out);
	free(out);
	return doc;
}

/* Some sampled function's name contains needle. */
static bool sampled(json_object *doc, const char *needle)
{
	json_object *top = tt_get(doc, "samples.top");

	for (size_t i = 0; i < json_object_array_length(top); i++) {
		const char *s = json_object_get_string(tt_get(json_object_array_get_idx(top, i), "symbol"));

		if (s && strstr(s, needle))
			return true;
	}
	return false;
}

static void assert_no_attach_files(pid_t pid, const char *cwd)
{
	char p[512];

	snprintf(p, sizeof(p), "/tmp/.attach_pid%d", pid);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/.attach_pid%d", cwd, pid);
	assert_int_equal(access(p, F_OK), -1);
}

/* Starts SyncStorm MODE THREADS on Debian's JDK (skips without it). */
static void start_storm(struct tl_proc *p, const char *mode, const char *threads)
{
	char cls[512], path[600];
	char *const argv[] = { "/usr/bin/java", "-cp", cls, "SyncStorm", (char *)mode, (char *)threads,
			       "0", NULL };

	snprintf(cls, sizeof(cls), "%s", tl_path("workloads/java"));
	snprintf(path, sizeof(path), "%s/SyncStorm.class", cls);
	require(path);
	require("/usr/bin/java");
	start_ready(p, argv);
}

static void test_jvm_perf_map_asked(void **state)
{
	char cwd[512], *err = NULL, map[64];
	json_object *doc;
	struct tl_proc p;

	TL_REQUIRE_BPF();
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	start_storm(&p, "sync", "4");
	doc = trace(p.pid, "2", NULL, &err);
	assert_non_null(strstr(json_object_get_string(tt_get(doc, "jvm_perf_map")), "written"));
	/* the storm's lambda, named from the map */
	assert_true(sampled(doc, "SyncStorm.lambda$main$0"));
	assert_string_equal(json_object_get_string(tt_get(doc, "advisor_input.runtime")), "jvm");
	assert_no_attach_files(p.pid, cwd);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", p.pid);
	stop(&p);
	unlink(map);
	json_object_put(doc);
	free(err);
}

static void test_no_jvm_map(void **state)
{
	char cwd[512], *err = NULL, path[64];
	json_object *doc;
	struct tl_proc p;

	TL_REQUIRE_BPF();
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	start_storm(&p, "lock", "2");
	doc = trace(p.pid, "1", "--no-jvm-map", &err);
	assert_null(json_object_object_get(doc, "jvm_perf_map"));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", p.pid);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "/tmp/.java_pid%d", p.pid);
	assert_int_equal(access(path, F_OK), -1);	/* never woken */
	assert_no_attach_files(p.pid, cwd);
	stop(&p);
	json_object_put(doc);
	free(err);
}

/* A program named java that is no JVM: one line, and no SIGQUIT (which
 * would have killed sleep). */
static void test_java_that_is_no_jvm(void **state)
{
	char dir[] = "/tmp/spinscope-notjava-XXXXXX", java[64], cp[128], *err = NULL;
	char *const argv[] = { java, "-c", "echo ready; while :; do sleep 1; done", NULL };
	json_object *doc;
	struct tl_proc p;
	int lines = 0;

	TL_REQUIRE_BPF();
	assert_non_null(mkdtemp(dir));
	snprintf(java, sizeof(java), "%s/java", dir);
	snprintf(cp, sizeof(cp), "cp /bin/sh %s", java);
	assert_int_equal(system(cp), 0);
	start_ready(&p, argv);
	doc = trace(p.pid, "1", NULL, &err);
	assert_non_null(strstr(json_object_get_string(tt_get(doc, "jvm_perf_map")), "not a JVM"));
	for (char *s = strstr(err, "not a JVM"); s; s = strstr(s + 1, "not a JVM"))
		lines++;
	assert_int_equal(lines, 1);
	assert_int_equal(kill(p.pid, 0), 0);	/* still alive: no SIGQUIT was sent */
	assert_no_attach_files(p.pid, dir);
	stop(&p);
	unlink(java);
	rmdir(dir);
	json_object_put(doc);
	free(err);
}

static void test_rust_detected_and_demangled(void **state)
{
	char bin[512], *err = NULL;
	char *const argv[] = { bin, "mutex", "4", "0", NULL };
	json_object *doc, *stacks;
	bool named = false, hashed = false;
	struct tl_proc p;

	TL_REQUIRE_BPF();
	snprintf(bin, sizeof(bin), "%s", tl_path("workloads/lang/mutex_rs"));
	require(bin);
	start_ready(&p, argv);
	doc = trace(p.pid, "2", NULL, &err);
	stop(&p);
	assert_string_equal(json_object_get_string(tt_get(doc, "advisor_input.runtime")), "rust");
	stacks = tt_get(doc, "stacks");
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *fr = tt_get(json_object_array_get_idx(stacks, i), "frames");

		for (size_t k = 0; k < json_object_array_length(fr); k++) {
			const char *f = json_object_get_string(tt_get(json_object_array_get_idx(fr, k), "name"));

			named |= strstr(f, "mutex_rs::bump_shared+") != NULL;
			hashed |= strstr(f, "::h") && strstr(f, "::h")[3] && strspn(strstr(f, "::h") + 3, "0123456789abcdef") == 16;
			if (!strncmp(f, "_R", 2) || !strncmp(f, "_ZN", 3))
				fail_msg("mangled frame %s", f);
		}
	}
	assert_true(named);
	assert_false(hashed);
	json_object_put(doc);
	free(err);
}

/* gcc -O2's tail-called unlock: the release names the function that held
 * the lock, not the caller its unlock returned to. */
static void test_tail_called_unlock_named(void **state)
{
	char bin[512], *err = NULL;
	char *const argv[] = { bin, "4", "0", NULL };
	json_object *doc, *stacks;
	bool named = false;
	struct tl_proc p;

	TL_REQUIRE_BPF();
	snprintf(bin, sizeof(bin), "%s", tl_path("workloads/lang/tail_unlock"));
	require(bin);
	start_ready(&p, argv);
	doc = trace(p.pid, "2", NULL, &err);
	stop(&p);
	stacks = tt_get(doc, "stacks");
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *fr = tt_get(json_object_array_get_idx(stacks, i), "frames");

		for (size_t k = 0; k < json_object_array_length(fr); k++) {
			const char *f = json_object_get_string(tt_get(json_object_array_get_idx(fr, k), "name"));

			named |= f && !strcmp(f, "acc_long_section [tail call, seen from long_worker]+0x0 (tail_unlock)");
		}
	}
	assert_true(named);
	json_object_put(doc);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jvm_perf_map_asked),
		cmocka_unit_test(test_no_jvm_map),
		cmocka_unit_test(test_java_that_is_no_jvm),
		cmocka_unit_test(test_rust_detected_and_demangled),
		cmocka_unit_test(test_tail_called_unlock_named),
	};
	return cmocka_run_group_tests(tests, NULL, tt_teardown);
}

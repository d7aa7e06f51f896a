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
 *
 * And each language's own contention, one case each: Rust's Mutex,
 * RwLock (writers) and Condvar (notify_all), C++'s std::mutex and
 * std::shared_mutex writers, CPython threads on the GIL, Go goroutines on
 * one sync.Mutex, and Java synchronized and ReentrantLock storms, with and
 * without -XX:+PreserveFramePointer: a warning or critical finding names
 * the lock in the language's words with the user's function (for Java
 * without frame pointers, as the likely method; for CPython, the Python
 * function its threads run, read from its frames), and offers that
 * runtime's fix.
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
static json_object *trace_with(pid_t pid, const char *secs, const char *extra, const char *extra2,
			       char **err)
{
	const char *argv[] = { tl_path("spinscope"), "-p", tt_num(pid), "-d", secs, "--json",
			       "--no-calibrate", "--event", "cpu-clock", extra, extra2, NULL };
	char *out = NULL;
	json_object *doc;
	int rc = tt_run(argv, &out, err, TRACE_TIMEOUT_MS);

	if (rc != 0)
		fail_msg("spinscope exited %d: %s", rc, *err ? *err : "");
	doc = tt_parse_report(out);
	free(out);
	return doc;
}

static json_object *trace(pid_t pid, const char *secs, const char *extra, char **err)
{
	return trace_with(pid, secs, extra, NULL, err);
}

/* `spinscope report` of the recording gives the live advice, word for
 * word: what the advice rests on that the model does not hold (the
 * samples where parked waiters park from, among others) is recorded. */
static void assert_report_advises_the_same(const char *path, json_object *live)
{
	const char *argv[] = { tl_path("spinscope"), "report", path, "--json", NULL };
	char *out = NULL, *err = NULL;
	json_object *doc;

	if (tt_run(argv, &out, &err, TRACE_TIMEOUT_MS) != 0)
		fail_msg("spinscope report %s: %s", path, err ? err : "");
	doc = tt_parse_report(out);
	assert_string_equal(json_object_to_json_string(tt_get(doc, "advice")),
			    json_object_to_json_string(tt_get(live, "advice")));
	json_object_put(doc);
	free(out);
	free(err);
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

/* One language's contention case. */
struct lang_case {
	const char *name;
	const char *argv[10];	/* argv[0]: a path under OUTPUT (workloads/...) or absolute */
	const char *id;		/* the finding */
	const char *where;	/* in its title: the lock in the language's words */
	const char *fix;	/* in its recommendation: the runtime's fix */
	/* in its title too, when where does not name it: without frame
	 * pointers a JVM's stacks may reach the method or not ("a monitor
	 * in M" or "a monitor, likely in M"); NULL: none */
	const char *function;
	/* in one of its evidence values: CPython's functions; NULL: none */
	const char *evidence;
};

static const struct lang_case cases[] = {
	{ "rust_mutex", { "workloads/lang/mutex_rs", "mutex", "4", "0" }, "futex-contention",
	  "std::sync::Mutex in mutex_rs::bump_shared", "Hold the guard for less", NULL, NULL },
	{ "rust_rwlock", { "workloads/lang/mutex_rs", "rwlock", "4", "0" }, "futex-contention",
	  "std::sync::RwLock (writers) in mutex_rs::write_shared", "Writers of a std::sync::RwLock", NULL, NULL },
	{ "rust_condvar", { "workloads/lang/mutex_rs", "condvar", "4", "0" }, "wake-herd",
	  "std::sync::Condvar in mutex_rs::take_item", "Condvar::notify_one", NULL, NULL },
	{ "cxx_mutex", { "workloads/lang/mutex_cxx", "mutex", "4", "0" }, "futex-contention",
	  "std::mutex in worker_section()", "std::lock_guard", NULL, NULL },
	{ "cxx_shared_writers", { "workloads/lang/mutex_cxx", "writers", "4", "0" }, "futex-contention",
	  "std::shared_mutex (writers) in writer_section()", "std::shared_lock", NULL, NULL },
	{ "cpython_gil", { "/usr/bin/python3", "@tests/workloads/lang/gil_threads.py", "4", "0" },
	  "serialization", "the GIL (CPython)", "ProcessPoolExecutor", "running crunch (gil_threads.py)",
	  "crunch (gil_threads.py): 4 threads" },
	{ "go_mutex", { "workloads/lang/go_mutex", "4", "0" }, "parked-lock",
	  "sync.Mutex in main.bumpShared", "runtime.SetMutexProfileFraction", NULL, NULL },
	{ "java_sync_fp", { "/usr/bin/java", "-XX:+PreserveFramePointer", "-cp", "workloads/java", "SyncStorm",
			    "sync", "4", "0" }, "parked-lock",
	  "a synchronized monitor in SyncStorm.lambda$main$0", "synchronized block", NULL, NULL },
	{ "java_sync", { "/usr/bin/java", "-cp", "workloads/java", "SyncStorm", "sync", "4", "0" }, "parked-lock",
	  "a synchronized monitor", "synchronized block", "in SyncStorm.lambda$main$0", NULL },
	{ "java_lock_fp", { "/usr/bin/java", "-XX:+PreserveFramePointer", "-cp", "workloads/java", "SyncStorm",
			    "lock", "4", "0" }, "parked-lock",
	  "a java.util.concurrent lock (LockSupport.park) in SyncStorm.lambda$main$1", "ReentrantLock", NULL, NULL },
	{ "java_lock", { "/usr/bin/java", "-cp", "workloads/java", "SyncStorm", "lock", "4", "0" }, "parked-lock",
	  "a java.util.concurrent lock (LockSupport.park)", "ReentrantLock", "in SyncStorm.lambda$main$1", NULL },
};

/* argv[k] as the case gives it: "workloads/..." under OUTPUT, "@path"
 * in the source tree, anything else as it is. */
static char *case_arg(const char *a)
{
	if (a[0] == '@')
		return strdup(a + 1);
	if (!strncmp(a, "workloads/", 10))
		return strdup(tl_path(a));
	return strdup(a);
}

/* The finding id whose title names where (and function), or NULL. */
static json_object *finding(json_object *doc, const char *id, const char *where, const char *function)
{
	json_object *adv = tt_get(doc, "advice");

	for (size_t i = 0; adv && i < json_object_array_length(adv); i++) {
		json_object *f = json_object_array_get_idx(adv, i);
		const char *fid = json_object_get_string(tt_get(f, "id"));
		const char *title = json_object_get_string(tt_get(f, "title"));

		if (fid && title && !strcmp(fid, id) && strstr(title, where) &&
		    (!function || strstr(title, function)))
			return f;
	}
	return NULL;
}

/* One of the finding's evidence values says needle. */
static bool evidenced(json_object *f, const char *needle)
{
	json_object *ev = tt_get(f, "evidence");

	for (size_t i = 0; ev && i < json_object_array_length(ev); i++) {
		const char *v = json_object_get_string(tt_get(json_object_array_get_idx(ev, i), "value"));

		if (v && strstr(v, needle))
			return true;
	}
	return false;
}

/* The finding's recommendation, or the one after it ("then"), says fix. */
static bool offers(json_object *f, const char *fix)
{
	json_object *ev = tt_get(f, "evidence");
	const char *rec = json_object_get_string(tt_get(f, "recommendation"));

	if (rec && strstr(rec, fix))
		return true;
	for (size_t i = 0; ev && i < json_object_array_length(ev); i++) {
		json_object *e = json_object_array_get_idx(ev, i);
		const char *label = json_object_get_string(tt_get(e, "label"));
		const char *value = json_object_get_string(tt_get(e, "value"));

		if (label && value && !strcmp(label, "then") && strstr(value, fix))
			return true;
	}
	return false;
}

static void print_findings(json_object *doc)
{
	json_object *adv = tt_get(doc, "advice");

	for (size_t i = 0; adv && i < json_object_array_length(adv); i++)
		print_message("  finding: %s\n", json_object_get_string(tt_get(json_object_array_get_idx(adv, i), "title")));
}

static void test_language_case(void **state)
{
	const struct lang_case *c = *state;
	char *argv[10] = { 0 }, map[64], *err = NULL, *rec;
	json_object *doc, *f;
	const char *sev;
	struct tl_proc p;

	TL_REQUIRE_BPF();
	for (int k = 0; k < 9 && c->argv[k]; k++)
		assert_non_null(argv[k] = case_arg(c->argv[k]));
	require(argv[0]);
	for (int k = 1; argv[k]; k++)
		if (strstr(argv[k], ".py") || strstr(argv[k], "/java"))
			require(strstr(argv[k], ".py") ? argv[k] : tl_path("workloads/java/SyncStorm.class"));
	start_ready(&p, argv);
	snprintf(map, sizeof(map), "%s.json.zst", c->name);
	assert_non_null(rec = strdup(tt_scratch_path(map)));
	doc = trace_with(p.pid, "2", "-o", rec, &err);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", p.pid);
	stop(&p);
	unlink(map);	/* the JVM's, written when asked for */
	f = finding(doc, c->id, c->where, c->function);
	if (!f) {
		print_findings(doc);
		fail_msg("%s: no %s finding naming \"%s\" %s", c->name, c->id, c->where,
			 c->function ? c->function : "");
	}
	sev = json_object_get_string(tt_get(f, "severity"));
	if (strcmp(sev, "warning") && strcmp(sev, "critical"))
		fail_msg("%s: %s is only %s", c->name, c->id, sev);
	if (!offers(f, c->fix))
		fail_msg("%s: the fix does not offer \"%s\": %s", c->name, c->fix,
			 json_object_get_string(tt_get(f, "recommendation")));
	if (c->evidence && !evidenced(f, c->evidence))
		fail_msg("%s: no evidence says \"%s\"", c->name, c->evidence);
	assert_report_advises_the_same(rec, doc);
	free(rec);
	for (int k = 0; argv[k]; k++)
		free(argv[k]);
	json_object_put(doc);
	free(err);
}

/* Named as its case, for TEST_FILTER=java_lock. */
#define LANG_CASE(i, nm) { nm, test_language_case, NULL, NULL, (void *)&cases[i] }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jvm_perf_map_asked),
		cmocka_unit_test(test_no_jvm_map),
		cmocka_unit_test(test_java_that_is_no_jvm),
		cmocka_unit_test(test_rust_detected_and_demangled),
		cmocka_unit_test(test_tail_called_unlock_named),
		LANG_CASE(0, "rust_mutex"), LANG_CASE(1, "rust_rwlock"), LANG_CASE(2, "rust_condvar"),
		LANG_CASE(3, "cxx_mutex"), LANG_CASE(4, "cxx_shared_writers"), LANG_CASE(5, "cpython_gil"),
		LANG_CASE(6, "go_mutex"), LANG_CASE(7, "java_sync_fp"), LANG_CASE(8, "java_sync"),
		LANG_CASE(9, "java_lock_fp"), LANG_CASE(10, "java_lock"),
	};
	_Static_assert(sizeof(cases) / sizeof(cases[0]) == 11, "a LANG_CASE per case");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(cases[i].name, tests[5 + i].name))
			return fprintf(stderr, "case %zu is named %s\n", i, tests[5 + i].name), 1;
	return cmocka_run_group_tests(tests, NULL, tt_teardown);
}

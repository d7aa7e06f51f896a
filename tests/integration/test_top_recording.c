// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope top -o FILE` and what reads it (issue 32): the recording of
 * a host running a contended mutex (convoy_lock) and an idle pool
 * (condvar_pool) is a 0600 file that `report` prints as top did (the
 * convoy with its verdict, the pool with none), as JSON, as a host page
 * whose verdict links to the process's finding, and refuses the stack
 * files it cannot give; `diff` of the same program contended and not
 * shows its lock wait fall and its verdict go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "tracetest.h"

#define RUN_TIMEOUT_MS 60000

static const char *in_dir(const char *name)
{
	return tt_scratch_path(name);
}

static void run_ok(const char *const argv[], char **out)
{
	char *err;
	int rc = tt_run(argv, out, &err, RUN_TIMEOUT_MS);

	if (rc)
		fail_msg("%s %s: exit %d: %s", argv[1], argv[2] ? argv[2] : "", rc, err);
	free(err);
}

/* Records the host for 3 s with convoy_lock at THREADS threads and an
 * idle pool beside it; the convoy's pid in *convoy. */
static void record(const char *file, const char *threads, pid_t *convoy)
{
	struct tt_workload c, pool;
	char *out;

	tt_workload_start(&c, "convoy_lock", TT_ARGS(threads, "200", "60"));
	tt_workload_start(&pool, "condvar_pool", TT_ARGS("4", "5", "60"));
	tt_workload_go(&c);
	tt_workload_go(&pool);
	run_ok(TT_ARGS(tl_path("spinscope"), "top", "-b", "-d", "3", "-o", file), &out);
	free(out);
	*convoy = c.proc.pid;
	tt_workload_end(&c);
	tt_workload_end(&pool);
}

static json_object *proc_of(json_object *doc, pid_t pid)
{
	json_object *procs = tt_get(doc, "processes");

	for (size_t i = 0; procs && i < json_object_array_length(procs); i++)
		if (tt_u64(json_object_array_get_idx(procs, i), "pid") == (uint64_t)pid)
			return json_object_array_get_idx(procs, i);
	return NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	assert_non_null(f);
	n = getdelim(&buf, &cap, 0, f);
	fclose(f);
	assert_true(n > 0);
	return buf;
}

static void test_report_reads_top_recording(void **state)
{
	const char *file = in_dir("host.json.zst"), *page = in_dir("host.html");
	json_object *doc, *c;
	struct stat st;
	char *out, *err, *html;
	pid_t convoy;
	int rc;

	TL_REQUIRE_BPF();
	record(file, "4", &convoy);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	run_ok(TT_ARGS(tl_path("spinscope"), "report", file, "--json", "--html", page), &out);
	doc = tt_parse_report(out);
	assert_string_equal(json_object_get_string(tt_get(doc, "kind")), "spinscope top");
	c = proc_of(doc, convoy);
	assert_non_null(c);
	assert_string_equal(json_object_get_string(tt_get(c, "verdict")), "futex-contention");
	assert_true(tt_u64(c, "lock_wait_ns") > 0);
	json_object_put(doc);
	free(out);
	run_ok(TT_ARGS(tl_path("spinscope"), "report", file), &out);
	assert_non_null(strstr(out, "convoy_lock"));
	assert_non_null(strstr(out, "futex-contention"));
	free(out);
	/* the page: the document embedded, the verdict a link to its section */
	html = slurp(page);
	assert_non_null(strstr(html, "id=\"top-data\""));
	assert_non_null(strstr(html, "\"futex-contention\""));
	assert_non_null(strstr(html, "a.href = '#p' + p.pid"));
	free(html);
	/* no stacks in a top recording: one line, exit 2 */
	rc = tt_run(TT_ARGS(tl_path("spinscope"), "report", file, "--folded", in_dir("x.folded")), &out, &err,
		    RUN_TIMEOUT_MS);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "no stacks"));
	free(out);
	free(err);
}

/* The convoy contended (4 threads) and alone (1): its lock wait falls. */
static void test_diff_of_two_top_recordings(void **state)
{
	const char *before = in_dir("before.json"), *after = in_dir("after.json");
	json_object *doc, *progs, *conv = NULL;
	char *out;
	pid_t pid;

	TL_REQUIRE_BPF();
	record(before, "4", &pid);
	record(after, "1", &pid);
	run_ok(TT_ARGS(tl_path("spinscope"), "diff", before, after, "--json"), &out);
	doc = tt_parse_report(out);
	progs = tt_get(doc, "programs");
	for (size_t i = 0; progs && i < json_object_array_length(progs); i++)
		if (!strcmp(json_object_get_string(tt_get(json_object_array_get_idx(progs, i), "comm")),
			    "convoy_lock"))
			conv = json_object_array_get_idx(progs, i);
	assert_non_null(conv);
	print_message("# convoy_lock lock wait: %.3f s/s before, %.3f s/s after\n",
		      json_object_get_double(tt_get(conv, "before.lock_wait_per_s")),
		      json_object_get_double(tt_get(conv, "after.lock_wait_per_s")));
	assert_true(json_object_get_double(tt_get(conv, "after.lock_wait_per_s")) <
		    json_object_get_double(tt_get(conv, "before.lock_wait_per_s")));
	assert_string_equal(json_object_get_string(tt_get(conv, "before.verdict")), "futex-contention");
	assert_null(tt_get(conv, "after.verdict"));
	json_object_put(doc);
	free(out);
	run_ok(TT_ARGS(tl_path("spinscope"), "diff", before, after), &out);
	assert_non_null(strstr(out, "convoy_lock"));
	free(out);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_report_reads_top_recording, tt_teardown),
		cmocka_unit_test_teardown(test_diff_of_two_top_recordings, tt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, tt_scratch_remove);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Recordings end to end, through the real spinscope binary and the hot_lock
 * workload (T threads on one mutex, or on one each when sharded):
 *   - `spinscope report` of a recording prints the JSON document the live
 *     trace printed, key by key (the document holds no timestamps), and
 *     the same folded stacks (cpu-clock samples' whole stacks included);
 *     so does a recording of `spinscope demo -o`;
 *   - a recording of a stripped binary has its frames named by
 *     `report --symbols DIR` from the unstripped copy's build-id, or from
 *     its debug file in DIR/.build-id/xx/rest.debug;
 *   - `diff` of the hot lock against the sharded one: the lock's wait time
 *     falls beyond noise and the verdict says so; `diff` of two runs of the
 *     same build finds the lock unchanged within noise.
 *   - without BPF, on committed recordings: report re-runs the advice with
 *     the recording's own calibration (the advice it holds comes back) or
 *     with --calibration's; a newer major version, a truncated file and a
 *     missing one are refused with one line and exit code 2; report
 *     --folded refuses a planted link and writes a new file 0600; report
 *     and diff into a full stdout say so in one line, exit 1.
 * Each trace lasts 5 s with -i 1; about 45 s in all.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "tracetest.h"

#define TRACE_S "5"
#define RUN_TIMEOUT_MS 60000

static const char *wpath(const char *name)
{
	return tt_scratch_path(name);
}

/* Traces workload NAME (hot_lock's arguments: 4 threads, shards) into
 * path with -i 1; returns what the live trace printed on stdout. */
static char *record_folded(const char *name, const char *shards, const char *path,
			   const char *folded)
{
	struct tt_workload w;
	struct tt_trace t;
	char *out;

	tt_workload_start(&w, name, TT_ARGS("4", shards, "20", "30"));
	tt_workload_go(&w);
	if (folded)
		/* cpu-clock samples on every host, PMU or not: their stacks too. */
		tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", TRACE_S, "-i", "1",
					   "--no-calibrate", "--event", "cpu-clock", "--json", "-o", path,
					   "--folded", folded));
	else
		tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", TRACE_S, "-i", "1",
					   "--no-calibrate", "--json", "-o", path));
	tt_trace_end(&t, 0, RUN_TIMEOUT_MS);
	tt_workload_end(&w);
	if (t.rc != 0)
		fail_msg("spinscope exited with %d: %s", t.rc, t.err);
	out = t.out;
	t.out = NULL;
	tt_trace_free(&t);
	return out;
}

static char *record(const char *name, const char *shards, const char *path)
{
	return record_folded(name, shards, path, NULL);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* spinscope ARGS..., which must exit with rc; returns stdout. */
static char *spinscope(int want_rc, const char *const args[], char **err_out)
{
	const char *argv[16];
	char *out, *err;
	int n = 0, rc;

	argv[n++] = tl_path("spinscope");
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc != want_rc)
		fail_msg("spinscope %s exited with %d, not %d: %s", argv[1], rc, want_rc, err);
	if (err_out)
		*err_out = err;
	else
		free(err);
	return out;
}

/* The first path where a and b differ, or NULL when they are equal. */
static const char *json_diff(json_object *a, json_object *b, char *path, size_t len)
{
	size_t at = strlen(path);

	if (json_object_get_type(a) != json_object_get_type(b))
		return path;
	if (json_object_is_type(a, json_type_object)) {
		if (json_object_object_length(a) != json_object_object_length(b))
			return path;
		json_object_object_foreach(a, key, va) {
			json_object *vb;

			snprintf(path + at, len - at, ".%s", key);
			if (!json_object_object_get_ex(b, key, &vb) || json_diff(va, vb, path, len))
				return path;
		}
	} else if (json_object_is_type(a, json_type_array)) {
		if (json_object_array_length(a) != json_object_array_length(b))
			return path;
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			snprintf(path + at, len - at, "[%zu]", i);
			if (json_diff(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i), path, len))
				return path;
		}
	} else if (strcmp(json_object_to_json_string(a), json_object_to_json_string(b))) {
		return path;
	}
	path[at] = 0;
	return NULL;
}

/* The last line of the live output: the report after the -i lines. */
static json_object *last_doc(char *out)
{
	char *end = out + strlen(out), *line;

	while (end > out && end[-1] == '\n')
		*--end = 0;
	line = strrchr(out, '\n');
	return tt_parse_report(line ? line + 1 : out);
}

/* `spinscope report FILE --json` prints live's document, key by key. */
static void assert_report_json_is(const char *file, json_object *live)
{
	char *out = spinscope(0, TT_ARGS("report", file, "--json"), NULL), path[4096] = "";
	json_object *replay = tt_parse_report(out);
	const char *where = json_diff(live, replay, path, sizeof(path));

	if (where)
		fail_msg("report --json of %s differs from the live report at '%s'", file,
			 where[0] ? where : "(root)");
	free(out);
	json_object_put(replay);
}

/* The most frames (the kind's included) of the lines that start with kind. */
static int deepest_line(const char *text, const char *kind)
{
	int most = 0;

	for (const char *l = strstr(text, kind); l; l = strstr(l + 1, kind)) {
		int n = 0;

		if (l != text && l[-1] != '\n')
			continue;
		for (const char *c = l; *c && *c != '\n'; c++)
			n += *c == ';';
		if (n + 1 > most)
			most = n + 1;
	}
	return most;
}

static void test_report_equals_live(void **state)
{
	char *live_out, *out;
	json_object *live;

	TL_REQUIRE_BPF();
	live_out = record_folded("hot_lock", "1", wpath("live.json.zst"), wpath("live.folded"));
	live = last_doc(live_out);
	assert_true(json_object_array_length(tt_get(live, "intervals")) >= 2);
	assert_true(json_object_array_length(tt_get(live, "stacks")) >= 1);
	assert_report_json_is(wpath("live.json.zst"), live);
	/* The folded stacks too, line for line. */
	free(spinscope(0, TT_ARGS("report", wpath("live.json.zst"), "--folded", wpath("replay.folded")), NULL));
	{
		char *a = slurp(wpath("live.folded")), *b = slurp(wpath("replay.folded"));

		assert_non_null(strstr(a, "futex-wait-ns;"));
		/* The samples' whole stacks: hot_lock's threads sample in
		 * worker, below start_thread, not as leaves only. */
		assert_true(deepest_line(a, "samples-cpu-clock;") >= 3);
		assert_string_equal(b, a);
		free(a);
		free(b);
	}
	/* The text names the lock and the finding the live advice had. */
	out = spinscope(0, TT_ARGS("report", wpath("live.json.zst")), NULL);
	assert_non_null(strstr(out, "HOT FUTEXES"));
	assert_non_null(strstr(out, "futex-contention"));
	free(out);
	free(live_out);
	json_object_put(live);
}

/* Four pause spinners on 2 CPUs: the spin-loop finding rests on the
 * sampled instructions, which the recording keeps as the advisor saw them
 * (advisor_input.spin_loops), so that report FILE advises it again. */
static void test_spin_loop_advice_comes_back(void **state)
{
	const char *path = wpath("spin.json.zst");
	struct tt_workload w;
	struct tt_trace t;
	json_object *live;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "pause_spin", TT_ARGS("4", "30"));
	tt_workload_go(&w);
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", TRACE_S, "--no-calibrate",
				   "--event", "cpu-clock", "--json", "-o", path));
	tt_trace_end(&t, 0, RUN_TIMEOUT_MS);
	tt_workload_end(&w);
	if (t.rc != 0)
		fail_msg("spinscope exited with %d: %s", t.rc, t.err);
	live = tt_parse_report(t.out);
	if (!tt_finding(live, "spin-loop"))
		fail_msg("the live trace of pause_spin has no spin-loop finding");
	assert_report_json_is(path, live);
	json_object_put(live);
	tt_trace_free(&t);
}

/* spinscope demo -o FILE: its recording reports, key by key, the JSON
 * document the demo printed (totals, locks, sites, samples, findings), and
 * the samples' stacks come back whole. */
static void test_demo_recording_reports_the_same(void **state)
{
	json_object *live;
	char *live_out;

	TL_REQUIRE_BPF();
	live_out = spinscope(0, TT_ARGS("demo", "-d", "2", "--no-calibrate", "--json", "-o",
					wpath("demo.json.zst")), NULL);
	live = tt_parse_report(live_out);
	assert_true(json_object_array_length(tt_get(live, "futexes")) >= 1);
	assert_true(json_object_array_length(tt_get(live, "yield_sites")) >= 1);
	assert_true(json_object_array_length(tt_get(live, "advice")) >= 1);
	assert_true(json_object_array_length(tt_get(live, "sample_stacks")) >= 1);
	assert_report_json_is(wpath("demo.json.zst"), live);
	free(live_out);
	json_object_put(live);
}

/* The frames of the stacks table in module base, as one string. */
static char *frames_of(json_object *doc, const char *base)
{
	json_object *stacks = tt_get(doc, "stacks");
	static char buf[8192];
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *fr = tt_get(json_object_array_get_idx(stacks, i), "frames");

		for (size_t d = 0; d < json_object_array_length(fr); d++) {
			json_object *f = json_object_array_get_idx(fr, d), *m;

			if (json_object_object_get_ex(f, "module", &m) && strstr(json_object_get_string(m), base) &&
			    n < sizeof(buf) - 256)
				n += snprintf(buf + n, sizeof(buf) - n, "%s;",
					      json_object_get_string(tt_get(f, "name")));
		}
	}
	return buf;
}

static void test_symbols_from_build_id(void **state)
{
	char stripped[4096], cmd[8192], *out, *err, *live;
	json_object *before, *after;

	TL_REQUIRE_BPF();
	/* The stripped copy runs where the workloads are; the unstripped one
	 * is the "developer's machine" copy, in a folder of its own. */
	snprintf(stripped, sizeof(stripped), "%s_stripped", tl_path("workloads/hot_lock"));
	mkdir(wpath("debug"), 0700);
	snprintf(cmd, sizeof(cmd), "strip -o '%s' '%s' && cp '%s' '%s/app.full'", stripped,
		 tl_path("workloads/hot_lock"), tl_path("workloads/hot_lock"), wpath("debug"));
	assert_int_equal(system(cmd), 0);
	live = record("hot_lock_stripped", "1", wpath("stripped.json"));
	unlink(stripped);
	out = spinscope(0, TT_ARGS("report", wpath("stripped.json"), "--json"), NULL);
	before = tt_parse_report(out);
	free(out);
	assert_null(strstr(frames_of(before, "hot_lock_stripped"), "worker+"));
	out = spinscope(0, TT_ARGS("report", wpath("stripped.json"), "--json", "--symbols", wpath("debug")),
			&err);
	after = tt_parse_report(out);
	if (!strstr(frames_of(after, "hot_lock_stripped"), "worker+0x"))
		fail_msg("--symbols named no frame worker+0x...: frames %s; stderr %s",
			 frames_of(after, "hot_lock_stripped"), err);
	assert_non_null(strstr(err, "named by build-id"));
	free(out);
	free(err);
	/* A separate debug file (no code bytes, no file offsets in its
	 * segments) in the debuggers' .build-id layout names it too. */
	snprintf(cmd, sizeof(cmd),
		 "b=$(readelf -n '%s' | sed -n 's/.*Build ID: *//p') && d='%s'/.build-id/$(echo $b | cut -c1-2) && "
		 "mkdir -p $d && objcopy --only-keep-debug '%s' $d/$(echo $b | cut -c3-).debug",
		 tl_path("workloads/hot_lock"), wpath("debug2"), tl_path("workloads/hot_lock"));
	assert_int_equal(system(cmd), 0);
	out = spinscope(0, TT_ARGS("report", wpath("stripped.json"), "--json", "--symbols", wpath("debug2")),
			&err);
	json_object_put(after);
	after = tt_parse_report(out);
	if (!strstr(frames_of(after, "hot_lock_stripped"), "worker+0x"))
		fail_msg("a .build-id/xx/rest.debug file named no frame worker+0x...: frames %s; stderr %s",
			 frames_of(after, "hot_lock_stripped"), err);
	free(out);
	free(err);
	free(live);
	json_object_put(before);
	json_object_put(after);
}

/* The diff's row of a section with this name and metric, or NULL. */
static json_object *row(json_object *diff, const char *section, const char *name, const char *metric)
{
	json_object *rows = tt_get(diff, section);

	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i), *n;

		if ((!name || (json_object_object_get_ex(r, "name", &n) &&
			       strstr(json_object_get_string(n), name))) &&
		    !strcmp(json_object_get_string(tt_get(r, "metric")), metric))
			return r;
	}
	return NULL;
}

static const char *verdict(json_object *diff)
{
	static char buf[4096];
	json_object *v = tt_get(diff, "verdict");
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(v) && n < sizeof(buf) - 1; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s\n", json_object_get_string(json_object_array_get_idx(v, i)));
	return buf;
}

/* The hot lock's row: named by update_shard, which calls
 * pthread_mutex_lock, where stacks are unwound through libc's .eh_frame;
 * by its caller worker where only frame pointers are followed (libc has
 * none, so update_shard's frame is lost). Locks in diffs are named as the
 * advice names them: "update_shard in hot_lock". */
static json_object *hot_lock_row(json_object *diff, const char *metric)
{
	json_object *r = row(diff, "locks", "update_shard in hot_lock", metric);

	return r ? r : row(diff, "locks", "worker in hot_lock", metric);
}

/* Records hot_lock with the shard counts before and after and diffs them;
 * *out gets the diff's text for messages. */
static json_object *diff_runs(const char *shards_before, const char *shards_after, char **out)
{
	free(record("hot_lock", shards_before, wpath("before.json.zst")));
	free(record("hot_lock", shards_after, wpath("after.json.zst")));
	*out = spinscope(0, TT_ARGS("diff", wpath("before.json.zst"), wpath("after.json.zst"), "--json"),
			 NULL);
	return tt_parse_report(*out);
}

static void test_diff_of_sharded_lock(void **state)
{
	json_object *diff, *wait, *total, *group;
	char *out;

	TL_REQUIRE_BPF();
	diff = diff_runs("1", "4", &out);
	total = row(diff, "totals", NULL, "futex_wait_ns");
	assert_non_null(total);
	/* Waiting is most of a hot_lock thread's time: well over 100 ms/s. */
	assert_true(json_object_get_double(tt_get(total, "before_per_s")) > 1e8);
	assert_true(json_object_get_double(tt_get(total, "after_per_s")) <
		    json_object_get_double(tt_get(total, "before_per_s")) / 10);
	assert_true(json_object_get_boolean(tt_get(total, "significant")));
	wait = hot_lock_row(diff, "wait_ns");
	if (!wait || !json_object_get_boolean(tt_get(wait, "significant")))
		fail_msg("the hot lock's wait time did not fall beyond noise: %s", out);
	if (!strstr(verdict(diff), "wait time fell"))
		fail_msg("verdict does not say the lock's wait fell: %s", verdict(diff));
	/* The threads' group, judged against its own threads' -i series. */
	group = row(diff, "thread_groups", "hot_lock", "futex_wait_ns");
	if (!group || !json_object_get_boolean(tt_get(group, "significant")))
		fail_msg("hot_lock's threads' wait time did not fall beyond noise: %s", out);
	free(out);
	json_object_put(diff);
}

static void test_diff_of_same_build(void **state)
{
	json_object *diff, *wait, *findings, *total, *group;
	char *out;

	TL_REQUIRE_BPF();
	diff = diff_runs("1", "1", &out);
	wait = hot_lock_row(diff, "wait_ns");
	assert_non_null(wait);
	if (json_object_get_boolean(tt_get(wait, "significant")))
		fail_msg("two runs of one build: the lock's wait changed beyond noise: %s", out);
	assert_null(strstr(verdict(diff), "wait time fell"));
	assert_null(strstr(verdict(diff), "wait time rose"));
	total = row(diff, "totals", NULL, "futex_wait_ns");
	if (json_object_get_boolean(tt_get(total, "significant")))
		fail_msg("two runs of one build: futex wait time changed beyond noise: %s", out);
	group = row(diff, "thread_groups", "hot_lock", "futex_wait_ns");
	assert_non_null(group);
	assert_true(json_object_get_double(tt_get(group, "noise_per_s")) > 0);
	if (json_object_get_boolean(tt_get(group, "significant")))
		fail_msg("two runs of one build: the threads' wait time changed beyond noise: %s", out);
	/* The lock's finding may cross a severity threshold between two runs;
	 * when nothing moved beyond noise the verdict says so. */
	findings = tt_get(diff, "findings");
	for (size_t i = 0; i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i);
		const char *change = json_object_get_string(tt_get(f, "change"));

		if (!strcmp(json_object_get_string(tt_get(f, "id")), "futex-contention") &&
		    strcmp(change, "same") && !tt_u64(diff, "significant_changes") &&
		    !strstr(verdict(diff), "within run-to-run noise (a threshold"))
			fail_msg("futex-contention %s without a word on noise: %s", change, verdict(diff));
	}
	free(out);
	json_object_put(diff);
}

#define FIXTURE "tests/fixtures/recording/hot-lock-1.0.json.zst"

/* The value of the evidence line labelled label of finding id, or "". */
static const char *evidence(json_object *doc, const char *id, const char *label)
{
	json_object *advice = tt_get(doc, "advice");

	for (size_t i = 0; i < json_object_array_length(advice); i++) {
		json_object *f = json_object_array_get_idx(advice, i), *ev;

		if (strcmp(json_object_get_string(tt_get(f, "id")), id))
			continue;
		ev = tt_get(f, "evidence");
		for (size_t e = 0; e < json_object_array_length(ev); e++)
			if (!strcmp(json_object_get_string(tt_get(json_object_array_get_idx(ev, e), "label")),
				    label))
				return json_object_get_string(tt_get(json_object_array_get_idx(ev, e), "value"));
	}
	return "";
}

static void test_report_with_other_calibration(void **state)
{
	char *out, *zout, cmd[512];
	json_object *own, *other, *recorded;

	snprintf(cmd, sizeof(cmd), "zstd -dc %s", FIXTURE);
	out = spinscope(0, TT_ARGS("report", FIXTURE, "--json"), NULL);
	own = tt_parse_report(out);
	free(out);
	assert_int_equal(tt_run(TT_ARGS("/bin/sh", "-c", cmd), &zout, &out, RUN_TIMEOUT_MS), 0);
	free(out);
	recorded = tt_parse_report(zout);
	free(zout);
	/* Its own calibration: the advice it recorded, word for word. */
	assert_string_equal(json_object_to_json_string(tt_get(own, "advice")),
			    json_object_to_json_string(tt_get(recorded, "advice")));
	/* calib-x86-vm.json measured a 28.2 us handoff: the advice now says so. */
	out = spinscope(0, TT_ARGS("report", FIXTURE, "--json", "--calibration",
				   "tests/fixtures/advice/calib-x86-vm.json"), NULL);
	other = tt_parse_report(out);
	free(out);
	if (strncmp(evidence(other, "futex-contention", "futex handoff"), "28.2 us", 7))
		fail_msg("with another host's calibration the handoff reads '%s'",
			 evidence(other, "futex-contention", "futex handoff"));
	assert_string_not_equal(evidence(own, "futex-contention", "futex handoff"),
				evidence(other, "futex-contention", "futex handoff"));
	json_object_put(own);
	json_object_put(other);
	json_object_put(recorded);
}

/* spinscope report PATH: exit 2 and one line on stderr naming PATH. */
static void refused(const char *path, const char *words)
{
	char *out, *err;

	out = spinscope(2, TT_ARGS("report", path), &err);
	assert_string_equal(out, "");
	if (!strstr(err, words) || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("report %s: want one line with '%s', got '%s'", path, words, err);
	free(out);
	free(err);
}

static void test_bad_recordings_refused(void **state)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "zstd -dc %s | sed 's/\"recording\": *\"1\\.0\"/\"recording\":\"2.0\"/' > %s",
		 FIXTURE, wpath("newer.json"));
	assert_int_equal(system(cmd), 0);
	refused(wpath("newer.json"), "recording version 2.0 is newer than this spinscope reads");
	snprintf(cmd, sizeof(cmd), "head -c 5000 %s > %s", FIXTURE, wpath("cut.json.zst"));
	assert_int_equal(system(cmd), 0);
	refused(wpath("cut.json.zst"), "truncated, corrupt");
	refused(wpath("none.json"), "No such file");
}

/* report --folded writes as root: a planted link is refused (exit 2, one
 * line, its target untouched) and a new file is 0600 whatever the umask. */
static void test_report_folded_file_is_safe(void **state)
{
	const char *link = wpath("planted.folded"), *target = wpath("victim");
	char *out, *err, *got;
	struct stat st;
	mode_t old;
	FILE *f = fopen(target, "w");

	assert_non_null(f);
	assert_int_equal(fputs("keep", f) >= 0 && fclose(f) == 0, 1);
	assert_int_equal(symlink(target, link), 0);
	out = spinscope(2, TT_ARGS("report", FIXTURE, "--folded", link), &err);
	if (!strstr(err, "symbolic link") || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("report --folded LINK: want one line naming the link, got '%s'", err);
	free(out);
	free(err);
	got = slurp(target);
	assert_string_equal(got, "keep");
	free(got);
	old = umask(0);
	free(spinscope(0, TT_ARGS("report", FIXTURE, "--folded", wpath("new.folded")), NULL));
	umask(old);
	assert_int_equal(stat(wpath("new.folded"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(st.st_size > 0);
}

/* report and diff into a full stdout: exit 1 and one line each (main's
 * last check said it a second time). */
static void test_full_stdout_said_once(void **state)
{
	const char *cmds[] = { "report", "diff" };

	for (int i = 0; i < 2; i++) {
		char cmd[1024], *out, *err;

		snprintf(cmd, sizeof(cmd), "exec %s %s %s %s > /dev/full", tl_path("spinscope"), cmds[i],
			 FIXTURE, i ? FIXTURE : "");
		assert_int_equal(tt_run(TT_ARGS("/bin/sh", "-c", cmd), &out, &err, RUN_TIMEOUT_MS), 1);
		if (!strstr(err, "cannot write the") || strchr(err, '\n') != err + strlen(err) - 1)
			fail_msg("%s > /dev/full: want one line, got '%s'", cmds[i], err);
		free(out);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_report_equals_live, tt_teardown),
		cmocka_unit_test_teardown(test_demo_recording_reports_the_same, tt_teardown),
		cmocka_unit_test_teardown(test_symbols_from_build_id, tt_teardown),
		cmocka_unit_test_teardown(test_diff_of_sharded_lock, tt_teardown),
		cmocka_unit_test_teardown(test_diff_of_same_build, tt_teardown),
		cmocka_unit_test_teardown(test_spin_loop_advice_comes_back, tt_teardown),
		cmocka_unit_test_teardown(test_report_with_other_calibration, tt_teardown),
		cmocka_unit_test_teardown(test_bad_recordings_refused, tt_teardown),
		cmocka_unit_test_teardown(test_report_folded_file_is_safe, tt_teardown),
		cmocka_unit_test_teardown(test_full_stdout_said_once, tt_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, tt_scratch_remove);
}

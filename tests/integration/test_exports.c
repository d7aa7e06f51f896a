// SPDX-License-Identifier: GPL-2.0
/*
 * The exports read by their real consumers (issue 15): go tool pprof reads
 * --pprof and names the workload's functions at the top; promtool accepts
 * --metrics-file; a Prometheus server started here scrapes --metrics and
 * its query API returns the yield counter of the JSON report; 10,000 futex
 * addresses stay within the bounded label set. The profile's mappings carry
 * the build-ids readelf reads from the files. Each waiter thread has its own
 * futex_wait samples, the profile counts every wait call and every one
 * that returned at once, and `spinscope report --pprof` of the trace's
 * recording writes the live profile byte for byte.
 *
 * Frame-pointer stacks through glibc (built without them) may skip the
 * innermost workload function, so the top entry, with libc's frames hidden
 * (pprof -hide on the mapping), is either the function or its caller, as
 * in test_symbols_e2e.c.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tracetest.h"
#include "report/metrics_text.h"

#define WORK_TIMEOUT_MS 20000
#define END_TIMEOUT_MS 20000
#define TOOL_TIMEOUT_MS 60000
/* Prometheus starts, scrapes every second, and is queried until it has
 * the final count: wall-clock bound for all of it on a loaded host. */
#define SCRAPE_TIMEOUT_S 90

static char tmpdir[64];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/spinscope-exports.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	/* go tool pprof keeps its settings under $HOME. */
	setenv("HOME", tmpdir, 1);
	return 0;
}

static int teardown(void **state)
{
	char *out, *err;

	tt_run(TT_ARGS("/bin/rm", "-rf", tmpdir), &out, &err, TOOL_TIMEOUT_MS);
	free(out);
	free(err);
	return 0;
}

static const char *tmp_path(const char *name)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

static json_object *trace_done(struct tt_workload *w, const char *const extra[])
{
	return tt_trace_until_done(w, extra, WORK_TIMEOUT_MS, END_TIMEOUT_MS);
}

/* The first entry of `go tool pprof -top` (libc's frames hidden): its
 * name, and its flat value in the sample type's own unit. index NULL: the
 * profile's default sample type, what a user who names none sees. */
static void pprof_top(const char *file, const char *index, char *name, size_t len, double *flat)
{
	char sample_index[64], *out, *err, *line, fmt[32];
	int rc;

	if (index)
		snprintf(sample_index, sizeof(sample_index), "-sample_index=%s", index);
	else
		snprintf(sample_index, sizeof(sample_index), "-nodecount=50");
	rc = tt_run(TT_ARGS("/usr/bin/go", "tool", "pprof", "-top", sample_index, "-hide=libc\\.so",
			    "-unit=nanoseconds", file), &out, &err, TOOL_TIMEOUT_MS);
	if (rc)
		fail_msg("go tool pprof exited with %d: %s", rc, err);
	line = strstr(out, "flat  flat%");
	if (!line || !(line = strchr(line, '\n')))
		fail_msg("go tool pprof -top printed no table: %s%s", out, err);
	/* "      4000   100%   100%       4000   100%  worker" */
	snprintf(fmt, sizeof(fmt), "%%lf%%*s %%*s %%*s %%*s %%*s %%%zus", len - 1);
	if (sscanf(line + 1, fmt, flat, name) != 2)
		fail_msg("cannot read the top entry of: %s", out);
	print_message("# pprof %s: top entry %s (%g)\n", index ? index : "(default)", name, *flat);
	free(out);
	free(err);
}

/* The "Total samples = N" of `go tool pprof -top` for a count type. */
static uint64_t pprof_total(const char *file, const char *index)
{
	char sample_index[64], *out, *err, *at;
	unsigned long long n = 0;

	snprintf(sample_index, sizeof(sample_index), "-sample_index=%s", index);
	assert_int_equal(tt_run(TT_ARGS("/usr/bin/go", "tool", "pprof", "-top", sample_index, file),
				&out, &err, TOOL_TIMEOUT_MS), 0);
	at = strstr(out, "Total samples = ");
	if (!at || sscanf(at + 16, "%llu", &n) != 1)
		fail_msg("go tool pprof -top printed no total for %s: %s%s", index, out, err);
	print_message("# pprof %s: %llu in all\n", index, n);
	free(out);
	free(err);
	return n;
}

static bool one_of(const char *s, const char *const names[])
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/* The workload's mapping in the profile carries its GNU build-id, as
 * binutils' readelf reads it from the file. */
static void assert_build_id_in_profile(const char *file, const char *workload)
{
	char *out, *err, *raw, *rawerr, id[128], *at;

	assert_int_equal(tt_run(TT_ARGS("/usr/bin/readelf", "-n", tl_path(workload)), &out, &err,
				TOOL_TIMEOUT_MS), 0);
	at = strstr(out, "Build ID: ");
	assert_non_null(at);
	assert_int_equal(sscanf(at + 10, "%127s", id), 1);
	assert_int_equal(tt_run(TT_ARGS("/usr/bin/go", "tool", "pprof", "-raw", file), &raw, &rawerr,
				TOOL_TIMEOUT_MS), 0);
	at = strstr(raw, "\nMappings\n");
	if (!at || !strstr(at, id))
		fail_msg("no mapping with build-id %s in: %s", id, raw);
	free(out);
	free(err);
	free(raw);
	free(rawerr);
}

/* A program that spins without a system call: `go tool pprof -top FILE`,
 * with no sample type named, lists the spinning function first (the
 * default type is the one with the most weight, its samples, not the
 * futex waits it never makes). Four spinners on two CPUs: with two, on a
 * host busy with other work they seldom ran at once, the lock was free
 * whenever one ran, and the critical section in spinner() led (1 run in
 * 2 beside two other test suites); with more threads than CPUs a waiter
 * always spins while the holder runs or waits for a CPU. */
static void test_pprof_default_top_is_the_spin_loop(void **state)
{
	const char *file = tmp_path("spin.pb.gz");
	struct tt_workload w;
	json_object *doc;
	char name[256];
	double flat;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "pause_spin", TT_ARGS("4", "3"));
	doc = trace_done(&w, TT_ARGS("--pprof", file, "--event", "cpu-clock"));
	pprof_top(file, NULL, name, sizeof(name), &flat);
	if (strcmp(name, "spin_lock"))
		fail_msg("go tool pprof -top lists %s first, not spin_lock()", name);
	assert_true(flat > 0);
	json_object_put(doc);
	tt_workload_end(&w);
}

static void test_pprof_yield_top_is_the_yield_loop(void **state)
{
	static const char *const fns[] = { "yield_many", "worker", NULL };
	const char *file = tmp_path("yield.pb.gz");
	struct tt_workload w;
	json_object *doc;
	char name[256];
	double flat;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("500", "2"));
	doc = trace_done(&w, TT_ARGS("--pprof", file));
	pprof_top(file, "sched_yield", name, sizeof(name), &flat);
	if (!one_of(name, fns))
		fail_msg("top sched_yield entry is %s, not yield_many() or worker()", name);
	/* Every yield is in the profile: the JSON's count, exactly. */
	assert_int_equal((uint64_t)flat, tt_u64(doc, "totals.sched_yield"));
	assert_int_equal((uint64_t)flat, 1000);
	assert_build_id_in_profile(file, "workloads/yield_n");
	{
		struct stat st;

		assert_int_equal(stat(file, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
	}
	json_object_put(doc);
	tt_workload_end(&w);
}

static int run_promtool(const char *file, char **out, char **err)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "exec /usr/bin/promtool check metrics < '%s'", file);
	return tt_run(TT_ARGS("/bin/sh", "-c", cmd), out, err, TOOL_TIMEOUT_MS);
}

/* The value of the series of name whose labels contain match, or -1. */
static double series_value(const char *text, const char *name, const char *match)
{
	size_t n = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *end = strchrnul(l, '\n'), *sp;

		if (strncmp(l, name, n) || l[n] != '{')
			continue;
		sp = memchr(l, '}', (size_t)(end - l));
		if (!sp)
			continue;
		if (!match || memmem(l, (size_t)(sp - l), match, strlen(match)))
			return strtod(sp + 1, NULL);
	}
	return -1;
}

/* The sum of name's series whose labels contain match. */
static double series_sum(const char *text, const char *name, const char *match)
{
	size_t n = strlen(name);
	double sum = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *end = strchrnul(l, '\n'), *sp;

		if (strncmp(l, name, n) || l[n] != '{')
			continue;
		sp = memchr(l, '}', (size_t)(end - l));
		if (sp && memmem(l, (size_t)(sp - l), match, strlen(match)))
			sum += strtod(sp + 1, NULL);
	}
	return sum;
}

/* The sum of key over the objects of f's array member. */
static uint64_t json_sum(json_object *f, const char *member, const char *key)
{
	json_object *a = NULL;
	uint64_t n = 0;

	if (!json_object_object_get_ex(f, member, &a))
		fail_msg("no %s in %s", member, json_object_to_json_string(f));
	for (size_t i = 0; i < json_object_array_length(a); i++)
		n += tt_u64(json_object_array_get_idx(a, i), key);
	return n;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(1 << 22);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 22, f);
	fclose(f);
	return buf;
}

/* Every waiter of the mutex has its own wait samples: `go tool pprof
 * -tags` lists one tid per waiting thread under the futex_wait type. */
static void assert_waits_per_thread(const char *file, uint64_t waiters)
{
	char *out, *err, *at, *end;
	uint64_t tids = 0;

	assert_true(waiters >= 2);
	assert_int_equal(tt_run(TT_ARGS("/usr/bin/go", "tool", "pprof", "-tags",
					"-sample_index=futex_wait", file), &out, &err, TOOL_TIMEOUT_MS), 0);
	at = strstr(out, " tid: Total");
	if (!at)
		fail_msg("no tid label on the futex_wait samples: %s", out);
	/* "      1.3s (33.72%): 16313" lines, up to the next blank line. */
	end = strstr(at, "\n\n");
	if (end)
		*end = 0;
	for (at = strstr(at, "%): "); at; at = strstr(at + 1, "%): "))
		tids++;
	print_message("# pprof: %llu threads carry futex_wait samples (%llu waiters)\n",
		      (unsigned long long)tids, (unsigned long long)waiters);
	assert_true(tids >= waiters);
	free(out);
	free(err);
}

/* `spinscope report REC --pprof` writes the profile the live --pprof did,
 * byte for byte (the recording keeps the trace's end on the wall clock),
 * and go tool pprof reads it. */
static void assert_report_pprof_is_live(const char *rec, const char *live)
{
	const char *replay = tmp_path("replay.pb.gz");
	char *out, *err, *a, *b;
	size_t la, lb;

	assert_int_equal(tt_run(TT_ARGS(tl_path("spinscope"), "report", rec, "--pprof", replay),
				&out, &err, TOOL_TIMEOUT_MS), 0);
	free(out);
	free(err);
	a = slurp(live, &la);
	b = slurp(replay, &lb);
	assert_int_equal(lb, la);
	assert_memory_equal(b, a, la);
	free(a);
	free(b);
	assert_int_equal(tt_run(TT_ARGS("/usr/bin/go", "tool", "pprof", "-raw", replay), &out, &err,
				TOOL_TIMEOUT_MS), 0);
	assert_non_null(strstr(out, "futex_wait/nanoseconds"));
	free(out);
	free(err);
}

/* The lock="..." label of the series whose labels hold match names one of
 * fns, as the advice's futex-contention finding does. */
static void assert_lock_named(const char *text, const char *match, const char *const fns[])
{
	const char *at = strstr(text, match), *bol, *lock;

	assert_non_null(at);
	for (bol = at; bol > text && bol[-1] != '\n'; bol--)
		;
	lock = strstr(bol, "lock=\"");
	assert_true(lock && lock < at);
	for (int i = 0; fns[i]; i++) {
		size_t n = strlen(fns[i]);

		if (!strncmp(lock + 6, fns[i], n) && lock[6 + n] == ' ')
			return;
	}
	fail_msg("the lock's label is not its waiters' function: %.*s", (int)(at - bol), bol);
}

/* `lock_id="..."` of the wait-time series whose lock is named by one of
 * fns (the waiters' function), into match. */
static void lock_id_of(const char *text, const char *const fns[], char *match, size_t size)
{
	static const char family[] = "spinscope_futex_wait_seconds_total{";

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *lock = strstr(l, "lock=\""), *id = strstr(l, "lock_id=\"");

		if (strncmp(l, family, sizeof(family) - 1) || !lock || !id)
			continue;
		for (int i = 0; fns[i]; i++) {
			size_t n = strlen(fns[i]);

			if (!strncmp(lock + 6, fns[i], n) && lock[6 + n] == ' ') {
				snprintf(match, size, "%.*s", (int)(strchr(id + 9, '"') - id + 1), id);
				return;
			}
		}
	}
	fail_msg("no wait-time series is named by the waiters' function");
}

static void test_pprof_wait_top_and_promtool_accept_the_metrics(void **state)
{
	static const char *const fns[] = { "contend_on_mutex", "waiter", NULL };
	const char *pb = tmp_path("mutex.pb.gz"), *prom = tmp_path("mutex.prom");
	const char *rec = tmp_path("mutex.json.zst");
	char name[256], lock[64], *out, *err;
	unsigned long long mutex;
	struct tt_workload w;
	json_object *doc, *f;
	double flat, secs;
	int rc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "mutex_hold", TT_ARGS("3", "4", "30"));
	mutex = tt_field(w.ready, "mutex");
	/* cpu-clock samples on every host: the profile's every sample type. */
	doc = trace_done(&w, TT_ARGS("--pprof", pb, "--metrics-file", prom, "--event", "cpu-clock",
				     "-o", rec));
	pprof_top(pb, "futex_wait", name, sizeof(name), &flat);
	if (!one_of(name, fns))
		fail_msg("top futex_wait entry is %s, not contend_on_mutex() or waiter()", name);
	assert_waits_per_thread(pb, tt_u64(tt_futex(doc, mutex), "waiter_threads"));
	/* Every wait call is in the profile, and every one that returned at
	 * once, by its stack: the JSON's counts, exactly. */
	assert_int_equal(tt_u64(doc, "dropped.waiter_stacks_map_full"), 0);
	assert_int_equal(pprof_total(pb, "futex_waits"), tt_u64(doc, "totals.futex_wait"));
	assert_int_equal(pprof_total(pb, "futex_at_once"), tt_u64(doc, "totals.futex_returned_at_once"));
	assert_report_pprof_is_live(rec, pb);

	rc = run_promtool(prom, &out, &err);
	if (rc)
		fail_msg("promtool check metrics refused the exposition (%d): %s%s", rc, out, err);
	free(out);
	free(err);
	/* The mutex's wait time is the JSON's, in seconds. */
	f = tt_futex(doc, mutex);
	if (!f)
		fail_msg("the mutex at 0x%llx is not among the futexes", mutex);
	{
		FILE *fp = fopen(prom, "r");
		static char buf[1 << 20];
		size_t n;

		assert_non_null(fp);
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		buf[n] = 0;
		fclose(fp);
		/* No address reaches a scraper (issue 30): the lock is found
		 * by its name, its series then by its opaque id. */
		snprintf(lock, sizeof(lock), "%llx", mutex);
		assert_null(strstr(buf, lock));
		lock_id_of(buf, fns, lock, sizeof(lock));
		secs = series_value(buf, "spinscope_futex_wait_seconds_total", lock);
		assert_true(secs > 0);
		/* Named as the finding names it: by the waiters' own function. */
		assert_lock_named(buf, lock, fns);
		assert_true(fabs(secs * 1e9 - (double)tt_u64(f, "wait_ns")) <= 1000);
		/* Who held it: the release sites' wakes, their held-while-
		 * contended bounds and the holders, the JSON's. */
		assert_int_equal((uint64_t)series_sum(buf, "spinscope_futex_release_wakes_total", lock),
				 json_sum(f, "release_sites", "wakes"));
		assert_true(fabs(series_sum(buf, "spinscope_futex_held_contended_seconds_total", lock) * 1e9 -
				 (double)json_sum(f, "release_sites", "held_contended_ns")) <= 1000);
		assert_int_equal((uint64_t)series_value(buf, "spinscope_futex_holders", lock),
				 json_object_array_length(tt_get(f, "holders")));
		assert_non_null(strstr(buf, "# TYPE spinscope_finding gauge"));
	}
	json_object_put(doc);
	tt_workload_end(&w);
}

/* futex_wait's A waits with a stale value each return at once (EAGAIN):
 * the futex_at_once samples count exactly those, on the word's address. */
static void test_pprof_counts_waits_that_returned_at_once(void **state)
{
	enum { A = 50 };
	const char *pb = tmp_path("again.pb.gz");
	char *out, *err, label[64];
	struct tt_workload w;
	json_object *doc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "futex_wait", TT_ARGS("1", "1", "1", tt_num(A), "1", "1"));
	doc = trace_done(&w, TT_ARGS("--pprof", pb));
	assert_int_equal(tt_u64(doc, "totals.futex_returned_at_once"), A);
	assert_int_equal(pprof_total(pb, "futex_at_once"), A);
	/* All of them on the "again" word: its futex label holds them. */
	snprintf(label, sizeof(label), "-tagfocus=futex=0x%llx",
		 (unsigned long long)tt_field(w.ready, "again"));
	assert_int_equal(tt_run(TT_ARGS("/usr/bin/go", "tool", "pprof", "-top", "-sample_index=futex_at_once",
					label, pb), &out, &err, TOOL_TIMEOUT_MS), 0);
	if (!strstr(out, "Showing nodes accounting for 50, 100% of 50 total"))
		fail_msg("the again word does not hold the %d at-once waits: %s%s", A, out, err);
	free(out);
	free(err);
	json_object_put(doc);
	tt_workload_end(&w);
}

/* spinscope_sched_yield_total as Prometheus has it now, or -1. */
static double prometheus_query(int port)
{
	char url[256], *out, *err;
	json_object *doc, *res;
	double v = -1;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/query?query=spinscope_sched_yield_total", port);
	if (tt_run(TT_ARGS("/usr/bin/curl", "-sf", "--max-time", "5", url), &out, &err, TOOL_TIMEOUT_MS) == 0 &&
	    (doc = json_tokener_parse(out))) {
		if (json_object_object_get_ex(doc, "data", &res) &&
		    json_object_object_get_ex(res, "result", &res) && json_object_array_length(res) == 1) {
			json_object *val;

			if (json_object_object_get_ex(json_object_array_get_idx(res, 0), "value", &val))
				v = strtod(json_object_get_string(json_object_array_get_idx(val, 1)), NULL);
		}
		json_object_put(doc);
	}
	free(out);
	free(err);
	return v;
}

static void test_prometheus_scrapes_the_yield_counter(void **state)
{
	enum { N = 3000, K = 2 };
	int sport = tt_free_port(), pport = tt_free_port();
	char cfg[512], listen[64], saddr[64], storage[300], config[300], done[256];
	const char *cfg_path = tmp_path("prometheus.yml");
	struct tt_workload w;
	struct tl_proc prom;
	struct tt_trace t;
	json_object *doc;
	double got = -1, want;
	time_t until;
	FILE *fp;

	TL_REQUIRE_BPF();
	snprintf(cfg, sizeof(cfg),
		 "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
		 "scrape_configs:\n  - job_name: spinscope\n    static_configs:\n"
		 "      - targets: ['127.0.0.1:%d']\n", sport);
	assert_non_null(fp = fopen(cfg_path, "w"));
	fputs(cfg, fp);
	fclose(fp);
	snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", pport);
	snprintf(storage, sizeof(storage), "--storage.tsdb.path=%s", tmp_path("tsdb"));
	snprintf(config, sizeof(config), "--config.file=%s", cfg_path);
	snprintf(saddr, sizeof(saddr), "127.0.0.1:%d", sport);

	tt_workload_start(&w, "yield_n", TT_ARGS(tt_num(N), tt_num(K)));
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", "0", "--json", "--no-calibrate",
				   "--metrics", saddr));
	assert_int_equal(tl_spawn(&prom, (char *const[]){ "/usr/bin/prometheus", config, storage, listen,
						       "--log.level=warn", NULL }), 0);
	tt_workload_go(&w);
	tt_workload_wait_line(&w, "done", done, sizeof(done), WORK_TIMEOUT_MS);
	/* Wait for a scrape taken after the workload's last yield. */
	for (until = time(NULL) + SCRAPE_TIMEOUT_S; time(NULL) < until; usleep(500000))
		if ((got = prometheus_query(pport)) >= N * K)
			break;
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	tl_kill(&prom, SIGTERM);
	tl_wait(&prom);
	close(prom.out_fd);
	close(prom.err_fd);
	if (t.rc != 0)
		fail_msg("spinscope exited with %d; stderr: %s", t.rc, t.err);
	doc = tt_parse_report(t.out);
	want = (double)tt_u64(doc, "totals.sched_yield");
	print_message("# prometheus: %g yields, JSON report: %g\n", got, want);
	if (got < 0)
		fail_msg("Prometheus returned no spinscope_sched_yield_total within %d s", SCRAPE_TIMEOUT_S);
	assert_true(want >= N * K);
	assert_true(got >= want * 0.99 && got <= want * 1.01);
	json_object_put(doc);
	tt_trace_free(&t);
	tt_workload_end(&w);
}

/* 10,000 futex addresses: at most METRICS_TOP_N lock labels plus "other",
 * and nothing lost in the aggregation. */
static void test_lock_labels_stay_bounded(void **state)
{
	enum { N = 10000 };
	const char *prom = tmp_path("spread.prom");
	static char buf[1 << 22];
	size_t n, locks = 0;
	double sum = 0;
	struct tt_workload w;
	json_object *doc;
	char *out, *err;
	FILE *fp;
	int rc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "futex_spread", TT_ARGS(tt_num(N)));
	doc = trace_done(&w, TT_ARGS("--max-futexes", "16384", "--metrics-file", prom));
	assert_non_null(fp = fopen(prom, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = 0;
	fclose(fp);
	for (char *l = buf; *l; l = strchrnul(l, '\n'), l += !!*l) {
		if (strncmp(l, "spinscope_futex_wakes_total{", 28))
			continue;
		locks++;
		sum += strtod(strchr(l, '}') + 1, NULL);
	}
	print_message("# %zu lock series for %d addresses, %g wakes\n", locks, N, sum);
	assert_true(locks <= METRICS_TOP_N + 1);
	assert_true(series_value(buf, "spinscope_futex_wakes_total", "lock=\"other\"") > 0);
	assert_true(sum >= N);
	assert_int_equal((uint64_t)sum, tt_u64(doc, "totals.futex_wake"));
	rc = run_promtool(prom, &out, &err);
	if (rc)
		fail_msg("promtool check metrics refused the exposition (%d): %s%s", rc, out, err);
	free(out);
	free(err);
	json_object_put(doc);
	tt_workload_end(&w);
}

/* A port already taken: one line naming it and what to do, exit 2, before
 * anything is attached. */
static void test_metrics_port_in_use_is_a_usage_error(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc;
	struct tt_workload w;
	struct tt_bpf_mark mark;
	char saddr[64], *out, *err;

	TL_REQUIRE_BPF();
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(saddr, sizeof(saddr), "127.0.0.1:%d", ntohs(sa.sin_port));
	tt_workload_start(&w, "yield_n", TT_ARGS("10", "1"));
	tt_bpf_mark(&mark);
	rc = tt_run(TT_ARGS(tl_path("spinscope"), "-p", tt_num(w.proc.pid), "-d", "1", "--metrics", saddr),
		    &out, &err, END_TIMEOUT_MS);
	close(fd);
	assert_int_equal(rc, 2);
	if (!strstr(err, "cannot serve metrics on") || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("expected one line naming the address, got: %s", err);
	tt_assert_nothing_left(&mark);
	free(out);
	free(err);
	tt_workload_end(&w);
}

/* A link planted where --pprof or --metrics-file will write: refused
 * before tracing (exit 2), and what it points to is untouched. */
static void test_planted_link_is_refused(void **state)
{
	const char *victim = tmp_path("victim"), *link = tmp_path("planted.pb.gz");
	const char *opts[] = { "--pprof", "--metrics-file" };
	struct tt_workload w;
	char *out, *err, buf[8] = "";
	FILE *fp;

	TL_REQUIRE_BPF();
	assert_non_null(fp = fopen(victim, "w"));
	fputs("keep", fp);
	fclose(fp);
	assert_int_equal(symlink(victim, link), 0);
	tt_workload_start(&w, "yield_n", TT_ARGS("10", "1"));
	for (int i = 0; i < 2; i++) {
		int rc = tt_run(TT_ARGS(tl_path("spinscope"), "-p", tt_num(w.proc.pid), "-d", "1",
					opts[i], link), &out, &err, END_TIMEOUT_MS);

		assert_int_equal(rc, 2);
		if (!strstr(err, link))
			fail_msg("%s: expected the path in one line, got: %s", opts[i], err);
		free(out);
		free(err);
	}
	assert_non_null(fp = fopen(victim, "r"));
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "keep");
	unlink(link);
	tt_workload_end(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_pprof_yield_top_is_the_yield_loop, tt_teardown),
		cmocka_unit_test_teardown(test_pprof_default_top_is_the_spin_loop, tt_teardown),
		cmocka_unit_test_teardown(test_pprof_wait_top_and_promtool_accept_the_metrics, tt_teardown),
		cmocka_unit_test_teardown(test_pprof_counts_waits_that_returned_at_once, tt_teardown),
		cmocka_unit_test_teardown(test_prometheus_scrapes_the_yield_counter, tt_teardown),
		cmocka_unit_test_teardown(test_lock_labels_stay_bounded, tt_teardown),
		cmocka_unit_test_teardown(test_metrics_port_in_use_is_a_usage_error, tt_teardown),
		cmocka_unit_test_teardown(test_planted_link_is_refused, tt_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

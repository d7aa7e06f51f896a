// SPDX-License-Identifier: GPL-2.0
/*
 * What an unprivileged user, a full disk or a closed pipe can do to a
 * trace run as root (issue 13), reproduced as the hostile case did:
 *
 *   1  a symlink planted by nobody (setpriv) in a non-sticky folder anyone
 *      can write, before and during the trace: never followed, its target
 *      keeps its content, and files written are mode 0600
 *   2  a FIFO planted there as --folded: refused at once, no hang
 *   3  -o on a full tmpfs (4 KiB, in a private mount namespace), -o naming
 *      a directory or /proc: the report still reaches stdout, the error
 *      line names the file, exit 1 (or exit 2 when known before the trace)
 *   4  -i into `| head -1`: no SIGPIPE death, the -o file is written
 *   8  --json with an argument error: the {"error": ...} object on stdout
 *   9  -t TID: the trace ends when that thread exits, the process lives on
 *  10  stdout on /dev/full: "No space left on device"; stdout closed: EBADF
 *  12  a target run by nobody in its own user and mount namespace
 *      bind-mounts a root-only file over its /tmp/perf-PID.map: not opened
 *
 * and issue 30:
 *
 *   1  a target names itself and its thread "\e]0;pwned\a\e[2J": every
 *      byte of every output (text, stderr, JSON, folded, pprof, metrics,
 *      HTML, the recording, report and diff of it) is clean, the name shown
 *      as "?]0;pwned??[2J"; a recording crafted with such names, C1
 *      controls and ill-formed UTF-8 is replayed clean
 *   2  --metrics under `ulimit -n 256` while a local user holds 600
 *      connections open and another sends a byte every 250 ms: a scrape
 *      is still answered, the slow one is closed by its deadline, the
 *      end-of-trace files are all written
 *   3  no address of the target's in the exposition
 *      and so are the four newest findings' (wake-herd, barrier-imbalance,
 *      blocking-under-lock, serialization), made by workloads whose every
 *      thread is so named
 *   4  a process and a thread named "ab\ncd" are traced, -p and -t
 *   7  ulimit -n 12, 20, 40: exit 7 "out of file descriptors", never 6
 *   8  nobody with CAP_BPF and CAP_PERFMON: told what is missing (who may
 *      mount tracefs, CAP_DAC_READ_SEARCH to read it); with those and
 *      CAP_SYS_PTRACE it traces; root with the two alone is warned that
 *      frames will lack names
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "tracetest.h"
#include "common/names.h"
#include "report/metrics_http.h"
#include "report/recording.h"
#include "syms/syms.h"

#define RUN_TIMEOUT_MS 30000
#define END_TIMEOUT_MS 15000
#define WORK_TIMEOUT_MS 20000
#define SETPRIV "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"

static char shared_dir[64];	/* mode 0777, not sticky: anyone may plant */
static char victim[96];		/* root's file a planted link points at */

static const char *in_shared(const char *name)
{
	static char path[4][160];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", shared_dir, name);
	return path[k];
}

static int make_dirs(void **state)
{
	FILE *f;

	snprintf(shared_dir, sizeof(shared_dir), "/tmp/ss-hostile-XXXXXX");
	if (!mkdtemp(shared_dir) || chmod(shared_dir, 0777))
		return -1;
	snprintf(victim, sizeof(victim), "/tmp/ss-hostile-victim-%d", getpid());
	f = fopen(victim, "w");
	if (!f)
		return -1;
	fputs("root's data\n", f);
	return fclose(f) || chmod(victim, 0644);
}

static int remove_dirs(void **state)
{
	char cmd[256];

	unlink(victim);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", shared_dir);
	return system(cmd);
}

static void assert_victim_intact(void)
{
	char buf[64] = "";
	FILE *f = fopen(victim, "r");
	struct stat st;

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "root's data\n");
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 12);
}

/* What nobody does in the shared folder: "ln -s" or "mkfifo". */
static void plant_as_nobody(const char *const cmd[])
{
	const char *argv[16] = { SETPRIV };
	char *out, *err;
	int n = 4, rc;

	while (*cmd && n < 15)
		argv[n++] = *cmd++;
	argv[n] = NULL;
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc)
		fail_msg("setpriv %s failed (%d): %s", argv[4], rc, err);
	free(out);
	free(err);
}

/* The last line of s (the error line after the "tracing" one). */
static const char *last_line(char *s)
{
	size_t n = strlen(s);
	char *p;

	while (n && s[n - 1] == '\n')
		s[--n] = 0;
	p = strrchr(s, '\n');
	return p ? p + 1 : s;
}

static void assert_mode_0600(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	if ((st.st_mode & 07777) != 0600)
		fail_msg("%s has mode %o, expected 0600", path, st.st_mode & 07777);
	assert_int_equal(st.st_uid, geteuid());
}

/* Runs spinscope with args, expecting exit `want` and a last stderr line
 * with every needle; returns stdout (caller frees). */
static char *run_expect(const char *const args[], int want, const char *const needles[])
{
	const char *argv[40] = { tl_path("spinscope") };
	char *out, *err;
	const char *line;
	int n = 1, rc;

	while (*args && n < 39)
		argv[n++] = *args++;
	argv[n] = NULL;
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc != want)
		fail_msg("exit %d, expected %d; stderr: %s", rc, want, err);
	line = last_line(err);
	if (strncmp(line, "spinscope: ", 11))
		fail_msg("last stderr line is not spinscope's: %s", err);
	for (; needles && *needles; needles++)
		if (!strstr(line, *needles))
			fail_msg("the error does not mention \"%s\": %s", *needles, line);
	free(err);
	return out;
}

/* ---- 1, 2: planted names --------------------------------------------------- */

static void test_planted_symlink_refused(void **state)
{
	const char *link = in_shared("stacks.folded");
	struct tt_bpf_mark mark;
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_bpf_mark(&mark);
	plant_as_nobody(TT_ARGS("/bin/ln", "-s", victim, link));
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	free(run_expect(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--no-calibrate", "--folded", link),
			2, TT_ARGS(link, "symbolic link")));
	free(run_expect(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--no-calibrate", "-o", link),
			2, TT_ARGS(link, "symbolic link")));
	assert_victim_intact();
	tt_workload_end(&w);
	tt_assert_nothing_left(&mark);
}

/* Planted after the check, while the trace runs: still not followed, the
 * other files are written 0600, the report reaches stdout, exit 1. */
static void test_symlink_planted_during_trace(void **state)
{
	const char *link = in_shared("late.folded"), *report = in_shared("r.json");
	const char *mine = in_shared("mine.folded");
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc;
	mode_t old;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("50", "1"));
	old = umask(0);	/* 0600 must not depend on the caller's umask */
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", "0", "--json", "--no-calibrate",
				   "--folded", link, "-o", report));
	umask(old);
	plant_as_nobody(TT_ARGS("/bin/ln", "-s", victim, link));
	tt_workload_go(&w);
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	if (t.rc != 1)
		fail_msg("exit %d, expected 1; stderr: %s", t.rc, t.err);
	if (!strstr(t.err, "cannot write folded stacks to") || !strstr(t.err, link) ||
	    !strstr(t.err, "symbolic link"))
		fail_msg("no line about the planted link: %s", t.err);
	doc = tt_parse_report(t.out);	/* the whole report, on stdout */
	assert_int_equal(tt_u64(doc, "target.pid"), w.proc.pid);
	json_object_put(doc);
	assert_victim_intact();
	assert_mode_0600(report);
	tt_trace_free(&t);
	/* --folded itself, when nobody interferes: 0600 too (it was 0644) */
	free(run_expect(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "0.5", "--no-calibrate", "--folded",
				mine), 0, NULL));
	assert_mode_0600(mine);
	tt_workload_end(&w);
}

static void test_planted_fifo_refused_at_once(void **state)
{
	const char *fifo = in_shared("fifo.folded");
	struct tt_workload w;

	TL_REQUIRE_BPF();
	plant_as_nobody(TT_ARGS("/usr/bin/mkfifo", "-m", "0666", fifo));
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	/* tt_run fails the test rather than hang: before, open() blocked */
	free(run_expect(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--no-calibrate", "--folded", fifo),
			2, TT_ARGS(fifo, "FIFO")));
	tt_workload_end(&w);
}

/* ---- 3: the final write fails ---------------------------------------------- */

/* A 4 KiB tmpfs, filled by another file, in a mount namespace of the run's
 * own: the trace runs, the -o write fails with ENOSPC at the end. */
static void test_full_disk_keeps_report_on_stdout(void **state)
{
	const char *mnt = in_shared("full"), *report = in_shared("full/r.json");
	const char *script = "mount -t tmpfs -o size=4k none \"$0\";"
			     " dd if=/dev/zero of=\"$0/filler\" bs=4096 count=4 2>/dev/null || true;"
			     " exec \"$@\"";
	char *out, *err;
	const char *line;
	json_object *doc;
	struct tt_workload w;
	int rc;

	TL_REQUIRE_BPF();
	assert_int_equal(mkdir(mnt, 0755), 0);
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	rc = tt_run(TT_ARGS("/usr/bin/unshare", "-m", "--propagation", "private", "--", "/bin/sh", "-c",
			    script, mnt, tl_path("spinscope"), "-p",
			    tt_num(w.proc.pid), "-d", "1", "--json", "--no-calibrate", "-o", report),
		    &out, &err, RUN_TIMEOUT_MS);
	if (rc != 1)
		fail_msg("exit %d, expected 1; stderr: %s", rc, err);
	doc = tt_parse_report(out);	/* before: only the error object */
	assert_int_equal(tt_u64(doc, "target.pid"), w.proc.pid);
	assert_true(json_object_object_get_ex(doc, "totals", NULL));
	json_object_put(doc);
	line = last_line(err);
	if (!strstr(line, report) || !strstr(line, "No space left on device"))
		fail_msg("the error line does not say where and why: %s", err);
	free(out);
	free(err);
	tt_workload_end(&w);
}

/* What is known before the trace is said before it: exit 2. */
static void test_unwritable_targets_refused_before_trace(void **state)
{
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	free(run_expect(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--no-calibrate", "-o", shared_dir),
			2, TT_ARGS(shared_dir, "directory")));
	free(run_expect(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--no-calibrate", "-o",
				"/proc/self/r.json"),
			2, TT_ARGS("/proc/self/r.json", "/proc/self")));
	tt_workload_end(&w);
}

/* ---- 4, 10: stdout --------------------------------------------------------- */

static void test_head_pipe_keeps_output_file(void **state)
{
	const char *report = in_shared("piped.json");
	char script[1024], *out, *err;
	json_object *doc;
	struct tt_workload w;
	int rc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	snprintf(script, sizeof(script),
		 "\"$0\" -p %d -d 3 -i 0.2 --no-calibrate -o %s | head -1 >/dev/null; exit ${PIPESTATUS[0]}",
		 w.proc.pid, report);
	rc = tt_run(TT_ARGS("/bin/bash", "-c", script, tl_path("spinscope")), &out, &err,
		    RUN_TIMEOUT_MS);
	if (rc == 128 + SIGPIPE)
		fail_msg("killed by SIGPIPE; stderr: %s", err);
	if (rc != 1)	/* the final report could not reach stdout either */
		fail_msg("exit %d, expected 1; stderr: %s", rc, err);
	if (!strstr(err, "Broken pipe") || !strstr(err, "report saved to"))
		fail_msg("stderr does not say what happened: %s", err);
	assert_int_equal(recording__load(report, &doc), 0);
	assert_int_equal(tt_u64(doc, "target.pid"), w.proc.pid);
	assert_true(tt_u64(doc, "duration_ns") >= 3000000000ULL);	/* the trace went on */
	json_object_put(doc);
	assert_mode_0600(report);
	free(out);
	free(err);
	tt_workload_end(&w);
}

static void test_dev_full_says_no_space(void **state)
{
	struct tt_workload w;
	char *out, *err;
	int rc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	for (int json = 0; json < 2; json++) {
		rc = tt_run(TT_ARGS("/bin/sh", "-c", "exec \"$@\" >/dev/full", "sh", tl_path("spinscope"),
				    "-p", tt_num(w.proc.pid), "-d", "0.5", "--no-calibrate",
				    json ? "--json" : "--no-calibrate"),
			    &out, &err, RUN_TIMEOUT_MS);
		assert_int_equal(rc, 1);
		if (strcmp(last_line(err), "spinscope: cannot write the report to stdout: No space left on device"))
			fail_msg("expected the ENOSPC line last: %s", err);
		/* one line about it, not a second one at exit */
		assert_null(strstr(err, "cannot write the report to stdout\n"));
		free(out);
		free(err);
	}
	tt_workload_end(&w);
}

/* stdout closed at start (>&-): before, the first fd spinscope opened took
 * its place and the report went into it ("Input/output error", twice). */
static void test_closed_stdout_says_so(void **state)
{
	struct tt_workload w;
	char *out, *err;
	int rc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	rc = tt_run(TT_ARGS("/bin/sh", "-c", "exec \"$@\" >&-", "sh", tl_path("spinscope"), "-p",
			    tt_num(w.proc.pid), "-d", "0.5", "--no-calibrate"),
		    &out, &err, RUN_TIMEOUT_MS);
	assert_int_equal(rc, 1);
	if (strcmp(last_line(err), "spinscope: cannot write the report to stdout: Bad file descriptor"))
		fail_msg("expected the EBADF line last: %s", err);
	assert_null(strstr(err, "cannot write the report to stdout\n"));
	free(out);
	free(err);
	tt_workload_end(&w);
}

/* ---- 8: --json argument errors --------------------------------------------- */

static void test_json_argument_errors(void **state)
{
	const char *const cases[][4] = {
		{ "--json", "-p", "abc", NULL },
		{ "-p", "1", "--json", "--bogus" },
		{ "demo", "--json", "--bogus", NULL },
		{ "calibrate", "--bogus", "--json", NULL },
		{ "nosuchcommand", "--json", NULL, NULL },
		{ "-p", "1", "-d", "soon" },	/* no --json: no object */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[8] = { tl_path("spinscope") };
		char *out, *err;
		json_object *o;
		int n = 1;

		for (int k = 0; k < 4 && cases[i][k]; k++)
			argv[n++] = cases[i][k];
		assert_int_equal(tt_run(argv, &out, &err, RUN_TIMEOUT_MS), 2);
		if (!strcmp(cases[i][3] ? cases[i][3] : "", "soon")) {
			assert_string_equal(out, "");
		} else {
			o = tt_parse_report(out);
			assert_int_equal(tt_u64(o, "exit_code"), 2);
			assert_non_null(strstr(err, json_object_get_string(tt_get(o, "error"))));
			json_object_put(o);
		}
		free(out);
		free(err);
	}
}

/* ---- 9: -t and its thread's exit ------------------------------------------- */

static void test_tid_exit_ends_trace(void **state)
{
	enum { N = 400 };
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc;
	long long tid;
	char done[64];

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "thread_exit", TT_ARGS(tt_num(N)));
	assert_int_equal(tt_field_list(w.ready, "tids", &tid, 1), 1);
	/* -d 0: before, only Ctrl-C ended it */
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-t", tt_num(tid), "-d", "0", "--json",
				   "--no-calibrate"));
	tt_workload_go(&w);
	tt_workload_wait_line(&w, "done", done, sizeof(done), WORK_TIMEOUT_MS);
	tt_trace_end(&t, 0, END_TIMEOUT_MS);
	if (t.rc != 0)
		fail_msg("exit %d; stderr: %s", t.rc, t.err);
	doc = tt_parse_report(t.out);
	assert_true(json_object_get_boolean(tt_get(doc, "target.exited")));
	assert_int_equal(tt_u64(doc, "target.tid"), tid);
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), N);
	assert_non_null(strstr(t.err, "exited after"));
	json_object_put(doc);
	assert_int_equal(kill(w.proc.pid, 0), 0);	/* the process lives on */
	tt_trace_free(&t);
	tt_workload_end(&w);
}

/* ---- 12: the perf map of a target in a user namespace ---------------------- */

/* Starts `sh -c script` as nobody in new user and mount namespaces; its
 * first line is "ready PID". */
static int start_userns_target(struct tl_proc *p, const char *script)
{
	char *argv[] = { SETPRIV, "/usr/bin/unshare", "-Urm", "/bin/sh", "-c", (char *)script, NULL };
	char line[128];
	int pid;

	assert_int_equal(tl_spawn(p, argv), 0);
	if (!tl_read_line(p, line, sizeof(line), 10000) || sscanf(line, "ready %d", &pid) != 1)
		fail_msg("the user-namespace target did not start: %s", tl_read_all(p->err_fd));
	return pid;
}

static uint32_t perfmap_entries_of(int pid)
{
	struct syms *s = syms__new(pid);
	struct syms_stats st;

	assert_non_null(s);
	syms__stats(s, &st);
	syms__free(s);
	return st.perfmap_entries;
}

static void stop_target(struct tl_proc *p, int pid)
{
	char path[64];

	tl_kill(p, SIGKILL);
	tl_wait(p);
	close(p->out_fd);
	close(p->err_fd);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	unlink(path);	/* the empty file the bind mount covered */
}

static void test_perfmap_bind_mount_of_root_file_not_opened(void **state)
{
	char secret_dir[128], secret[160], script[512];
	struct tl_proc p;
	int pid;
	FILE *f;

	TL_REQUIRE_BPF();
	/* root's file, mode 0600 in a folder nobody may only pass through,
	 * like /etc/shadow; it parses as a perf map, so reading it shows */
	snprintf(secret_dir, sizeof(secret_dir), "%s/root-only", shared_dir);
	assert_int_equal(mkdir(secret_dir, 0711), 0);
	snprintf(secret, sizeof(secret), "%s/secret.map", secret_dir);
	f = fopen(secret, "w");
	assert_non_null(f);
	fputs("7e0000001000 100 root_secret_a\n7e0000002000 100 root_secret_b\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(secret, 0600), 0);

	/* the control: the target's own perf map is read */
	pid = start_userns_target(&p, "printf '7e0000001000 100 own_fn\\n' > /tmp/perf-$$.map;"
				      " echo ready $$; exec sleep 60");
	assert_int_equal(perfmap_entries_of(pid), 1);
	stop_target(&p, pid);

	snprintf(script, sizeof(script),
		 "touch /tmp/perf-$$.map && mount --bind %s /tmp/perf-$$.map && echo ready $$;"
		 " exec sleep 60", secret);
	pid = start_userns_target(&p, script);
	/* before: 2, root had opened and read its own file for the target */
	assert_int_equal(perfmap_entries_of(pid), 0);
	stop_target(&p, pid);
}

/* ---- issue 30, 1 and 4: names a target gives itself ------------------------ */

#define EVIL "\e]0;pwned\a\e[2J"	/* sets the title, clears the screen */
#define EVIL_SHOWN "?]0;pwned??[2J"	/* as every output must show it */

/*
 * Every byte of an output: no NUL, and between newlines and tabs only clean
 * text (common/names.h: valid UTF-8, no escape, no control character).
 * want, when not NULL, must be in it: the name went through.
 */
static void assert_clean_bytes(const char *what, const char *buf, size_t len, const char *want)
{
	size_t start = 0;

	if (memchr(buf, 0, len))
		fail_msg("%s holds a NUL byte", what);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && buf[i] != '\n' && buf[i] != '\t')
			continue;
		if (!ss_name_is_clean(buf + start, i - start)) {
			size_t bad = start;

			while (bad < i && (unsigned char)buf[bad] >= 0x20 && (unsigned char)buf[bad] < 0x7f)
				bad++;
			fail_msg("%s: byte %zu (0x%02x) of %zu is a control or not UTF-8", what, bad,
				 (unsigned char)buf[bad], len);
		}
		start = i + 1;
	}
	if (want && !memmem(buf, len, want, strlen(want)))
		fail_msg("%s does not show the name as %s", what, want);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	do {
		if (n + 4096 > cap && !(buf = realloc(buf, cap = cap * 2 + 8192)))
			fail_msg("out of memory");
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static void assert_clean_file(const char *path, const char *want)
{
	size_t len;
	char *buf = slurp(path, &len);

	assert_clean_bytes(path, buf, len, want);
	free(buf);
}

/* A gzipped pprof: binary, so only the name's own bytes are looked for:
 * the raw escape never, the cleaned name in the labels. */
static void assert_clean_pprof(const char *path, const char *want)
{
	char cmd[512], raw[256];
	size_t len;
	char *buf;

	snprintf(raw, sizeof(raw), "%s.raw", path);
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s' > '%s'", path, raw);
	assert_int_equal(system(cmd), 0);
	buf = slurp(raw, &len);
	if (memmem(buf, len, "\e]0;", 4) || memmem(buf, len, "\e[2J", 4))
		fail_msg("%s holds the raw escape", path);
	if (want && !memmem(buf, len, want, strlen(want)))
		fail_msg("%s does not label a thread %s", path, want);
	free(buf);
}

/* Runs spinscope with args to exit 0; every byte of stdout and stderr
 * clean, want in stdout. */
static void run_clean(const char *const args[], const char *want)
{
	const char *argv[24] = { tl_path("spinscope") };
	char *out, *err;
	int n = 1, rc;

	while (*args && n < 23)
		argv[n++] = *args++;
	argv[n] = NULL;
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc)
		fail_msg("spinscope %s exited %d", argv[1], rc);
	assert_clean_bytes("stdout", out, strlen(out), want);
	assert_clean_bytes("stderr", err, strlen(err), NULL);
	free(out);
	free(err);
}

/* The files of a trace with every output, in the shared folder. */
struct outputs {
	char folded[160], pprof[160], html[160], metrics[160], rec[160];
};

static void outputs_name(struct outputs *o, const char *stem)
{
	snprintf(o->folded, sizeof(o->folded), "%s/%s.folded", shared_dir, stem);
	snprintf(o->pprof, sizeof(o->pprof), "%s/%s.pb.gz", shared_dir, stem);
	snprintf(o->html, sizeof(o->html), "%s/%s.html", shared_dir, stem);
	snprintf(o->metrics, sizeof(o->metrics), "%s/%s.prom", shared_dir, stem);
	snprintf(o->rec, sizeof(o->rec), "%s/%s.json", shared_dir, stem);
}

/* Starts spinscope on pid for duration (-d) with every output (o). */
static void trace_every_output(struct tt_trace *t, int pid, const char *duration,
			       const struct outputs *o)
{
	tt_trace_start(t, TT_ARGS("-p", tt_num(pid), "-d", duration, "--no-calibrate", "--event",
				  "cpu-clock", "--folded", o->folded, "--pprof", o->pprof, "--html",
				  o->html, "--metrics-file", o->metrics, "-o", o->rec));
	/* the first stderr line names the process: clean before the trace */
	assert_clean_bytes("the tracing line", t->tracing, strlen(t->tracing), EVIL_SHOWN);
}

/* Every byte the ended trace t printed and wrote clean, the name shown. */
static void assert_outputs_clean(struct tt_trace *t, const struct outputs *o)
{
	if (t->rc)
		fail_msg("exit %d; stderr: %zu bytes", t->rc, strlen(t->err));
	assert_clean_bytes("stdout", t->out, strlen(t->out), EVIL_SHOWN);
	assert_clean_bytes("stderr", t->err, strlen(t->err), NULL);
	assert_clean_file(o->folded, NULL);
	assert_clean_file(o->html, EVIL_SHOWN);
	assert_clean_file(o->metrics, "comm=\"" EVIL_SHOWN "\"");
	assert_clean_file(o->rec, EVIL_SHOWN);
	assert_clean_pprof(o->pprof, EVIL_SHOWN);
}

static void test_hostile_names_in_every_output(void **state)
{
	const char *rfolded = in_shared("evil-r.folded"), *rhtml = in_shared("evil-r.html");
	const char *rpprof = in_shared("evil-r.pb.gz"), *rec;
	struct outputs o;
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc;
	char done[64];

	TL_REQUIRE_BPF();
	outputs_name(&o, "evil");
	rec = o.rec;
	tt_workload_start(&w, "hostile_names", TT_ARGS(EVIL, EVIL, "50"));
	trace_every_output(&t, w.proc.pid, "0", &o);
	tt_workload_go(&w);
	tt_workload_wait_line(&w, "done", done, sizeof(done), WORK_TIMEOUT_MS);
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	assert_outputs_clean(&t, &o);
	tt_trace_free(&t);
	/* the recording: the names as cleaned, the counts as made */
	assert_int_equal(recording__load(rec, &doc), 0);
	assert_string_equal(json_object_get_string(tt_get(doc, "target.comm")), EVIL_SHOWN);
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), 50);
	json_object_put(doc);
	/* replayed */
	run_clean(TT_ARGS("report", rec), EVIL_SHOWN);
	run_clean(TT_ARGS("report", rec, "--json"), EVIL_SHOWN);
	run_clean(TT_ARGS("report", rec, "--folded", rfolded, "--html", rhtml, "--pprof", rpprof), EVIL_SHOWN);
	assert_clean_file(rfolded, NULL);
	assert_clean_file(rhtml, EVIL_SHOWN);
	assert_clean_pprof(rpprof, EVIL_SHOWN);
	run_clean(TT_ARGS("diff", rec, rec), EVIL_SHOWN);
	run_clean(TT_ARGS("diff", rec, rec, "--json"), EVIL_SHOWN);
	tt_workload_end(&w);
}

/* Every string in o (an object or array, walked whole) clean, as JSON
 * holds it: a raw escape is written \\u001b in the file, and only the
 * parsed strings show whether it went through. */
static void assert_strings_clean(json_object *o, const char *what)
{
	if (json_object_is_type(o, json_type_string)) {
		const char *v = json_object_get_string(o);

		if (!ss_name_is_clean(v, strlen(v)))
			fail_msg("%s: a string is not clean: %s", what, json_object_to_json_string(o));
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			assert_strings_clean(json_object_array_get_idx(o, i), what);
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, m) {
			(void)k;
			assert_strings_clean(m, what);
		}
	}
}

/*
 * The four newest findings name threads and words in their titles and
 * evidence: wake-herd (a broadcast to 8 consumers), barrier-imbalance
 * (the slow thread by tid and name), blocking-under-lock (threads
 * sleeping under a mutex) and serialization (Python threads on the GIL).
 * Their workloads (test_wait_shapes.c's) run with every thread named
 * EVIL (WL_COMM, workload.h): each finding comes, and every byte of every
 * output and of its replay is clean, every string of the report too.
 */
static void test_hostile_names_in_newest_findings(void **state)
{
	static const struct {
		const char *workload, *args[4], *finding;
		bool names_thread;	/* its title or evidence names a thread */
	} cases[] = {
		{ "cond_herd", { "8", "30", NULL }, "wake-herd", true },
		{ "barrier_skew", { "4", "4", "30", NULL }, "barrier-imbalance", true },
		{ "io_under_lock", { "4", "sleep", "30", NULL }, "blocking-under-lock", false },
		{ "gil_threads", { "4", "30", NULL }, "serialization", false },
	};

	TL_REQUIRE_BPF();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outputs o;
		struct tt_workload w;
		struct tt_trace t;
		json_object *doc, *f;

		outputs_name(&o, cases[i].finding);
		assert_int_equal(setenv("WL_COMM", EVIL, 1), 0);
		tt_workload_start(&w, cases[i].workload, cases[i].args);
		unsetenv("WL_COMM");
		trace_every_output(&t, w.proc.pid, "3", &o);
		tt_workload_go(&w);
		tt_trace_end(&t, 0, WORK_TIMEOUT_MS);
		tt_workload_end(&w);
		assert_outputs_clean(&t, &o);
		tt_trace_free(&t);
		assert_int_equal(recording__load(o.rec, &doc), 0);
		f = tt_finding(doc, cases[i].finding);
		if (!f)
			fail_msg("%s: no %s finding in %s", cases[i].workload, cases[i].finding,
				 json_object_to_json_string(tt_get(doc, "advice")));
		print_message("# %s: %s\n", cases[i].finding, json_object_get_string(tt_get(f, "title")));
		assert_strings_clean(doc, o.rec);
		if (cases[i].names_thread && !strstr(json_object_to_json_string(f), EVIL_SHOWN))
			fail_msg("%s names no thread as %s: %s", cases[i].finding, EVIL_SHOWN,
				 json_object_to_json_string(f));
		json_object_put(doc);
		run_clean(TT_ARGS("report", o.rec), EVIL_SHOWN);
		run_clean(TT_ARGS("report", o.rec, "--json"), EVIL_SHOWN);
	}
}

/* Sets every string member key of each object in array (or of o) to v. */
static void plant(json_object *o, const char *key, const char *v)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			plant(json_object_array_get_idx(o, i), key, v);
		return;
	}
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, m) {
			if (!strcmp(k, key) && json_object_is_type(m, json_type_string))
				json_object_set_string(m, v);
			else
				plant(m, key, v);
		}
	}
}

/* A recording made elsewhere, with hostile names json-c writes as \u001b
 * escapes, raw C1 and ill-formed UTF-8 bytes: report and diff show every
 * name cleaned. */
static void test_crafted_recording_replayed_clean(void **state)
{
	static const char evil_bytes[] = EVIL "\xc2\x9b" "2J\xff\xfe\xe2\x80\xae";
	static const char evil_frame[] = EVIL "\xc2\x9b" "2J\xff\xfe\xe2\x80\xae+0x2b (libc.so.6)";
	const char *rec = in_shared("crafted.json"), *folded = in_shared("crafted.folded");
	const char *html = in_shared("crafted.html"), *pprof = in_shared("crafted.pb.gz");
	json_object *doc;

	assert_int_equal(recording__load("tests/fixtures/recording/hot-lock-1.1.json", &doc), 0);
	plant(doc, "comm", evil_bytes);
	plant(doc, "name", evil_frame);		/* frames, as "func+0x2b (module)" */
	plant(doc, "module", evil_bytes);
	plant(doc, "hostname", "</script><i>x");	/* HTML: must stay inside its script */
	plant(doc, "symbol", evil_bytes);	/* the samples' top */
	assert_int_equal(json_object_to_file_ext(rec, doc, JSON_C_TO_STRING_PLAIN), 0);
	json_object_put(doc);
	run_clean(TT_ARGS("report", rec), EVIL_SHOWN);
	run_clean(TT_ARGS("report", rec, "--json"), EVIL_SHOWN);
	run_clean(TT_ARGS("report", rec, "--folded", folded, "--html", html, "--pprof", pprof), NULL);
	assert_clean_file(folded, "?]0:pwned??[2J");	/* ';' is folded syntax: ':' */
	assert_clean_file(html, EVIL_SHOWN);
	{
		size_t len;
		char *page = slurp(html, &len);

		if (memmem(page, len, "<i>x", 4))
			fail_msg("%s: a name closed the page's script", html);
		free(page);
	}
	assert_clean_pprof(pprof, EVIL_SHOWN);
	run_clean(TT_ARGS("diff", rec, "tests/fixtures/recording/hot-lock-1.1.json"), EVIL_SHOWN);
	run_clean(TT_ARGS("diff", rec, rec, "--json"), EVIL_SHOWN);
}

/* Issue 30 item 4: before, "cannot read /proc/N/status: Invalid argument"
 * (exit 3), and with -t "thread T is not a thread of process P". */
static void test_newline_in_name_traced(void **state)
{
	struct tt_workload w;
	json_object *doc;
	long long tid;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "hostile_names", TT_ARGS("ab\ncd", "ab\ncd", "30"));
	assert_int_equal(tt_field_list(w.ready, "tids", &tid, 1), 1);
	doc = tt_trace_until_done(&w, TT_ARGS("-t", tt_num(tid)), WORK_TIMEOUT_MS, END_TIMEOUT_MS);
	assert_string_equal(json_object_get_string(tt_get(doc, "target.comm")), "ab?cd");
	assert_int_equal(tt_u64(doc, "target.tid"), tid);
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), 30);	/* the thread's, exactly */
	assert_string_equal(json_object_get_string(tt_get(tt_thread(doc, tid), "comm")), "ab?cd");
	json_object_put(doc);
	tt_workload_end(&w);
}

/* ---- issue 30, 2 and 3: the metrics endpoint's neighbours ----------------- */

#define HELD 600		/* connections a local user holds open */
/* The server's deadline a connection (report/metrics_http.h) */
#define METRICS_DEADLINE_TEST_MS ((int)METRICS_HTTP_DEADLINE_MS)
#define SPINSCOPE_FDS 256	/* spinscope's descriptor limit for the run */

/* A connection to 127.0.0.1:port that has sent req (non-blocking, so a
 * full accept queue never blocks the test); -1 if none could be made. */
static int connect_send(int port, const char *req)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	if (poll(&p, 1, 1000) == 1 && req)
		(void)!send(fd, req, strlen(req), MSG_NOSIGNAL);
	return fd;
}

/* Reads fd until the server closes it (at most timeout_ms); what came. */
static size_t read_until_closed(int fd, char *buf, size_t size, int timeout_ms)
{
	long long end = tt_now_ms() + timeout_ms;
	size_t n = 0;

	for (long long now; (now = tt_now_ms()) < end;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue;
		r = recv(fd, buf + n, size - 1 - n, 0);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0 || (n += (size_t)r) == size - 1)
			break;
	}
	buf[n] = 0;
	return n;
}

static void test_metrics_neighbours_cannot_take_the_output(void **state)
{
	static char body[1 << 20];
	const char *rec = in_shared("m.json"), *folded = in_shared("m.folded"), *html = in_shared("m.html");
	static int held[HELD];
	struct rlimit rl, mine;
	struct tt_workload w;
	struct tt_trace t;
	char addr[32], hex[32], done[64];
	long long t0, closed_after = -1;
	int port = tt_free_port(), slow;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "hostile_names", TT_ARGS("server", "worker", "50"));
	snprintf(hex, sizeof(hex), "%llx", tt_field(w.ready, "lock"));
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", "0", "--no-calibrate", "--json",
				   "--metrics", addr, "-o", rec, "--folded", folded, "--html", html));
	/* spinscope's limit as `ulimit -n` would have it, soft and hard (it
	 * raises its soft one to the hard at start); the test's own large */
	rl = (struct rlimit){ .rlim_cur = SPINSCOPE_FDS, .rlim_max = SPINSCOPE_FDS };
	assert_int_equal(prlimit(t.proc.pid, RLIMIT_NOFILE, &rl, NULL), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &mine), 0);
	if (mine.rlim_max < HELD + 100)
		skip();
	rl = (struct rlimit){ .rlim_cur = HELD + 100, .rlim_max = mine.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	tt_workload_go(&w);
	tt_workload_wait_line(&w, "done", done, sizeof(done), WORK_TIMEOUT_MS);

	/* a local user's connections, each with half a request */
	for (int i = 0; i < HELD; i++)
		held[i] = connect_send(port, "GET /metrics HTTP/1.1\r\n");
	/* scrapes are still answered, whole, with no address in them; the
	 * series refresh each second: until one holds the mutex's */
	t0 = tt_now_ms();
	do {
		slow = connect_send(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
		assert_true(slow >= 0);
		read_until_closed(slow, body, sizeof(body), 3 * METRICS_DEADLINE_TEST_MS);
		close(slow);
		if (strncmp(body, "HTTP/1.1 200", 12))
			fail_msg("a scrape was not answered beside %d held connections: %.80s", HELD, body);
	} while (!strstr(body, "spinscope_futex_wait_seconds_total{") && tt_now_ms() - t0 < 10000);
	assert_non_null(strstr(body, "spinscope_futex_wait_seconds_total{"));
	if (strstr(body, hex) || strstr(body, "futex=\"0x"))
		fail_msg("the exposition holds the lock's address %s", hex);
	assert_non_null(strstr(body, "lock_id=\""));

	/* a slowloris: a byte every 250 ms does not keep it open */
	slow = connect_send(port, "GET /metrics HTTP/1.1\r\n");
	t0 = tt_now_ms();
	while (tt_now_ms() - t0 < 3 * METRICS_DEADLINE_TEST_MS) {
		struct pollfd p = { .fd = slow, .events = POLLIN };

		if (send(slow, "X", 1, MSG_NOSIGNAL) < 0 ||
		    (poll(&p, 1, 250) == 1 && recv(slow, done, sizeof(done), MSG_DONTWAIT) <= 0)) {
			closed_after = tt_now_ms() - t0;
			break;
		}
	}
	close(slow);
	if (closed_after < 0)
		fail_msg("a connection sending a byte every 250 ms was open after %d ms",
			 3 * METRICS_DEADLINE_TEST_MS);
	print_message("# slowloris closed after %lld ms\n", closed_after);

	/* the end, with every held connection still open on our side */
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	if (t.rc)
		fail_msg("exit %d with %d connections held: %s", t.rc, HELD, t.err);
	assert_null(strstr(t.err, "Too many open files"));
	assert_mode_0600(rec);
	assert_mode_0600(folded);
	assert_mode_0600(html);
	tt_trace_free(&t);
	for (int i = 0; i < HELD; i++)
		if (held[i] >= 0)
			close(held[i]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &mine), 0);
	tt_workload_end(&w);
}

/* ---- issue 30, 7: out of descriptors ------------------------------------- */

/* Before: "the kernel refused to load BPF program ...", exit 6. Each limit
 * runs out at another step (loading the maps, attaching): all say so. */
static void test_out_of_descriptors_says_so(void **state)
{
	static const char *const limits[] = { "12", "20", "40" };
	struct tt_bpf_mark mark;
	struct tt_workload w;
	char script[64];

	TL_REQUIRE_BPF();
	tt_bpf_mark(&mark);
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		char *out, *err;
		const char *line;
		int rc;

		snprintf(script, sizeof(script), "ulimit -n %s; exec \"$@\"", limits[i]);
		rc = tt_run(TT_ARGS("/bin/sh", "-c", script, "sh", tl_path("spinscope"), "-p",
				    tt_num(w.proc.pid), "-d", "0.5", "--no-calibrate", "--json"),
			    &out, &err, RUN_TIMEOUT_MS);
		line = last_line(err);
		if (rc != 7 || !strstr(line, "out of file descriptors") || !strstr(line, "ulimit -n"))
			fail_msg("ulimit -n %s: exit %d, expected 7 saying so: %s", limits[i], rc, line);
		if (!strstr(out, "\"exit_code\":7"))
			fail_msg("ulimit -n %s: no JSON error with exit code 7: %s", limits[i], out);
		free(out);
		free(err);
	}
	tt_workload_end(&w);
	tt_assert_nothing_left(&mark);
}

/* ---- issue 30, 8: capabilities instead of root ---------------------------- */

/* Runs `sh -c script` in a private mount namespace, with spinscope's
 * arguments after it ($1 the binary); exit status, stderr in *err. */
static int run_in_mntns(const char *script, int pid, char **err)
{
	char *out;
	int rc;

	rc = tt_run(TT_ARGS("/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script,
			    "sh", tl_path("spinscope"), "-p", tt_num(pid), "-d", "0.5", "--no-calibrate"),
		    &out, err, RUN_TIMEOUT_MS);
	free(out);
	return rc;
}

#define NOBODY_CAPS(caps) "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=" caps \
	" --ambient-caps=" caps " \"$@\""

/*
 * Before: with CAP_BPF and CAP_PERFMON only, "tracefs is not mounted"
 * (exit 5) whether it was or not, and a root restricted to them got
 * frames without names and no warning. Now: unmounted, it says who may
 * mount it; mounted (0700), that CAP_DAC_READ_SEARCH reads it; with that
 * and CAP_SYS_PTRACE, nobody traces root's process; root with the two
 * alone is told that its frames will lack names.
 */
static void test_capabilities_instead_of_root(void **state)
{
	static const char mounted[] = "mount -t tracefs nodev /sys/kernel/tracing || exit 99; exec ";
	char script[512], *err;
	struct tt_workload w;
	int rc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	snprintf(script, sizeof(script), "umount /sys/kernel/tracing /sys/kernel/debug/tracing 2>/dev/null; exec "
		 NOBODY_CAPS("+bpf,+perfmon"));
	rc = run_in_mntns(script, w.proc.pid, &err);
	if (rc != 4 || !strstr(last_line(err), "mounting it needs CAP_SYS_ADMIN"))
		fail_msg("unmounted tracefs: exit %d: %s", rc, err);
	free(err);
	snprintf(script, sizeof(script), "%s" NOBODY_CAPS("+bpf,+perfmon"), mounted);
	rc = run_in_mntns(script, w.proc.pid, &err);
	if (rc != 4 || !strstr(last_line(err), "CAP_DAC_READ_SEARCH"))
		fail_msg("tracefs 0700: exit %d: %s", rc, err);
	free(err);
	snprintf(script, sizeof(script), "%s" NOBODY_CAPS("+bpf,+perfmon,+dac_read_search,+sys_ptrace"),
		 mounted);
	rc = run_in_mntns(script, w.proc.pid, &err);
	if (rc || strstr(err, "warning"))
		fail_msg("nobody with four capabilities: exit %d: %s", rc, err);
	free(err);
	snprintf(script, sizeof(script), "%ssetpriv --bounding-set=-all,+bpf,+perfmon --inh-caps=-all \"$@\"",
		 mounted);
	rc = run_in_mntns(script, w.proc.pid, &err);
	if (rc || !strstr(err, "frames will be named module+offset"))
		fail_msg("root with two capabilities: exit %d, no warning: %s", rc, err);
	free(err);
	tt_workload_end(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_planted_symlink_refused, tt_teardown),
		cmocka_unit_test_teardown(test_symlink_planted_during_trace, tt_teardown),
		cmocka_unit_test_teardown(test_planted_fifo_refused_at_once, tt_teardown),
		cmocka_unit_test_teardown(test_full_disk_keeps_report_on_stdout, tt_teardown),
		cmocka_unit_test_teardown(test_unwritable_targets_refused_before_trace, tt_teardown),
		cmocka_unit_test_teardown(test_head_pipe_keeps_output_file, tt_teardown),
		cmocka_unit_test_teardown(test_dev_full_says_no_space, tt_teardown),
		cmocka_unit_test_teardown(test_closed_stdout_says_so, tt_teardown),
		cmocka_unit_test_teardown(test_json_argument_errors, tt_teardown),
		cmocka_unit_test_teardown(test_tid_exit_ends_trace, tt_teardown),
		cmocka_unit_test_teardown(test_perfmap_bind_mount_of_root_file_not_opened, tt_teardown),
		cmocka_unit_test_teardown(test_hostile_names_in_every_output, tt_teardown),
		cmocka_unit_test_teardown(test_hostile_names_in_newest_findings, tt_teardown),
		cmocka_unit_test_teardown(test_crafted_recording_replayed_clean, tt_teardown),
		cmocka_unit_test_teardown(test_newline_in_name_traced, tt_teardown),
		cmocka_unit_test_teardown(test_metrics_neighbours_cannot_take_the_output, tt_teardown),
		cmocka_unit_test_teardown(test_out_of_descriptors_says_so, tt_teardown),
		cmocka_unit_test_teardown(test_capabilities_instead_of_root, tt_teardown),
	};
	return cmocka_run_group_tests(tests, make_dirs, remove_dirs);
}

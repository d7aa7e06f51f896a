// SPDX-License-Identifier: GPL-2.0
/*
 * The live view in a real terminal: this binary runs itself
 * (--fake-view) in a tmux pane fed by canned refreshes (tests/lib/top_fake.c),
 * and the tests read the pane's screen as tmux draws it: rows sorted by
 * the key pressed, the filter, the threads view, Enter paging a -p report
 * (this binary again, answering "-p PID -d N --brief" with a canned one),
 * a resize redrawn at the new width, no control byte on the screen, the
 * help screen, and the view's own exit code on q, on a terminal that
 * closes (also while a report runs: the report gets SIGINT) and without a
 * terminal.
 */
#include "testlib.h"
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "top/top_view.h"
#include "top_fake.h"

#define WAIT_S 20		/* generous: the host runs other people's tests */
#define TABLE_ROW 4		/* the first row under the titles */

struct fx {
	char dir[64], sock[128], rcfile[128], self[4096];
};

static const char *tmux_path(void)
{
	return access("/usr/bin/tmux", X_OK) ? NULL : "/usr/bin/tmux";
}

/* tmux -S SOCK ARGS...: its exit code, stdout in *out (or freed). */
static int tmux(struct fx *fx, char **out, ...)
{
	char *argv[32] = { "/usr/bin/tmux", "-S", fx->sock, "-f", "/dev/null" };
	int n = 5, rc;
	char *o, *e;
	va_list ap;

	va_start(ap, out);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	rc = tl_run(argv, &o, &e);
	if (out)
		*out = o;
	else
		free(o);
	free(e);
	return rc;
}

static char *screen(struct fx *fx)
{
	char *s = NULL;

	if (tmux(fx, &s, "capture-pane", "-p", "-t", "v", NULL)) {
		free(s);
		return NULL;
	}
	return s;
}

/* Line n of the screen into buf ("" past its end). */
static void screen_line(const char *s, int n, char *buf, size_t size)
{
	for (; n > 0 && s && *s; n--)
		s = strchrnul(s, '\n') + (strchr(s, '\n') ? 1 : 0);
	snprintf(buf, size, "%.*s", s ? (int)(strchrnul(s, '\n') - s) : 0, s ? s : "");
}

/* Waits until line (or, -1, the whole screen) holds want; fails with the
 * screen when it never does. */
static void wait_screen(struct fx *fx, int line, const char *want)
{
	time_t until = time(NULL) + WAIT_S;
	char *s = NULL, buf[1024];

	while (time(NULL) < until) {
		free(s);
		s = screen(fx);
		if (line >= 0)
			screen_line(s, line, buf, sizeof(buf));
		if (s && strstr(line >= 0 ? buf : s, want)) {
			free(s);
			return;
		}
		usleep(50000);
	}
	fail_msg("line %d never showed '%s'; the screen:\n%s", line, want, s ? s : "(none)");
}

/* The view's exit code, once it wrote it; fails when it never does. */
static int wait_rc(struct fx *fx)
{
	time_t until = time(NULL) + WAIT_S;
	int rc = -1;

	while (time(NULL) < until) {
		FILE *f = fopen(fx->rcfile, "r");

		if (f && fscanf(f, "%d", &rc) == 1) {
			fclose(f);
			return rc;
		}
		if (f)
			fclose(f);
		usleep(50000);
	}
	fail_msg("the view never returned");
	return -1;
}

static int setup(void **state)
{
	static struct fx fx;
	ssize_t n;

	if (!tmux_path())
		return 0;
	memset(&fx, 0, sizeof(fx));
	snprintf(fx.dir, sizeof(fx.dir), "/tmp/ss-topview-XXXXXX");
	assert_non_null(mkdtemp(fx.dir));
	snprintf(fx.sock, sizeof(fx.sock), "%s/tmux", fx.dir);
	snprintf(fx.rcfile, sizeof(fx.rcfile), "%s/rc", fx.dir);
	n = readlink("/proc/self/exe", fx.self, sizeof(fx.self) - 1);
	assert_true(n > 0);
	fx.self[n] = 0;
	unsetenv("TMUX");
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (!fx)
		return 0;
	tmux(fx, NULL, "kill-server", NULL);
	unlink(fx->rcfile);
	unlink(fx->sock);
	rmdir(fx->dir);
	return 0;
}

/* A pane of width x height running the view; waits for its first rows. */
static struct fx *start_view(void **state, const char *width, const char *height)
{
	struct fx *fx = *state;

	if (!fx) {
		print_message("skip: tmux is not installed (apt-get install tmux)\n");
		skip();
	}
	assert_int_equal(tmux(fx, NULL, "new-session", "-d", "-s", "v", "-x", width, "-y", height,
			      fx->self, "--fake-view", fx->rcfile, NULL), 0);
	wait_screen(fx, TABLE_ROW, "locky");
	return fx;
}

static void keys(struct fx *fx, const char *k)
{
	assert_int_equal(tmux(fx, NULL, "send-keys", "-t", "v", k, NULL), 0);
}

static void test_rows_sorted_by_the_key_pressed(void **state)
{
	struct fx *fx = start_view(state, "140", "40");

	wait_screen(fx, 3, "LOCKWAITv");		/* the first sort: lock wait */
	keys(fx, "y");
	wait_screen(fx, 3, "YIELDSv");
	wait_screen(fx, TABLE_ROW, "spinner");
	keys(fx, "e");
	wait_screen(fx, TABLE_ROW, "idlepool");
	keys(fx, "e");					/* again: the other order */
	wait_screen(fx, 3, "EVWAIT^");
	keys(fx, "<");					/* the column before: LOCKWAIT */
	wait_screen(fx, 3, "LOCKWAITv");
	wait_screen(fx, TABLE_ROW, "locky");
	keys(fx, "?");					/* help, and any key back */
	wait_screen(fx, 0, "spinscope top: keys");
	keys(fx, "x");
	wait_screen(fx, 3, "LOCKWAITv");
	keys(fx, "q");
	assert_int_equal(wait_rc(fx), 0);
}

static void test_filter_threads_and_no_control_bytes(void **state)
{
	struct fx *fx = start_view(state, "140", "40");
	char *s, line[1024];

	keys(fx, "/");
	keys(fx, "pool");
	wait_screen(fx, 2, "filter (name, container, unit");
	keys(fx, "Enter");
	wait_screen(fx, 2, "filter: pool");
	s = screen(fx);
	screen_line(s, TABLE_ROW, line, sizeof(line));
	assert_non_null(strstr(line, "idlepool"));
	screen_line(s, TABLE_ROW + 1, line, sizeof(line));
	assert_null(strstr(line, "noise"));		/* one row only */
	free(s);
	/* The escape in a name is shown, never sent. */
	keys(fx, "/");
	keys(fx, "Escape");
	keys(fx, "/");
	keys(fx, "odd");
	keys(fx, "Enter");
	wait_screen(fx, TABLE_ROW, "odd?[31m");
	/* Threads of the lock-heavy process. */
	keys(fx, "/");
	keys(fx, "Escape");
	wait_screen(fx, TABLE_ROW, "locky");
	keys(fx, "t");				/* odd, still selected, has no threads */
	wait_screen(fx, -1, "no per-thread figures for PID 500");
	keys(fx, "Home");
	keys(fx, "t");
	wait_screen(fx, 3, "TID");
	wait_screen(fx, -1, "locky-w3");
	keys(fx, "t");
	wait_screen(fx, 3, "PID");
	keys(fx, "q");
	assert_int_equal(wait_rc(fx), 0);
}

/* Enter: the -p report on the selected row, paged; q back to the table. */
static void test_enter_pages_the_report(void **state)
{
	struct fx *fx = start_view(state, "140", "30");

	keys(fx, "Enter");
	wait_screen(fx, 0, "spinscope -p 100 -d 1 --brief: exit 0");
	wait_screen(fx, 1, "fake report: -p 100 -d 1 --brief");
	keys(fx, "NPage");
	wait_screen(fx, -1, "report line 40");
	keys(fx, "q");
	wait_screen(fx, 3, "LOCKWAIT");
	keys(fx, "q");
	assert_int_equal(wait_rc(fx), 0);
}

/* A wider terminal: the host line, cut at 60 columns, is drawn whole. */
static void test_resize_redraws_at_the_new_width(void **state)
{
	struct fx *fx = start_view(state, "60", "20");
	char *s, line[1024];

	s = screen(fx);
	screen_line(s, 0, line, sizeof(line));
	assert_null(strstr(line, "every 0.3s"));
	free(s);
	assert_int_equal(tmux(fx, NULL, "resize-window", "-t", "v", "-x", "150", "-y", "45", NULL), 0);
	wait_screen(fx, 0, "every 0.3s");
	wait_screen(fx, 3, "VERDICT");
	keys(fx, "q");
	assert_int_equal(wait_rc(fx), 0);
}

/* The terminal closes under the view: it returns (0) on its own. */
static void test_closed_terminal_ends_the_view(void **state)
{
	struct fx *fx = start_view(state, "100", "30");

	assert_int_equal(tmux(fx, NULL, "kill-session", "-t", "v", NULL), 0);
	assert_int_equal(wait_rc(fx), 0);
}

/* No terminal: one line pointing at the batch output, exit 2, no screen. */
static void test_no_terminal_is_a_usage_error(void **state)
{
	struct fx *fx = *state;
	char *out, *err;
	int rc;

	if (!fx) {
		print_message("skip: tmux is not installed (apt-get install tmux)\n");
		skip();
	}
	rc = tl_run((char *const[]){ fx->self, "--fake-view", fx->rcfile, NULL }, &out, &err);
	assert_int_equal(rc, 2);
	assert_string_equal(out, "");
	if (!strstr(err, "needs a terminal") || !strstr(err, "-b") ||
	    strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("expected one line pointing at -b, got: %s", err);
	free(out);
	free(err);
}

/* The terminal closes while Enter's report runs (30 s here): the report
 * gets SIGINT (it writes a mark), and the view returns well before. */
static void test_closed_terminal_during_a_report(void **state)
{
	struct fx *fx = *state;
	char mark[160], started[200];
	time_t t0;

	if (fx) {
		snprintf(mark, sizeof(mark), "%s/interrupted", fx->dir);
		setenv("FAKE_REPORT_SECONDS", "30", 1);
		setenv("FAKE_REPORT_MARK", mark, 1);
	}
	fx = start_view(state, "100", "30");
	keys(fx, "Enter");
	wait_screen(fx, -1, "tracing PID 100 for 30 s");
	snprintf(started, sizeof(started), "%s.started", mark);
	for (int i = 0; i < 300 && access(started, F_OK); i++)
		usleep(100000);
	assert_int_equal(access(started, F_OK), 0);
	unlink(started);
	t0 = time(NULL);
	assert_int_equal(tmux(fx, NULL, "kill-session", "-t", "v", NULL), 0);
	assert_int_equal(wait_rc(fx), 0);
	print_message("# the view returned %lld s after the hang-up\n", (long long)(time(NULL) - t0));
	assert_true(time(NULL) - t0 < 30);
	assert_int_equal(access(mark, F_OK), 0);
	unlink(mark);
	unsetenv("FAKE_REPORT_SECONDS");
	unsetenv("FAKE_REPORT_MARK");
}

/* This binary run by the tests above: the view, or a -p report. */
static int fake_view(const char *rcfile)
{
	const char *secs = getenv("FAKE_REPORT_SECONDS");
	struct top_view_opts o = { .report_seconds = secs ? (unsigned int)strtoul(secs, NULL, 10) : 1,
				   .sort = TOP_COL_LOCKWAIT };
	struct top_fake f;
	FILE *out;
	int rc;

	if (top_fake_init(&f, 300, 30))
		return 7;
	rc = top_view_run(top_fake_refresh, &f, &o);
	top_fake_free(&f);
	out = fopen(rcfile, "w");
	if (out) {
		fprintf(out, "%d\n", rc);
		fclose(out);
	}
	return rc;
}

static volatile sig_atomic_t report_interrupted;

static void on_report_sigint(int sig)
{
	(void)sig;
	report_interrupted = 1;
}

/* "-p PID -d N --brief": waits N seconds as a trace would (SIGINT ends it
 * early, leaving FAKE_REPORT_MARK), then prints 80 lines. */
static int fake_report(int argc, char **argv)
{
	unsigned int secs = argc > 4 ? (unsigned int)strtoul(argv[4], NULL, 10) : 0;
	const char *mark = getenv("FAKE_REPORT_MARK");

	signal(SIGINT, on_report_sigint);
	/* ready for SIGINT: the test hangs up only after this (a child slow
	 * to start, as under ASan, would die of the default action first) */
	if (mark) {
		char started[200];
		FILE *m;

		snprintf(started, sizeof(started), "%s.started", mark);
		if ((m = fopen(started, "w")))
			fclose(m);
	}
	for (unsigned int i = 0; i < secs * 10 && !report_interrupted; i++)
		usleep(100000);
	if (report_interrupted && mark) {
		FILE *m = fopen(mark, "w");

		if (m)
			fclose(m);
	}
	printf("fake report:");
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	for (int i = 1; i <= 80; i++)
		printf("report line %02d\n", i);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows_sorted_by_the_key_pressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_threads_and_no_control_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enter_pages_the_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resize_redraws_at_the_new_width, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_terminal_ends_the_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_terminal_is_a_usage_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_terminal_during_a_report, setup, teardown),
	};

	if (argc == 3 && !strcmp(argv[1], "--fake-view"))
		return fake_view(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "-p"))
		return fake_report(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c: option parsing of `spinscope -p PID ...`. Every bad argument must
 * end in SS_EXIT_USAGE with a message that names what was wrong, and the
 * parser must give the same answer however many times it runs.
 */
#include "testlib.h"
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "common/errors.h"

#define MAX_ARGS 32

/* Parses a NULL-terminated list of arguments (argv[0] added here). getopt
 * permutes argv, so each call gets its own writable copy. */
static enum ss_opts_cmd parse_cmd = SS_OPTS_TRACE;

static int parse_list(struct ss_opts *o, char *err, size_t errlen, const char *const *args)
{
	static char store[MAX_ARGS][128];
	char *argv[MAX_ARGS + 1];
	int argc = 0;

	snprintf(store[argc], sizeof(store[0]), "spinscope");
	argv[argc] = store[argc];
	argc++;
	for (; *args; args++, argc++) {
		assert_true(argc < MAX_ARGS);
		snprintf(store[argc], sizeof(store[0]), "%s", *args);
		argv[argc] = store[argc];
	}
	argv[argc] = NULL;
	err[0] = 0;
	return parse_cmd == SS_OPTS_TRACE ? ss_opts_parse(argc, argv, o, err, errlen) :
	       ss_opts_parse_cmd(argc, argv, parse_cmd, o, err, errlen);
}

#define PARSE(o, err, ...) \
	parse_list((o), (err), sizeof(err), (const char *const[]){ __VA_ARGS__, NULL })

static void test_defaults(void **state)
{
	struct ss_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "-p", "1234"), 0);
	assert_string_equal(err, "");
	assert_int_equal(o.pid, 1234);
	assert_int_equal(o.tid, 0);
	assert_true(o.duration_s == 10.0);
	assert_true(o.interval_s == 0.0);
	assert_false(o.json);
	assert_false(o.light);
	assert_int_equal(o.verbose, 0);
	assert_null(o.btf_path);
	assert_int_equal(o.max_threads, 4096);
	assert_int_equal(o.max_futexes, 4096);
	assert_int_equal(o.max_stacks, 2048);
	assert_null(o.event);
	assert_null(o.out.path[SS_OUT_FOLDED]);
	assert_false(o.help);
	assert_false(o.version);
}

/* ss_opts_init gives the same defaults the parser starts from. */
static void test_init_matches_parse_defaults(void **state)
{
	struct ss_opts a, b;
	char err[256];

	ss_opts_init(&a);
	assert_int_equal(PARSE(&b, err, "-p", "1"), 0);
	b.pid = 0;
	assert_memory_equal(&a, &b, sizeof(a));
}

static void test_every_short_option(void **state)
{
	struct ss_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "-p", "77", "-t", "78", "-d", "2.5", "-i", "0.5", "-j",
			       "-v", "-v"), 0);
	assert_int_equal(o.pid, 77);
	assert_int_equal(o.tid, 78);
	assert_true(o.duration_s == 2.5);
	assert_true(o.interval_s == 0.5);
	assert_true(o.json);
	assert_int_equal(o.verbose, 2);
}

static void test_every_long_option(void **state)
{
	struct ss_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "--pid", "77", "--tid=78", "--duration", "3",
			       "--interval=1", "--json", "--verbose", "--btf", "/tmp/vmlinux.btf",
			       "--max-threads", "16", "--max-futexes=1048576", "--max-stacks", "100",
			       "--event", "cache-misses", "--folded", "/tmp/out.folded",
			       "--pprof", "/tmp/out.pb.gz", "--metrics", "127.0.0.1:9500",
			       "--metrics-file=/tmp/out.prom", "--light"), 0);
	assert_true(o.light);
	assert_int_equal(o.pid, 77);
	assert_int_equal(o.tid, 78);
	assert_true(o.duration_s == 3.0);
	assert_true(o.interval_s == 1.0);
	assert_true(o.json);
	assert_int_equal(o.verbose, 1);
	assert_string_equal(o.btf_path, "/tmp/vmlinux.btf");
	assert_int_equal(o.max_threads, 16);
	assert_int_equal(o.max_futexes, 1048576);
	assert_int_equal(o.max_stacks, 100);
	assert_string_equal(o.event, "cache-misses");
	assert_string_equal(o.out.path[SS_OUT_FOLDED], "/tmp/out.folded");
	assert_string_equal(o.out.path[SS_OUT_PPROF], "/tmp/out.pb.gz");
	assert_string_equal(o.metrics_addr, "127.0.0.1:9500");
	assert_string_equal(o.out.path[SS_OUT_METRICS_FILE], "/tmp/out.prom");
}

/* --attach: the three modes, auto by default; anything else, and a forced
 * mode with --light (which attaches no syscall program), is a usage error. */
static void test_attach_modes(void **state)
{
	static const struct { const char *arg; enum tracer_attach want; } ok[] = {
		{ "--attach=auto", TRACER_ATTACH_AUTO },
		{ "--attach=fentry", TRACER_ATTACH_FENTRY },
		{ "--attach=tracepoint", TRACER_ATTACH_TRACEPOINT },
	};
	struct ss_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-p", "1"), 0);
	assert_int_equal(o.attach, TRACER_ATTACH_AUTO);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(PARSE(&o, err, "-p", "1", ok[i].arg), 0);
		assert_int_equal(o.attach, ok[i].want);
	}
	assert_int_equal(PARSE(&o, err, "-p", "1", "--attach", "fentry"), 0);
	assert_int_equal(o.attach, TRACER_ATTACH_FENTRY);
	assert_int_equal(PARSE(&o, err, "-p", "1", "--attach=kprobe"), 2);
	assert_string_equal(err, "--attach takes auto, fentry or tracepoint, not 'kprobe'");
	assert_int_equal(PARSE(&o, err, "-p", "1", "--attach=FENTRY"), 2);
	assert_int_equal(PARSE(&o, err, "-p", "1", "--light", "--attach=auto"), 0);
	assert_int_equal(PARSE(&o, err, "-p", "1", "--light", "--attach=tracepoint"), 2);
	assert_non_null(strstr(err, "--light attaches no syscall program"));
}

/* --brief: the header and the verdict; it shortens the text report, so
 * with --json it is a usage error rather than silently ignored. */
static void test_brief(void **state)
{
	struct ss_opts o;
	char err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "-p", "1"), 0);
	assert_false(o.brief);
	assert_int_equal(PARSE(&o, err, "-p", "1", "--brief"), 0);
	assert_true(o.brief);
	assert_int_equal(PARSE(&o, err, "-p", "1", "--brief", "--json"), 2);
	assert_non_null(strstr(err, "--brief shortens the text report"));
}

/* The demo parses with the trace's parser: every option the trace takes
 * but -p and -t, its own defaults, no target needed. */
static void test_demo_takes_the_trace_options(void **state)
{
	struct ss_opts o;
	char err[256];

	(void)state;
	parse_cmd = SS_OPTS_DEMO;
	assert_int_equal(PARSE(&o, err, "--brief"), 0);
	assert_float_equal(o.duration_s, 4, 0);
	assert_string_equal(o.event, "cpu-clock");
	assert_true(o.brief);
	assert_int_equal(PARSE(&o, err, "-d", "2", "--pprof", "x.pb.gz", "--event", "task-clock",
			       "-i", "1"), 0);
	assert_float_equal(o.duration_s, 2, 0);
	assert_string_equal(o.out.path[SS_OUT_PPROF], "x.pb.gz");
	assert_string_equal(o.event, "task-clock");
	assert_int_equal(PARSE(&o, err, "-p", "1"), 2);
	assert_non_null(strstr(err, "the demo traces its own workload: -p"));
	assert_int_equal(PARSE(&o, err, "-t", "1"), 2);
	assert_int_equal(PARSE(&o, err, "--bogus"), 2);
	assert_int_equal(PARSE(&o, err, "--json", "--brief"), 2);
	parse_cmd = SS_OPTS_TRACE;
	assert_int_equal(PARSE(&o, err, "--brief"), 2);
	assert_non_null(strstr(err, "no target"));
}

/* Grouped short flags and an attached value, as getopt users expect. */
static void test_grouped_short_options(void **state)
{
	struct ss_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "-jvvp42", "-d0"), 0);
	assert_int_equal(o.pid, 42);
	assert_true(o.json);
	assert_int_equal(o.verbose, 2);
	assert_true(o.duration_s == 0.0);
}

static void test_duration_zero_means_until_signal(void **state)
{
	struct ss_opts o;
	char err[256];

	/* -i with -d 0 is fine: intervals until Ctrl-C. */
	assert_int_equal(PARSE(&o, err, "-p", "5", "-d", "0", "-i", "60"), 0);
	assert_true(o.duration_s == 0.0);
	assert_true(o.interval_s == 60.0);
	/* -i equal to -d prints exactly one interval: allowed. */
	assert_int_equal(PARSE(&o, err, "-p", "5", "-d", "2", "-i", "2"), 0);
}

/* Bad command lines: each must fail with SS_EXIT_USAGE and a message
 * holding both fragments (what was wrong, and the value or option). */
static const struct usage_case {
	const char *what;
	const char *frag1, *frag2;
	const char *args[8];
} usage_cases[] = {
	{ "bad pid", "-p", "'abc'", { "-p", "abc" } },
	{ "bad pid", "-p", "'12x'", { "-p", "12x" } },
	{ "bad pid", "-p", "'0'", { "-p", "0" } },
	{ "bad pid", "-p", "'-3'", { "-p", "-3" } },
	{ "bad pid", "-p", "''", { "-p", "" } },
	{ "bad pid", "-p", "'2147483648'", { "-p", "2147483648" } },
	{ "bad pid", "-p", "'99999999999999999999'", { "-p", "99999999999999999999" } },
	{ "bad pid", "-p", "'1.5'", { "--pid=1.5" } },
	{ "bad tid", "-t", "'x'", { "-p", "1", "-t", "x" } },
	{ "bad tid", "-t", "'0'", { "-p", "1", "-t", "0" } },
	{ "bad tid", "-t", "'-1'", { "-p", "1", "-t", "-1" } },
	{ "bad duration", "-d", "'-1'", { "-p", "1", "-d", "-1" } },
	{ "bad duration", "-d", "'-0.5'", { "-p", "1", "-d", "-0.5" } },
	{ "bad duration", "-d", "'ten'", { "-p", "1", "-d", "ten" } },
	{ "bad duration", "-d", "'5s'", { "-p", "1", "-d", "5s" } },
	{ "bad duration", "-d", "'inf'", { "-p", "1", "-d", "inf" } },
	{ "bad duration", "-d", "'nan'", { "-p", "1", "-d", "nan" } },
	{ "bad duration", "-d", "'1e300'", { "-p", "1", "-d", "1e300" } },
	{ "bad interval", "-i", "'0'", { "-p", "1", "-i", "0" } },
	{ "bad interval", "-i", "'0.001'", { "-p", "1", "-i", "0.001" } },
	{ "bad interval", "-i", "'-2'", { "-p", "1", "-i", "-2" } },
	{ "bad interval", "-i", "'x'", { "-p", "1", "-i", "x" } },
	{ "interval longer than duration", "-i", "-d", { "-p", "1", "-d", "2", "-i", "3" } },
	{ "interval longer than duration", "-i", "longer", { "-i", "10.5", "-p", "1" } },
	{ "bad map sizes", "map sizes", "'15'", { "-p", "1", "--max-threads", "15" } },
	{ "bad map sizes", "map sizes", "'1048577'", { "-p", "1", "--max-futexes", "1048577" } },
	{ "bad map sizes", "map sizes", "'many'", { "-p", "1", "--max-stacks", "many" } },
	{ "unknown option", "unknown option", "'-x'", { "-p", "1", "-x" } },
	{ "unknown option", "unknown option", "'--frobnicate'", { "-p", "1", "--frobnicate" } },
	{ "unknown option", "unknown option", "'-x'", { "-x", "-p", "1" } },
	/* Inside a group getopt has not passed the argument yet: the letter,
	 * not the argument before the group, must be named. */
	{ "unknown option in group", "unknown option", "-x", { "-p", "1", "-xj" } },
	{ "unknown option in group", "unknown option", "-x", { "-xj", "-p", "1" } },
	{ "unknown option in group", "unknown option", "-x", { "-jx", "-p", "1" } },
	{ "missing value", "needs a value", "'-p'", { "-p" } },
	{ "missing value", "needs a value", "'-d'", { "-p", "1", "-d" } },
	{ "missing value", "needs a value", "'--interval'", { "-p", "1", "--interval" } },
	{ "missing value", "needs a value", "'--btf'", { "-p", "1", "--btf" } },
	{ "missing value", "needs a value", "'--max-stacks'", { "-p", "1", "--max-stacks" } },
	{ "stray argument", "unexpected argument", "'extra'", { "-p", "1", "extra" } },
	{ "stray argument", "unexpected argument", "'extra'", { "extra", "-p", "1" } },
	{ "stray argument", "unexpected argument", "'-d'", { "-p", "1", "--", "-d" } },
	{ "no pid", "no target", "-p PID", { "-d", "1" } },
	{ "no pid", "no target", "-p PID", { "--json" } },
	{ "no pid", "no target", "-p PID", { "-t", "5" } },
};

static void test_usage_errors(void **state)
{
	for (size_t i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++) {
		const struct usage_case *c = &usage_cases[i];
		struct ss_opts o;
		char err[256];
		int rc = parse_list(&o, err, sizeof(err), c->args);

		if (rc != SS_EXIT_USAGE || !strstr(err, c->frag1) || !strstr(err, c->frag2))
			fail_msg("case %zu (%s): rc %d, message '%s', wanted '%s' and '%s'", i,
				 c->what, rc, err, c->frag1, c->frag2);
	}
}

static void test_no_arguments_at_all(void **state)
{
	struct ss_opts o;
	char err[256];
	char arg0[] = "spinscope";
	char *argv[] = { arg0, NULL };

	assert_int_equal(ss_opts_parse(1, argv, &o, err, sizeof(err)), SS_EXIT_USAGE);
	assert_non_null(strstr(err, "-p PID"));
}

static void test_help_and_version_need_no_pid(void **state)
{
	struct ss_opts o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "--help"), 0);
	assert_true(o.help);
	assert_false(o.version);
	assert_int_equal(PARSE(&o, err, "-h"), 0);
	assert_true(o.help);
	assert_int_equal(PARSE(&o, err, "--version"), 0);
	assert_true(o.version);
	assert_false(o.help);
	assert_int_equal(PARSE(&o, err, "-V"), 0);
	assert_true(o.version);
	/* --help wins over a later bad argument: the user asked for help. */
	assert_int_equal(PARSE(&o, err, "-p", "1", "--help", "-x"), 0);
	assert_true(o.help);
	/* ...but a bad argument before it is still reported. */
	assert_int_equal(PARSE(&o, err, "-x", "--help"), SS_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option '-x'"));
}

/* A parse that failed halfway through a group of short options must not
 * leak getopt state into the next parse. */
static void test_reentrant(void **state)
{
	struct ss_opts o;
	char err[256];

	for (int round = 0; round < 3; round++) {
		assert_int_equal(PARSE(&o, err, "-p", "1", "-xj"), SS_EXIT_USAGE);
		assert_int_equal(PARSE(&o, err, "-vj"), SS_EXIT_USAGE);	/* no -p */
		assert_int_equal(PARSE(&o, err, "-p", "31", "-d", "4"), 0);
		assert_int_equal(o.pid, 31);
		assert_true(o.duration_s == 4.0);
		/* Nothing from earlier parses survives. */
		assert_false(o.json);
		assert_int_equal(o.verbose, 0);
		assert_int_equal(PARSE(&o, err, "--pid=32", "-t", "33"), 0);
		assert_int_equal(o.pid, 32);
		assert_int_equal(o.tid, 33);
		assert_true(o.duration_s == 10.0);
	}
}

/* A message that would not fit is cut, never overflows err. */
static void test_small_error_buffer(void **state)
{
	struct ss_opts o;
	char err[12];

	memset(err, 'Z', sizeof(err));
	assert_int_equal(PARSE(&o, err, "-p", "not-a-number-at-all"), SS_EXIT_USAGE);
	assert_int_equal(strlen(err), sizeof(err) - 1);
}

static void test_parse_int(void **state)
{
	long v = -7;

	assert_int_equal(ss_parse_int("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ss_parse_int("10", 0, 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(ss_parse_int("-10", -10, 10, &v), 0);
	assert_int_equal(v, -10);
	v = 99;
	assert_int_equal(ss_parse_int("11", 0, 10, &v), -1);
	assert_int_equal(ss_parse_int("-11", -10, 10, &v), -1);
	assert_int_equal(ss_parse_int("", 0, 10, &v), -1);
	assert_int_equal(ss_parse_int(NULL, 0, 10, &v), -1);
	assert_int_equal(ss_parse_int("3 ", 0, 10, &v), -1);
	assert_int_equal(ss_parse_int("3x", 0, 10, &v), -1);
	assert_int_equal(ss_parse_int("0x3", 0, 10, &v), -1);
	assert_int_equal(ss_parse_int("1.0", 0, 10, &v), -1);
	assert_int_equal(ss_parse_int("9223372036854775808", LONG_MIN, LONG_MAX, &v), -1);
	/* A failed parse leaves *out alone. */
	assert_int_equal(v, 99);
	assert_int_equal(ss_parse_int("9223372036854775807", LONG_MIN, LONG_MAX, &v), 0);
	assert_true(v == LONG_MAX);
}

static void test_parse_double(void **state)
{
	double v = -7;

	assert_int_equal(ss_parse_double("0", 0, 1, &v), 0);
	assert_true(v == 0.0);
	assert_int_equal(ss_parse_double("0.25", 0, 1, &v), 0);
	assert_true(v == 0.25);
	assert_int_equal(ss_parse_double("1", 0, 1, &v), 0);
	assert_true(v == 1.0);
	assert_int_equal(ss_parse_double("2.5e-1", 0, 1, &v), 0);
	assert_true(v == 0.25);
	v = 99;
	assert_int_equal(ss_parse_double("1.0001", 0, 1, &v), -1);
	assert_int_equal(ss_parse_double("-0.1", 0, 1, &v), -1);
	assert_int_equal(ss_parse_double("", 0, 1, &v), -1);
	assert_int_equal(ss_parse_double(NULL, 0, 1, &v), -1);
	assert_int_equal(ss_parse_double(".5s", 0, 1, &v), -1);
	assert_int_equal(ss_parse_double("nan", -DBL_MAX, DBL_MAX, &v), -1);
	assert_int_equal(ss_parse_double("inf", -DBL_MAX, DBL_MAX, &v), -1);
	assert_int_equal(ss_parse_double("1e999", -DBL_MAX, DBL_MAX, &v), -1);
	assert_true(v == 99);
}

/* --help documents every option and every exit code. */
static void test_help_text(void **state)
{
	static const char *const must[] = {
		"usage: spinscope -p PID", "-p, --pid", "-t, --tid", "-d, --duration",
		"-i, --interval", "--json", "-v, --verbose", "--btf FILE", "--max-threads",
		"--max-futexes", "--max-stacks", "--event EVENT", "--folded FILE", "--pprof FILE",
		"--metrics [ADDR:]PORT", "--metrics-file FILE", "-h, --help",
		"-V, --version", "demo", "Exit codes:",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ss_print_help(f);
	assert_int_equal(fclose(f), 0);
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		if (!strstr(buf, must[i]))
			fail_msg("--help lacks '%s'", must[i]);
	}
	assert_non_null(strstr(buf, ss_exit_codes_help));
	free(buf);
}

/* Errors found before a parser ran honour --json too; "--" ends options. */
static void test_argv_wants_json(void **state)
{
	char *with[] = { "spinscope", "demo", "--bogus", "--json", NULL };
	char *after_dashdash[] = { "spinscope", "demo", "--", "--json", NULL };
	char *without[] = { "spinscope", "-p", "1", "-j", NULL };

	assert_true(ss_argv_wants_json(4, with));
	assert_false(ss_argv_wants_json(4, after_dashdash));
	assert_false(ss_argv_wants_json(4, without));
	assert_false(ss_argv_wants_json(1, with));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_wants_json),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_init_matches_parse_defaults),
		cmocka_unit_test(test_every_short_option),
		cmocka_unit_test(test_every_long_option),
		cmocka_unit_test(test_grouped_short_options),
		cmocka_unit_test(test_duration_zero_means_until_signal),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_no_arguments_at_all),
		cmocka_unit_test(test_help_and_version_need_no_pid),
		cmocka_unit_test(test_reentrant),
		cmocka_unit_test(test_small_error_buffer),
		cmocka_unit_test(test_attach_modes),
		cmocka_unit_test(test_brief),
		cmocka_unit_test(test_demo_takes_the_trace_options),
		cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_help_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

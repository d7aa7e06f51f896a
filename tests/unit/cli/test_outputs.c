// SPDX-License-Identifier: GPL-2.0
/*
 * outputs.c: the table of files a command writes. Each row must be whole,
 * reachable through the option parser of every command it names (and
 * refused by the others), listed in --help, checked before any work and,
 * when its write fails, said in one line with the row's own words.
 * options.c: the shared options, in the table of the commands that take
 * them and of no other, taken into the command's fields.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include <getopt.h>
#include "cli/options.h"
#include "cli/outputs.h"
#include "common/errors.h"

static void test_every_row_is_whole(void **state)
{
	for (int k = 0; k < SS_NOUTPUTS; k++) {
		const struct ss_output_format *f = &ss_outputs[k];

		assert_non_null(f->option);
		assert_non_null(f->what);
		assert_non_null(f->help);
		assert_non_null(f->write);
		assert_true(f->commands != 0);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(f->option, ss_outputs[j].option);
	}
}

/* --OPTION FILE given to the trace's parser lands in out.path[kind]. */
static void test_trace_parser_takes_every_row(void **state)
{
	for (int k = 0; k < SS_NOUTPUTS; k++) {
		char opt[64], err[256], *argv[6];
		struct ss_opts o;

		if (!(ss_outputs[k].commands & SS_CMD_TRACE))
			continue;
		snprintf(opt, sizeof(opt), "--%s", ss_outputs[k].option);
		argv[0] = "spinscope";
		argv[1] = "-p";
		argv[2] = "1";
		argv[3] = opt;
		argv[4] = "/tmp/x";
		argv[5] = NULL;
		assert_int_equal(ss_opts_parse(5, argv, &o, err, sizeof(err)), 0);
		for (int j = 0; j < SS_NOUTPUTS; j++)
			if (j == k)
				assert_string_equal(o.out.path[j], "/tmp/x");
			else
				assert_null(o.out.path[j]);
	}
}

static void test_short_option_of_the_recording(void **state)
{
	char *argv[] = { "spinscope", "-p", "1", "-o", "/tmp/r.json.zst", NULL };
	char err[256];
	struct ss_opts o;

	assert_int_equal(ss_outputs[SS_OUT_RECORDING].short_option, 'o');
	assert_int_equal(ss_opts_parse(5, argv, &o, err, sizeof(err)), 0);
	assert_string_equal(o.out.path[SS_OUT_RECORDING], "/tmp/r.json.zst");
}

static void test_help_lists_every_row(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ss_print_help(f);
	fclose(f);
	for (int k = 0; k < SS_NOUTPUTS; k++) {
		char opt[64];

		snprintf(opt, sizeof(opt), "--%s FILE", ss_outputs[k].option);
		if (!strstr(buf, opt))
			fail_msg("--help does not list %s", opt);
	}
	free(buf);
}

/* A directory that does not exist: refused before any work, the row's
 * words in the line. */
static void test_check_refuses_before_work(void **state)
{
	struct ss_output_paths p = { 0 };

	p.path[SS_OUT_HTML] = "/nonexistent-dir-of-spinscope/page.html";
	assert_int_not_equal(outputs_check(&p), 0);
	p.path[SS_OUT_HTML] = NULL;
	assert_int_equal(outputs_check(&p), 0);
	assert_false(outputs_any(&p, 0));
	p.path[SS_OUT_PPROF] = "/tmp/x.pb.gz";
	assert_true(outputs_any(&p, 0));
	assert_true(outputs_any(&p, 1u << SS_OUT_PPROF));
	assert_false(outputs_any(&p, 1u << SS_OUT_FOLDED));
}

struct failures {
	int n;
	char what[128];
};

static int count_failed(void *arg, const char *what, const char *path, const char *why)
{
	struct failures *fl = arg;

	fl->n++;
	snprintf(fl->what, sizeof(fl->what), "%s", what);
	return 42;
}

/* Only the stage asked for is written; a failure is reported with the
 * row's words and its code comes back. */
static void test_write_by_stage(void **state)
{
	struct ss_output_paths p = { 0 };
	struct ss_output_src src = { 0 };
	struct failures fl = { 0 };

	p.path[SS_OUT_RECORDING] = "/nonexistent-dir-of-spinscope/r.json";
	assert_int_equal(outputs_write(&p, SS_STAGE_REPORT, &src, count_failed, &fl), 0);
	assert_int_equal(fl.n, 0);
	src.doc = json_object_new_object();
	assert_int_equal(outputs_write(&p, SS_STAGE_DOCUMENT, &src, count_failed, &fl), 42);
	assert_int_equal(fl.n, 1);
	assert_string_equal(fl.what, ss_outputs[SS_OUT_RECORDING].what);
	json_object_put(src.doc);
}

static bool in_table(const struct option *t, const char *name)
{
	for (; t->name; t++)
		if (!strcmp(t->name, name))
			return true;
	return false;
}

/* Each command's table: its shared options and files, nothing more. */
static void test_tables_by_command(void **state)
{
	bool json = false, help = false, brief = false;
	const char *cal = NULL;
	struct ss_output_paths out = { 0 };
	const struct ss_shared_dest diff = { .json = &json, .help = &help };
	const struct ss_shared_dest report = { .json = &json, .brief = &brief, .help = &help,
					       .calibration = &cal, .out = &out };
	const struct option own[] = { { "symbols", required_argument, NULL, 's' } };
	struct option t[1 + SS_OPTIONS_EXTRA];

	options_table(t, NULL, 0, SS_CMD_DIFF, &diff);
	assert_true(in_table(t, "json") && in_table(t, "help"));
	assert_false(in_table(t, "brief") || in_table(t, "calibration") || in_table(t, "html"));
	options_table(t, own, 1, SS_CMD_REPORT, &report);
	assert_true(in_table(t, "symbols") && in_table(t, "brief") && in_table(t, "calibration"));
	for (int k = 0; k < SS_NOUTPUTS; k++)
		assert_int_equal(in_table(t, ss_outputs[k].option),
				 !!(ss_outputs[k].commands & SS_CMD_REPORT));
	assert_true(options_take(SS_OPT_CALIBRATION, "c.json", &report));
	assert_string_equal(cal, "c.json");
	assert_true(options_take(SS_OPT_OUTPUT + SS_OUT_HTML, "p.html", &report));
	assert_string_equal(out.path[SS_OUT_HTML], "p.html");
	assert_true(options_take(SS_OPT_BRIEF, NULL, &report) && brief);
	assert_false(options_take(SS_OPT_BRIEF, NULL, &diff));
	assert_false(options_take('s', "dir", &report));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_is_whole),
		cmocka_unit_test(test_trace_parser_takes_every_row),
		cmocka_unit_test(test_short_option_of_the_recording),
		cmocka_unit_test(test_help_lists_every_row),
		cmocka_unit_test(test_check_refuses_before_work),
		cmocka_unit_test(test_write_by_stage),
		cmocka_unit_test(test_tables_by_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

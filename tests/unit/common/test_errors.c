// SPDX-License-Identifier: GPL-2.0
/* errors.c: the exit-code table, the JSON error object, warnings and notices. */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "common/errors.h"

static void test_error_returns_code(void **state)
{
	assert_int_equal(ss_error(SS_EXIT_TARGET, "pid %d: no such process", 42), SS_EXIT_TARGET);
}

/* Every documented exit code has its line in --help's table. */
static void test_exit_table_lists_every_code(void **state)
{
	for (int c = SS_EXIT_OK; c <= SS_EXIT_RESOURCES; c++) {
		char needle[16];

		snprintf(needle, sizeof(needle), "\n  %d  ", c);
		assert_non_null(strstr(ss_exit_codes_help, needle));
	}
}

/* Out of descriptors or memory is its own exit code, whatever the path
 * guessed (issue 30 item 7: ulimit -n 20 was "the kernel refused to load
 * BPF program", exit 6); other causes keep theirs. */
static void test_resources_have_their_own_code(void **state)
{
	assert_int_equal(ss_error(SS_EXIT_BPF, "the kernel refused to load BPF program p: %s",
				  strerror(EMFILE)), SS_EXIT_RESOURCES);
	assert_int_equal(ss_error(SS_EXIT_ERROR, "cannot write F: %s", strerror(ENFILE)),
			 SS_EXIT_RESOURCES);
	assert_int_equal(ss_error(SS_EXIT_ERROR, "cannot read R: %s", strerror(ENOMEM)),
			 SS_EXIT_RESOURCES);
	assert_int_equal(ss_error(SS_EXIT_ERROR, "diff: out of memory"), SS_EXIT_RESOURCES);
	assert_int_equal(ss_error(SS_EXIT_BPF, "refused: %s", strerror(EINVAL)), SS_EXIT_BPF);
	assert_int_equal(ss_error(SS_EXIT_ERROR, "cannot write F: %s", strerror(ENOSPC)), SS_EXIT_ERROR);
	/* a usage error that names such a file stays one */
	assert_int_equal(ss_error(SS_EXIT_USAGE, "no such file: %s", strerror(EMFILE)), SS_EXIT_USAGE);
}

static void test_json_error_object(void **state)
{
	char buf[512] = {0};
	FILE *f = tmpfile();
	int saved = dup(1);
	json_object *o;

	fflush(stdout);
	dup2(fileno(f), 1);
	ss_set_json_errors(true);
	ss_error(SS_EXIT_PERM, "needs CAP_BPF");
	ss_set_json_errors(false);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	o = json_tokener_parse(buf);
	assert_non_null(o);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "error")), "needs CAP_BPF");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "exit_code")), SS_EXIT_PERM);
	json_object_put(o);
}

/* Runs fn with stdout and stderr captured into out and err. */
static void capture(void (*fn)(void), char *out, char *err, size_t len)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int saved_out = dup(1), saved_err = dup(2);
	size_t n;

	assert_non_null(fo);
	assert_non_null(fe);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	fn();
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	rewind(fo);
	rewind(fe);
	n = fread(out, 1, len - 1, fo);
	out[n] = 0;
	n = fread(err, 1, len - 1, fe);
	err[n] = 0;
	fclose(fo);
	fclose(fe);
}

static void warn_and_notice_in_json_mode(void)
{
	ss_set_json_errors(true);
	ss_warn("maps may lock %d MiB", 80);
	ss_notice("tracing pid %d", 42);
	ss_set_json_errors(false);
}

/* In JSON mode stdout carries only JSON: a warning or a notice is one line
 * on stderr, in the same "spinscope: " form as an error, and nothing on
 * stdout. */
static void test_warn_and_notice_stay_off_stdout(void **state)
{
	char out[512], err[512];

	capture(warn_and_notice_in_json_mode, out, err, sizeof(out));
	assert_string_equal(out, "");
	assert_string_equal(err, "spinscope: warning: maps may lock 80 MiB\n"
				 "spinscope: tracing pid 42\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_returns_code),
		cmocka_unit_test(test_exit_table_lists_every_code),
		cmocka_unit_test(test_resources_have_their_own_code),
		cmocka_unit_test(test_json_error_object),
		cmocka_unit_test(test_warn_and_notice_stay_off_stdout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

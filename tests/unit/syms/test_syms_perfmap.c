// SPDX-License-Identifier: GPL-2.0
/* perfmap.c: JIT perf maps are written by the target, so hostile lines
 * must be refused one by one while good ones around them are kept. */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "syms/perfmap.h"

static int parse(const char *line, uint64_t *start, uint64_t *size, char *name, size_t cap)
{
	const char *n;
	size_t len;
	int r = perfmap__parse_line(line, strlen(line), start, size, &n, &len);

	if (!r)
		snprintf(name, cap, "%.*s", (int)len, n);
	return r;
}

static void test_parse_good_lines(void **state)
{
	uint64_t start, size;
	char name[256];

	assert_int_equal(parse("7f3c2d001000 40 LFoo;::bar", &start, &size, name, sizeof(name)), 0);
	assert_true(start == 0x7f3c2d001000ull && size == 0x40);
	assert_string_equal(name, "LFoo;::bar");
	/* 0x prefixes, tabs, spaces inside the name, a trailing CR */
	assert_int_equal(parse("0x1000\t0X20  Interpreter: void (int) \r", &start, &size, name, sizeof(name)), 0);
	assert_true(start == 0x1000 && size == 0x20);
	assert_string_equal(name, "Interpreter: void (int)");
	assert_int_equal(parse("  ffffffffffffff00 ff top", &start, &size, name, sizeof(name)), 0);
	assert_true(start == 0xffffffffffffff00ull && size == 0xff);
}

static void test_parse_rejects_hostile(void **state)
{
	static const char *const bad[] = {
		"",
		"1000",
		"1000 20",			/* no name */
		"1000 20    ",			/* blank name */
		"1000 0 zero_size",
		"xyz 20 name",
		"1000 2g name",
		"0x 20 name",			/* prefix without digits */
		"10000000000000000 20 name",	/* 17 digits */
		"1000 10000000000000000 name",
		"ffffffffffffff00 100 wraps",	/* start + size past 2^64 */
		"1000-2000 name",
	};
	uint64_t start, size;
	const char *n;
	size_t len;
	char nul[] = "1000 20 na\0me";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (perfmap__parse_line(bad[i], strlen(bad[i]), &start, &size, &n, &len) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
	assert_int_equal(perfmap__parse_line(nul, sizeof(nul) - 1, &start, &size, &n, &len), -EINVAL);
}

/* Loads text through a memory file, as perfmap__load reads any fd. */
static struct perfmap *load_text(const char *text, size_t len)
{
	int fd = memfd_create("perfmap", MFD_CLOEXEC);
	struct perfmap *pm;
	int err;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	pm = perfmap__load(fd, &err);
	close(fd);
	assert_non_null(pm);
	return pm;
}

static void test_load_mixed_file(void **state)
{
	size_t long_len = PERFMAP_MAX_LINE + 100, n = 0;
	char *text = malloc(long_len + 4096);
	struct perfmap *pm;
	uint64_t off;
	const char *name;

	assert_non_null(text);
	n += sprintf(text + n, "1000 100 first\n");
	n += sprintf(text + n, "not a line\n");
	/* an over-long line must be dropped whole, not read as two lines */
	n += sprintf(text + n, "3000 100 ");
	memset(text + n, 'A', long_len);
	n += long_len;
	n += sprintf(text + n, "\n");
	n += sprintf(text + n, "\n");				/* empty lines are no entries */
	n += sprintf(text + n, "2000 100 esc\x1b[31mape\n");	/* control bytes */
	n += sprintf(text + n, "1000 10 newer\n");		/* recompiled at 0x1000 */
	n += sprintf(text + n, "5000 10 unfinished");	/* last line without newline */
	pm = load_text(text, n);
	free(text);

	assert_int_equal(perfmap__count(pm), 3);
	assert_int_equal(perfmap__rejected(pm), 3);
	name = perfmap__find(pm, 0x1008, &off);
	assert_non_null(name);
	assert_string_equal(name, "newer");
	assert_true(off == 8);
	/* outside the newer entry, the older (bigger) one still covers it */
	name = perfmap__find(pm, 0x1050, &off);
	assert_non_null(name);
	assert_string_equal(name, "first");
	assert_true(off == 0x50);
	name = perfmap__find(pm, 0x2001, &off);
	assert_non_null(name);
	assert_string_equal(name, "esc?[31mape");
	assert_null(perfmap__find(pm, 0x3001, &off));
	assert_null(perfmap__find(pm, 0x5001, &off));
	assert_null(perfmap__find(pm, 0xfff, &off));
	assert_null(perfmap__find(pm, 0x2100, &off));
	perfmap__free(pm);
}

/* A file with no newline at all costs one line buffer, not its size. */
static void test_load_no_newlines(void **state)
{
	size_t len = 8 << 20;
	char *text = malloc(len);
	struct perfmap *pm;

	assert_non_null(text);
	memset(text, '7', len);
	pm = load_text(text, len);
	free(text);
	assert_int_equal(perfmap__count(pm), 0);
	assert_int_equal(perfmap__rejected(pm), 1);
	perfmap__free(pm);
}

/* Names longer than PERFMAP_MAX_NAME are cut, not dropped. */
static void test_load_cuts_long_names(void **state)
{
	char line[PERFMAP_MAX_LINE];
	struct perfmap *pm;
	uint64_t off;
	const char *name;
	int n = snprintf(line, sizeof(line), "1000 10 ");

	memset(line + n, 'n', sizeof(line) - (size_t)n - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	pm = load_text(line, strlen(line));
	name = perfmap__find(pm, 0x1000, &off);
	assert_non_null(name);
	assert_int_equal(strlen(name), PERFMAP_MAX_NAME - 1);
	perfmap__free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good_lines),
		cmocka_unit_test(test_parse_rejects_hostile),
		cmocka_unit_test(test_load_mixed_file),
		cmocka_unit_test(test_load_no_newlines),
		cmocka_unit_test(test_load_cuts_long_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

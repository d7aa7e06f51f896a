// SPDX-License-Identifier: GPL-2.0
/*
 * data_fields.c against this test's own DWARF (the tests are built with
 * -g): the member path of each byte of a global struct with an array of
 * structs in it, padding refused, and a file without debug information
 * (or none at all) giving nothing, never a guess.
 */
#include "testlib.h"
#include <link.h>
#include <stdint.h>
#include <string.h>
#include "syms/data_fields.h"

struct df_inner {
	char tag;		/* 7 bytes of padding follow */
	long v;
};

struct df_outer {
	int a;
	struct df_inner s[3];
	unsigned long words[4];
} df_global;

static uint64_t bias;

static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	bias = info->dlpi_addr;	/* the first object is the executable */
	return 1;
}

/* df_global's link-time address: where DWARF's DW_OP_addr says it is. */
static uint64_t link_addr(void)
{
	dl_iterate_phdr(main_bias, NULL);
	return (uint64_t)(uintptr_t)&df_global - bias;
}

static void expect(struct data_fields *df, size_t off, const char *want)
{
	char buf[64];

	if (!data_fields__path(df, link_addr(), off, buf, sizeof(buf)))
		fail_msg("offset %zu: no path, expected %s", off, want);
	assert_string_equal(buf, want);
}

static void test_paths_of_own_global(void **state)
{
	struct data_fields *df = data_fields__new("/proc/self/exe");
	char buf[64];

	assert_non_null(df);
	expect(df, 0, ".a");
	expect(df, offsetof(struct df_outer, s[1].v), ".s[1].v");
	expect(df, offsetof(struct df_outer, s[2].tag), ".s[2].tag");
	expect(df, offsetof(struct df_outer, words[3]), ".words[3]");
	expect(df, offsetof(struct df_outer, words[3]) + 4, ".words[3]+4");
	/* the padding after a tag is nobody's */
	assert_false(data_fields__path(df, link_addr(), offsetof(struct df_outer, s[0].tag) + 1, buf,
				       sizeof(buf)));
	/* an address no variable is at */
	assert_false(data_fields__path(df, link_addr() + 1, 0, buf, sizeof(buf)));
	data_fields__free(df);
}

static void test_no_debug_information(void **state)
{
	struct data_fields *none = data_fields__new("/nonexistent/file");
	struct data_fields *null = data_fields__new(NULL);
	/* Debian strips its binaries: ELF, no .debug_info */
	struct data_fields *stripped = data_fields__new("/bin/true");
	char buf[64];

	assert_false(data_fields__path(stripped, 0x4000, 0, buf, sizeof(buf)));
	data_fields__free(stripped);

	assert_false(data_fields__path(none, link_addr(), 0, buf, sizeof(buf)));
	assert_false(data_fields__path(null, link_addr(), 0, buf, sizeof(buf)));
	assert_false(data_fields__path(NULL, link_addr(), 0, buf, sizeof(buf)));
	data_fields__free(none);
	data_fields__free(null);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_of_own_global),
		cmocka_unit_test(test_no_debug_information),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * names.c, the one sanitiser of untrusted names: every escape a terminal
 * acts on, every ill-formed UTF-8 sequence and every bidi control becomes
 * '?', well-formed text (accents, CJK, emoji) stays as it is, and a cut
 * never splits a character.
 */
#include "testlib.h"
#include <string.h>
#include "common/names.h"

static void expect(const char *in, size_t n, const char *want)
{
	char out[256];
	size_t len = ss_name_clean(out, sizeof(out), in, n);

	assert_int_equal(len, strlen(want));
	if (strcmp(out, want))
		fail_msg("cleaned to '%s', expected '%s'", out, want);
	assert_true(ss_name_is_clean(out, sizeof(out)));
}

#define EXPECT(in, want) expect((in), sizeof(in) - 1, (want))

static void test_terminal_escapes(void **state)
{
	/* the thread name: an OSC title and a screen clear */
	EXPECT("\e]0;pwned\a\e[2J", "?]0;pwned??[2J");
	EXPECT("a\nb\rc\td\x7f", "a?b?c?d?");
	/* 8-bit CSI and OSC: raw C1 bytes (ill-formed alone) and encoded */
	EXPECT("x\x9b" "2Jy", "x?2Jy");
	EXPECT("x\xc2\x9b" "2J\xc2\x9d", "x?2J?");
	assert_false(ss_name_is_clean("\e[2J", 8));
	assert_true(ss_name_is_clean("worker-1", 8));
}

static void test_bidi_and_separators(void **state)
{
	/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LRI, U+2028 LINE SEPARATOR */
	EXPECT("abc\xe2\x80\xae" "fed", "abc?fed");
	EXPECT("\xe2\x81\xa6x\xe2\x80\xa8y", "?x?y");
}

static void test_well_formed_text_kept(void **state)
{
	EXPECT("caf\xc3\xa9 \xe7\xba\xbf\xe7\xa8\x8b \xf0\x9f\x94\x92", "caf\xc3\xa9 \xe7\xba\xbf\xe7\xa8\x8b \xf0\x9f\x94\x92");
	EXPECT("a (b) \"c\" <d> e;f", "a (b) \"c\" <d> e;f");
}

static void test_ill_formed_utf8(void **state)
{
	EXPECT("\xc0\xaf", "??");			/* overlong '/' */
	EXPECT("\xe0\x80\xaf", "???");			/* overlong, 3 bytes */
	EXPECT("\xed\xa0\x80", "???");			/* a surrogate */
	EXPECT("\xf4\x90\x80\x80", "????");		/* past U+10FFFF */
	EXPECT("a\xe7\xba", "a??");			/* cut short */
	EXPECT("\xff\xfe", "??");
}

/* The cut keeps whole characters; the NUL always fits. */
static void test_cut_never_splits(void **state)
{
	char out[5];

	assert_int_equal(ss_name_clean(out, sizeof(out), "ab\xe7\xba\xbf", 5), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(ss_name_clean(out, sizeof(out), "abcdefgh", 8), 4);
	assert_string_equal(out, "abcd");
	assert_int_equal(ss_name_clean(out, 1, "abc", 3), 0);
	assert_string_equal(out, "");
	assert_int_equal(ss_name_clean(out, 0, "abc", 3), 0);
}

/* In place, on a comm array the kernel filled to its end (no NUL). */
static void test_in_place_unterminated(void **state)
{
	char comm[16];

	memcpy(comm, "\e]0;pwned\a\e[2Jxx", 16);
	ss_name_clean_array(comm, sizeof(comm));
	assert_string_equal(comm, "?]0;pwned??[2Jx");
	assert_true(ss_name_is_clean(comm, sizeof(comm)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_terminal_escapes),
		cmocka_unit_test(test_bidi_and_separators),
		cmocka_unit_test(test_well_formed_text_kept),
		cmocka_unit_test(test_ill_formed_utf8),
		cmocka_unit_test(test_cut_never_splits),
		cmocka_unit_test(test_in_place_unterminated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

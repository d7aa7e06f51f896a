// SPDX-License-Identifier: GPL-2.0
/* The sanitiser of untrusted names (see names.h). */
#include <stdint.h>
#include <string.h>
#include "names.h"

/*
 * The length of the well-formed UTF-8 sequence at s (at most n bytes), with
 * its code point in *cp; 0 when ill-formed (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF).
 */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const uint32_t min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min_of[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Characters a terminal or a text renderer acts on. */
static bool is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x200e || c == 0x200f ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

size_t ss_name_clean(char *dst, size_t dstsize, const char *src, size_t n)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t in = 0, out = 0;

	if (!dstsize)
		return 0;
	n = strnlen(src, n);
	while (in < n) {
		uint32_t cp;
		size_t len = utf8_seq(s + in, n - in, &cp);
		bool bad = !len || is_control(cp);
		size_t put = bad ? 1 : len;

		if (out + put >= dstsize)
			break;
		if (bad)
			dst[out] = '?';
		else
			memmove(dst + out, s + in, len);
		out += put;
		in += len ? len : 1;
	}
	dst[out] = '\0';
	return out;
}

bool ss_name_is_clean(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t in = 0;

	n = strnlen(s, n);
	while (in < n) {
		uint32_t cp;
		size_t len = utf8_seq(u + in, n - in, &cp);

		if (!len || is_control(cp))
			return false;
		in += len;
	}
	return true;
}

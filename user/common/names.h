/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one sanitiser for names that come from a target or a file spinscope
 * does not trust: process and thread names (comm), symbols, paths, perf-map
 * names, and the same names replayed from a recording. A clean name is
 * valid UTF-8 with no character a terminal acts on: every C0 control byte,
 * DEL, the C1 controls (U+0080-U+009F: an 8-bit CSI is one), the bidi
 * overrides and isolates (U+200E-U+200F, U+202A-U+202E, U+2066-U+2069),
 * the line and paragraph separators (U+2028, U+2029), and every byte of
 * an ill-formed sequence (overlong, surrogate, past U+10FFFF, cut short)
 * become '?'. Clean names are what every renderer (text, JSON, folded,
 * pprof, OpenMetrics, HTML) and stderr get; each still escapes for its own
 * syntax (a quote, a '<', a ';').
 */
#ifndef SPINSCOPE_NAMES_H
#define SPINSCOPE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes the first n bytes of src (up to a NUL) into dst, clean, cut so
 * that it fits dstsize with its NUL without splitting a character; dst may
 * be src (the clean text is never longer). Returns its length. dstsize 0
 * writes nothing.
 */
size_t ss_name_clean(char *dst, size_t dstsize, const char *src, size_t n);

/* Cleans a fixed char array in place (a name not terminated within size
 * is cut to size - 1 bytes). */
static inline void ss_name_clean_array(char *buf, size_t size)
{
	ss_name_clean(buf, size, buf, size);
}

/* True when the first n bytes of s (up to a NUL) are already clean. */
bool ss_name_is_clean(const char *s, size_t n);

#endif

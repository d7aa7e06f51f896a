/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers with their units, for evidence strings: times (ns/us/ms/s),
 * rates, ratios ("6.1x"), shares, counts, sizes, spin counts ("31 (0x1F)").
 * Each returns a small struct by value so calls nest inside one printf:
 *   adv_evidence(f, ADV_SRC_HOST, "futex handoff", "%s", adv_fmt_ns(h).s);
 */
#ifndef SPINSCOPE_ADV_FORMAT_H
#define SPINSCOPE_ADV_FORMAT_H

#include <stddef.h>
#include <stdint.h>

struct adv_str {
	char s[48];
};

struct adv_str adv_fmt_ns(double ns);			/* "850 ns", "4.2 us", "12 ms" */
struct adv_str adv_fmt_rate(double per_s, const char *what);	/* "12.3k yields/s" */
struct adv_str adv_fmt_ratio(double x);			/* "6.1x", "30x" */
struct adv_str adv_fmt_pct(double share);		/* 0.314 -> "31%" */
struct adv_str adv_fmt_count(double n);			/* "950", "12.3k", "4.5M" */
struct adv_str adv_fmt_bytes(double bytes);		/* "64 bytes", "4.0 KiB" */
struct adv_str adv_fmt_gbs(double gb_per_s);		/* "12.3 GB/s" */
struct adv_str adv_fmt_spins(int64_t n);		/* "31 (0x1F)", "7" */

/* snprintf into a fixed array where cutting a long sentence short is the
 * intended behaviour (findings have fixed-size fields); returns buf. */
char *adv_strf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * format.c: numbers with units for evidence strings (see format.h). Three
 * significant digits everywhere: enough to compare figures, few enough to
 * read at a glance in an incident.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include "format.h"

/* Scales v by `step` until it is below 999.5 (so that rounding never
 * prints "1e+03"), then prints it with the matching unit. */
static struct adv_str scaled(double v, double step, const char *const *units,
			     int nunits, const char *tail)
{
	struct adv_str r;
	int u = 0;

	if (!isfinite(v) || v < 0)
		v = 0;
	while (v >= 999.5 && u + 1 < nunits) {
		v /= step;
		u++;
	}
	if (v >= 999.5)
		snprintf(r.s, sizeof(r.s), "%.0f%s%s", v, units[u], tail);
	else
		snprintf(r.s, sizeof(r.s), "%.3g%s%s", v, units[u], tail);
	return r;
}

struct adv_str adv_fmt_ns(double ns)
{
	static const char *const units[] = { " ns", " us", " ms", " s" };

	return scaled(ns, 1000, units, 4, "");
}

struct adv_str adv_fmt_count(double n)
{
	static const char *const units[] = { "", "k", "M", "G", "T" };

	return scaled(n, 1000, units, 5, "");
}

struct adv_str adv_fmt_rate(double per_s, const char *what)
{
	struct adv_str c = adv_fmt_count(per_s), r;

	snprintf(r.s, sizeof(r.s), "%.12s%s%.24s/s", c.s, what && *what ? " " : "",
		 what ? what : "");
	return r;
}

struct adv_str adv_fmt_ratio(double x)
{
	struct adv_str r;

	if (!isfinite(x) || x < 0)
		x = 0;
	snprintf(r.s, sizeof(r.s), x < 9.95 ? "%.1fx" : "%.0fx", x);
	return r;
}

struct adv_str adv_fmt_pct(double share)
{
	struct adv_str r;
	double p = share * 100;

	if (!isfinite(p) || p <= 0)
		snprintf(r.s, sizeof(r.s), "0%%");
	else if (p < 0.1)
		snprintf(r.s, sizeof(r.s), "<0.1%%");
	else
		snprintf(r.s, sizeof(r.s), p < 9.95 ? "%.1f%%" : "%.0f%%", p);
	return r;
}

struct adv_str adv_fmt_bytes(double bytes)
{
	static const char *const units[] = { " bytes", " KiB", " MiB", " GiB", " TiB" };
	struct adv_str r;

	if (bytes < 1024) {
		snprintf(r.s, sizeof(r.s), "%.0f bytes", bytes > 0 ? bytes : 0);
		return r;
	}
	return scaled(bytes, 1024, units, 5, "");
}

struct adv_str adv_fmt_gbs(double gb_per_s)
{
	static const char *const units[] = { " GB/s", " TB/s" };

	return scaled(gb_per_s, 1000, units, 2, "");
}

struct adv_str adv_fmt_spins(int64_t n)
{
	struct adv_str r;

	/* A person reads decimals; the counts are the JDK's 2^k - 1 masks,
	 * written in hex there, so the hex stands beside where it differs. */
	if (n <= 0)
		snprintf(r.s, sizeof(r.s), "0");
	else if (n < 10)
		snprintf(r.s, sizeof(r.s), "%lld", (long long)n);
	else
		snprintf(r.s, sizeof(r.s), "%lld (0x%llX)", (long long)n, (unsigned long long)n);
	return r;
}

char *adv_strf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

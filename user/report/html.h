/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --html FILE: one self-contained page (style and script inline, nothing
 * fetched) with a flame graph per stack kind (futex wait time, sched_yield
 * calls, samples), the log2 histograms as bar charts, the per-thread table
 * and the advice with its evidence. The page's data is the JSON report plus
 * the folded stacks of folded.c, embedded in a <script type="application/json">
 * element and escaped there: frame and thread names come from the target.
 */
#ifndef SPINSCOPE_HTML_H
#define SPINSCOPE_HTML_H

#include <stdio.h>
#include "report.h"

/* Writes the page to f. 0 or -errno. */
int html__write(FILE *f, const struct ss_report *r);

/* The page of a JSON report (report_to_json's document, e.g. read back
 * from a recording) and its flame data: an array of {kind, title, unit,
 * stacks: [["root;...;leaf", weight], ...]}, one per kind shown. */
int html__write_page(FILE *f, json_object *report, json_object *flames);

/* The same written as path through outfile (mode 0600, renamed into
 * place; outfile__check it before the trace). 0 or -errno, why filled. */
int html__save(const char *path, const struct ss_report *r, char *why, size_t whylen);

/* Writes a JSON text so that it can sit inside a <script> element: '<',
 * '>' and '&' as \u003c..., U+2028 and U+2029 as \u2028 and \u2029 (the
 * JSON stays equal: json-c only emits those bytes inside strings). 0 or -EIO. */
int html__write_script_json(FILE *f, const char *json);

/* The page's style and script (html_page.c). */
extern const char html_page_style[];
extern const char html_page_script[];

#endif

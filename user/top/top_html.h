/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host page of a top recording (`spinscope report FILE --html PAGE`):
 * one self-contained page, as -p's, that lists the processes with their
 * figures, sortable, each verdict a link to that process's findings (the
 * finding, what it rests on, the words it waited on, what needs -p). The
 * page's data is the top document, embedded in a <script
 * type="application/json"> element and escaped there (html.h); the
 * script writes every name with textContent, never as markup.
 */
#ifndef SPINSCOPE_TOP_HTML_H
#define SPINSCOPE_TOP_HTML_H

#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

/* Writes the page of doc (a checked top document) to f: 0 or -errno. */
int top_html__write(FILE *f, json_object *doc);
/* The same through outfile (mode 0600, renamed into place): 0 or -errno,
 * why filled. */
int top_html__save(const char *path, json_object *doc, char *why, size_t whylen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `spinscope top`'s batch output: plain text like `top -b` (a header
 * with the host's load and what tracing cost, then one row per process)
 * and one JSON document with a `processes` array. The sort keys are one
 * table, shared with the live view.
 */
#ifndef SPINSCOPE_TOP_RENDER_H
#define SPINSCOPE_TOP_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "top/top_model.h"

enum top_sort_key {
	TOP_SORT_LOCK_WAIT = 0,		/* default: who waits for locks */
	TOP_SORT_EVENT_WAIT,
	TOP_SORT_YIELDS,
	TOP_SORT_SPIN,
	TOP_SORT_CPU,
	TOP_SORT_RUNQ,
	TOP_SORT_WAKES,
	TOP_SORT_PID,
	TOP_SORT_KEYS,
};

/* "lock", "event", ...: the key's name on the command line and in JSON. */
const char *top_sort_name(enum top_sort_key k);
/* The key named name; -1 when none. */
int top_sort_parse(const char *name);
/* The names, ", "-separated, for a usage error. */
const char *top_sort_names(void);
/* Fills order with pointers to the n procs, most first by key (then pid). */
void top_sort_procs(const struct top_proc *procs, size_t n, enum top_sort_key key,
		    const struct top_proc **order);

struct top_render_opts {
	enum top_sort_key sort;
	size_t rows;			/* at most this many processes; 0: all */
	bool threads;			/* each process's threads too */
};

/* Writes one refresh. 0, or -errno of a failed allocation (a write
 * error is the stream's: the caller checks it). */
int top_render_text(FILE *f, const struct top_snapshot *s, const struct top_render_opts *o);
int top_render_json(FILE *f, const struct top_snapshot *s, const struct top_render_opts *o);
struct json_object;
/* The JSON document itself (what -o saves): 0 or -ENOMEM. */
int top_render_doc(const struct top_snapshot *s, const struct top_render_opts *o,
		   struct json_object **doc);

#endif

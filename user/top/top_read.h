/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording of `spinscope top -o FILE` read back into the model, so
 * that `report`, `diff` and `--html` render it as top did. The file may
 * come from anywhere: every member is checked for its type and range
 * (counts from 0 to 2^63 - 1, finite shares, bounded arrays), every name
 * cleaned again, and the first wrong member is named by its path.
 */
#ifndef SPINSCOPE_TOP_READ_H
#define SPINSCOPE_TOP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "top_model.h"
#include "top_render.h"

struct top_recording {
	json_object *doc;		/* owned */
	struct top_snapshot snap;	/* procs and the arrays below owned */
	enum top_sort_key sort;		/* as it was recorded */
	struct top_word *words;
	struct top_thread *threads;
};

/* Whether doc is a top document (its "kind"), not a -p recording. */
bool top_read__is_top(json_object *doc);
/* Reads doc, which rec takes over (also on failure): 0, or
 * SS_EXIT_USAGE with "MEMBER: what is wrong" in why. */
int top_read__from_json(json_object *doc, struct top_recording *rec, char *why, size_t whylen);
void top_read__free(struct top_recording *rec);

#endif

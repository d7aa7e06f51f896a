/* SPDX-License-Identifier: GPL-2.0 */
/* `spinscope report FILE` and `diff` on recordings of `spinscope top -o`. */
#ifndef SPINSCOPE_TOP_REPORT_H
#define SPINSCOPE_TOP_REPORT_H

#include <stdbool.h>
#include <json-c/json.h>
#include "outputs.h"

/* The host table of a top recording (doc, taken over) on stdout: text
 * as top -b printed it, --json the document, --brief only the processes
 * with a verdict, --html the host page. path names the file in errors.
 * An exit code, said. */
int top_report_run(const char *path, json_object *doc, bool json, bool brief,
		   const struct ss_output_paths *out);
/* Two top recordings compared, process by process (matched by command,
 * container and unit: pids change between runs), rates per second of
 * each window. Both docs taken over. An exit code, said. */
int top_diff_run(const char *const paths[2], json_object *docs[2], bool json);

#endif

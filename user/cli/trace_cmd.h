/* SPDX-License-Identifier: GPL-2.0 */
/* The trace run shared by `spinscope -p` and `spinscope demo`. */
#ifndef SPINSCOPE_TRACE_CMD_H
#define SPINSCOPE_TRACE_CMD_H

#include "cli.h"

/* Checks, attaches, traces until duration, signal or target exit, prints
 * the report. Returns an exit code; leaves nothing attached either way. */
int trace_run(const struct ss_opts *o);
/* What every command that traces does with its parsed options before
 * tracing: --help (help() prints it), --version, the --event check.
 * Returns -1 when the command is done (help or version printed, exit 0),
 * an exit code on a bad event, else 0. */
int trace_opts_settle(struct ss_opts *o, void (*help)(FILE *out));

#endif

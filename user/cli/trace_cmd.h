/* SPDX-License-Identifier: GPL-2.0 */
/* The trace run shared by `spinscope -p` and `spinscope demo`. */
#ifndef SPINSCOPE_TRACE_CMD_H
#define SPINSCOPE_TRACE_CMD_H

#include "cli.h"

/* Checks, attaches, traces until duration, signal or target exit, prints
 * the report. Returns an exit code; leaves nothing attached either way. */
int trace_run(const struct ss_opts *o);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model as Prometheus text exposition (format 0.0.4, which promtool and
 * every Prometheus server read), for --metrics (HTTP) and --metrics-file
 * (node_exporter's textfile collector). Counters end in _total and name
 * their unit; every series has pid and comm labels. Label cardinality is
 * bounded: the top METRICS_TOP_N locks (futex addresses, by wait time then
 * wakes) and yield sites get their own series, the rest are summed into
 * lock="other" / site="other".
 */
#ifndef SPINSCOPE_METRICS_TEXT_H
#define SPINSCOPE_METRICS_TEXT_H

#include <stddef.h>
#include "report.h"

#define METRICS_TOP_N 20

/* Names a yield site's stack for its label (NULL: "stack_<id>"). */
typedef const char *(*metrics_site_fn)(void *arg, __s32 stack_id, char *buf, size_t len);

/* Renders r (profile required; advice optional) into *buf (malloc'd,
 * NUL-terminated, *len bytes). Returns 0 or -errno. */
int metrics_text__render(const struct ss_report *r, metrics_site_fn site, void *arg,
			 char **buf, size_t *len);

#endif

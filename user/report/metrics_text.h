/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model as Prometheus text exposition (format 0.0.4, which promtool and
 * every Prometheus server read), for --metrics (HTTP) and --metrics-file
 * (node_exporter's textfile collector). Counters end in _total and name
 * their unit; every series has pid and comm labels. Label cardinality is
 * bounded: the top METRICS_TOP_N locks (futex addresses, by wait time then
 * wakes) and yield sites get their own series, the rest are summed into
 * lock="other" / site="other". Locks and sites are named as the advice
 * names them (report/advice.h), from r->stacks' frames: a lock's series is
 * {lock="worker in app (via pthread_mutex_lock in libc)",lock_id="9f2c..."},
 * the id an HMAC of the address under a key random to this run: stable
 * while spinscope runs, and no address reaches whoever scrapes it.
 * The top locks used as locks also get their release sites (who held
 * them: wakes that found waiters and the held-while-contended lower
 * bounds, by site="<the releasing stack's name>") and holder counts.
 */
#ifndef SPINSCOPE_METRICS_TEXT_H
#define SPINSCOPE_METRICS_TEXT_H

#include <stddef.h>
#include <stdio.h>
#include "report.h"

#define METRICS_TOP_N 20

/* Renders r (profile required; stacks and advice optional: unnamed locks
 * are "lock <lock_id>", sites "stack_<id>") into *buf (malloc'd,
 * NUL-terminated, *len bytes). Returns 0 or -errno. */
int metrics_text__render(const struct ss_report *r, char **buf, size_t *len);
/* Writes s as a label value: backslash, quote and newline escaped, as the
 * format says (s is clean already: common/names.h). Shared with the host
 * agent's series (top/top_series.c). */
void metrics_text__label_value(FILE *f, const char *s);
/* The opaque id of the lock at uaddr (16 hex digits) into buf; 0, or
 * -EAGAIN when no random key could be had. */
int metrics_text__lock_id(__u64 uaddr, char *buf, size_t len);

#endif

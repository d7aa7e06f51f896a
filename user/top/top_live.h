/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's live figures for `spinscope top`: bpf/top.bpf.c attached,
 * its maps collected each interval (top_collect.h) and each process's
 * verdict (top_verdict.h), behind a top_refresh_fn (top_source.h).
 */
#ifndef SPINSCOPE_TOP_LIVE_H
#define SPINSCOPE_TOP_LIVE_H

#include <stdint.h>
#include "top/top_bpf.h"
#include "top/top_collect.h"
#include "top/top_source.h"

struct top_live_opts {
	uint64_t interval_ns;		/* a refresh; the first ends this long after attach */
	struct top_bpf_opts bpf;
	struct top_collect_opts collect;
};

struct top_live;

/* Loads and attaches: NULL with *code set and the error printed
 * (ss_error) on failure, nothing left attached. */
struct top_live *top_live__open(const struct top_live_opts *o, int *code);
/* A top_refresh_fn; ctx is a struct top_live. */
int top_live_refresh(void *ctx, struct top_snapshot *snap, volatile int *stop);
/* Changes the interval from the next refresh on (the live view's keys). */
void top_live__set_interval(struct top_live *l, uint64_t interval_ns);
/* Detaches and frees; safe with NULL. */
void top_live__close(struct top_live *l);

#endif

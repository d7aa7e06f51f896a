/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks ("kind;root;...;leaf count" per line) for flamegraph.pl,
 * speedscope or inferno: futex wait time (ns) by waiter stack, sched_yield
 * calls by call site, and samples, each kind under its own root frame.
 */
#ifndef SPINSCOPE_FOLDED_H
#define SPINSCOPE_FOLDED_H

#include <stdio.h>
#include "model/profile.h"
#include "model/samples_result.h"
#include "model/stacks.h"

/* Writes every kind to f (sr may be NULL or unavailable). 0 or -errno. */
int folded__write(FILE *f, samples_symbolize_fn sym, void *arg, const struct ss_profile *p,
		  const struct ss_stacks *stacks, const struct samples_result *sr);

#endif

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

/* The same written as path through outfile (mode 0600, renamed into
 * place; outfile__check it before the trace). 0 or -errno, why filled. */
int folded__save(const char *path, samples_symbolize_fn sym, void *arg, const struct ss_profile *p,
		 const struct ss_stacks *stacks, const struct samples_result *sr, char *why,
		 size_t whylen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --pprof FILE: the model as a gzip-compressed pprof profile.proto, for
 * go tool pprof, Pyroscope and Parca. Sample types (value order):
 *   futex_wait/nanoseconds, futex_waits/count   by waiter stack
 *   sched_yield/count                           by yield call site
 *   <sampled event>/count                       by sampled user stack
 *   futex_at_once/count                         by waiter stack: waits that
 *                                               returned at once (EAGAIN)
 * Each sample carries its full user stack (leaf first) as locations in
 * mappings (file, load range, file offset, build-id when known) with
 * function names, and labels: "futex" (address), "thread" and "tid": futex
 * waits are one sample per (waiter stack, thread), as BPF counted them
 * (recordings before 1.1: per stack, a thread only for single waiters).
 */
#ifndef SPINSCOPE_PPROF_H
#define SPINSCOPE_PPROF_H

#include <stdint.h>
#include "report.h"

/* What a backend needs to re-symbolize one address. */
struct pprof_frame {
	const char *name;		/* function, NULL: unknown */
	const char *module;		/* mapping's path, NULL: unknown */
	uint64_t module_offset;		/* file offset of the address in module */
	const char *build_id;		/* hex, NULL: unknown */
};

/* Names ip (already the call instruction for callers' frames). 0, or
 * -ENOENT when nothing is known. Strings live until the next call. */
typedef int (*pprof_resolve_fn)(void *arg, uint64_t ip, struct pprof_frame *out);

/* Encodes the report into a gzip-compressed profile in *buf (malloc'd).
 * resolve may be NULL (addresses only). Returns 0 or -errno. */
int pprof__encode(const struct ss_report *r, pprof_resolve_fn resolve, void *arg,
		  void **buf, size_t *len);
/* pprof__encode(), then written to path through outfile__save(): 0, or
 * -errno with the reason in why. */
int pprof__write(const char *path, const struct ss_report *r, pprof_resolve_fn resolve,
		 void *arg, char *why, size_t whylen);

#endif

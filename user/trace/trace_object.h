/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which build of bpf/trace.bpf.c, bpf/light.bpf.c and bpf/top.bpf.c to open: the one that
 * calls kfuncs (bpf_rdonly_cast: a user register read without helper
 * calls, bpf/task_regs.bpf.h) where the kernel has them in its own BTF,
 * else the one without (Makefile, *_nokfunc). Both builds of an object
 * have the same maps, programs and variables, so one skeleton (struct
 * trace, struct light) serves either.
 */
#ifndef SPINSCOPE_TRACE_OBJECT_H
#define SPINSCOPE_TRACE_OBJECT_H

#include <stdbool.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "trace.skel.h"
#include "light.skel.h"
#include "top.skel.h"

/* Whether kernel (the running kernel's own BTF; NULL: none usable) lets
 * the kfunc build load. */
bool trace_object_kfuncs(const struct btf *kernel);
/* trace__open_opts() on the build kfuncs chooses; NULL and errno set on
 * failure. */
struct trace *trace_object_open(const struct bpf_object_open_opts *opts, bool kfuncs);
/* The same for light__open_opts(). */
struct light *light_object_open(const struct bpf_object_open_opts *opts, bool kfuncs);
/* The same for top__open_opts() (bpf/top.bpf.c, `spinscope top`). */
struct top *top_object_open(const struct bpf_object_open_opts *opts, bool kfuncs);

#endif

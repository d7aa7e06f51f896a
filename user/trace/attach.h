/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the futex and sched_yield calls are traced (--attach): fentry/fexit
 * on the syscall functions where the kernel runs BPF trampolines (only
 * those calls pay), syscall tracepoints elsewhere (every syscall of every
 * task pays while they are enabled). --light uses neither (light.h).
 */
#ifndef SPINSCOPE_ATTACH_H
#define SPINSCOPE_ATTACH_H

#include <stdbool.h>
#include <stddef.h>

enum tracer_attach {
	TRACER_ATTACH_AUTO = 0,		/* tracepoints for now (attach.c says why) */
	TRACER_ATTACH_FENTRY,
	TRACER_ATTACH_TRACEPOINT,
};

/* "auto", "fentry", "tracepoint" -> *out: 0, or -1 for anything else. */
int tracer_attach_parse(const char *s, enum tracer_attach *out);

struct bpf_object;
struct btf;
struct kernel_features;

/* What the choice rests on: the probes, the kernel's own BTF (NULL:
 * none), and whether it is a PREEMPT_RT kernel. */
struct attach_kernel {
	const struct kernel_features *features;
	const struct btf *btf;
	bool preempt_rt;
};

/* uname's version says PREEMPT_RT. */
bool attach_kernel_is_rt(void);

/*
 * Picks the mechanism for want and readies obj for it (before load): each
 * syscall tracepoint program P that was to load, or its twin fe_P
 * attached to P's syscall function in the kernel's BTF (by
 * attach_set_targets(), before load), loads; *fentry
 * says which. auto takes the tracepoints on every kernel for now (fentry
 * traces hung in the kernel matrix's guests: attach.c).
 * 0, or, when want is fentry and the kernel cannot (no trampolines, a
 * function missing from its BTF), SS_EXIT_KERNEL with why set. --light
 * (light) loads neither.
 */
int attach_choose(enum tracer_attach want, bool light, const struct attach_kernel *k,
		  struct bpf_object *obj, bool *fentry, char *why, size_t whylen);

/*
 * Points each fentry/fexit program that is to load at its syscall's
 * function in btf (the kernel's), just before obj loads: libbpf 1.1 reads
 * the kernel's BTF again for it and frees that only at load (an object
 * closed unloaded leaks it). 0 or a negative errno.
 */
int attach_set_targets(struct bpf_object *obj, const struct btf *btf);

#endif

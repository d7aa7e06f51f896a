/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers BPF, probed at start by loading tiny
 * programs (as bpftool feature does), and the oldest kernel spinscope runs
 * on. The tracer picks its program variants from these; the JSON report
 * records them (kernel_features) so a mechanism can be chosen per kernel.
 */
#ifndef SPINSCOPE_KFEATURES_H
#define SPINSCOPE_KFEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include "model/kernel_features.h"

/* The oldest kernel: CAP_BPF/CAP_PERFMON, bpf_probe_read_kernel, BTF in
 * sysfs, tp_btf. Tested from 5.10 (docs/REFERENCE.md, Supported kernels). */
#define SS_MIN_KERNEL_MAJOR 5
#define SS_MIN_KERNEL_MINOR 8

/*
 * Checks uname -r against the minimum. 0, or SS_EXIT_KERNEL with why set to
 * "needs Linux 5.8 or later with BTF: this is 5.4 (5.4.0-150-generic)".
 * A release it cannot read is let through (the probes then say more).
 */
int kernel_check_version(const char *release, char *why, size_t whylen);

struct btf;

/* Probes everything above. kernel_btf: the running kernel's own BTF (it
 * names the attach targets of fentry and tp_btf), NULL when it has none
 * usable; roots: the tracefs mount points to look in (NULL-terminated). */
void kernel_features_probe(struct kernel_features *f, const struct btf *kernel_btf,
			   const char *const *roots);

/* Whether the kernel's sched_switch tracepoint passes prev's state as its
 * fourth argument (5.18+; bpf/core_fixes.bpf.h, targ_switch_state), read
 * from kernel_btf's btf_trace_sched_switch; false where it is NULL. */
bool kernel_switch_passes_state(const struct btf *kernel_btf);

/*
 * strerror() for a probe's errno, naming the kernel-internal ones a probe
 * gets back that libc has no text for: 524 (ENOTSUPP), what arm64 6.1
 * answers a fentry attach without CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS.
 */
const char *kernel_feature_strerror(int err);

/* "fentry no (Operation not permitted), tp_btf yes, ..." for -v. */
void kernel_features_describe(const struct kernel_features *f, char *buf, size_t len);

#endif

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
#include <json-c/json.h>

/* The oldest kernel: CAP_BPF/CAP_PERFMON, bpf_probe_read_kernel, BTF in
 * sysfs, tp_btf. Tested from 5.10 (README, Supported kernels). */
#define SS_MIN_KERNEL_MAJOR 5
#define SS_MIN_KERNEL_MINOR 8

/* One probed feature: available, or the errno that said no (positive). */
struct kfeature {
	bool ok;
	int err;
};

/* X-macro: the key in JSON and -v, and the field. */
#define SS_KFEATURES(X)							\
	X(fentry)		/* BPF_TRACE_FENTRY loads and attaches */	\
	X(fexit)		/* BPF_TRACE_FEXIT loads and attaches */	\
	X(tp_btf)		/* BTF-typed raw tracepoint (sched_switch) */	\
	X(raw_tp)		/* raw tracepoint programs */			\
	X(syscall_tracepoints)	/* syscalls:sys_enter_futex in tracefs */	\
	X(task_storage)		/* BPF_MAP_TYPE_TASK_STORAGE (5.11) */		\
	X(bpf_cmpxchg)		/* BPF atomics with fetch, cmpxchg (5.12) */

struct kernel_features {
#define SS_KF_FIELD(name) struct kfeature name;
	SS_KFEATURES(SS_KF_FIELD)
#undef SS_KF_FIELD
};

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

/* "fentry no (Operation not permitted), tp_btf yes, ..." for -v. */
void kernel_features_describe(const struct kernel_features *f, char *buf, size_t len);

/* {"fentry": false, "tp_btf": true, ...}; NULL on no memory. */
json_object *kernel_features_to_json(const struct kernel_features *f);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers BPF, as probed at start (user/trace/
 * kfeatures.c does the probing): plain data, so the renderers and the
 * recording carry it without knowing how it was found.
 */
#ifndef SPINSCOPE_KERNEL_FEATURES_H
#define SPINSCOPE_KERNEL_FEATURES_H

#include <stdbool.h>

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

#endif

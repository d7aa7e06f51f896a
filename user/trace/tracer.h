/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace BPF programs behind a small interface: open (checks, configure,
 * load), attach, read snapshots, free. Callers never touch maps or links.
 */
#ifndef SPINSCOPE_TRACER_H
#define SPINSCOPE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "model/profile.h"
#include "attach.h"
#include "kfeatures.h"
#include "unwind.h"

struct tracer;

/* Default for tracer_opts.stack_interval_ns: one user stack per thread per
 * millisecond bounds the walks' cost to well under 0.1% of a CPU. */
#define SS_STACK_INTERVAL_DEFAULT_NS 1000000ull

struct tracer_opts {
	int pid;
	int tid;			/* 0: every thread of pid */
	unsigned long long starttime;	/* the target's (proc_status); 0: not checked */
	const char *btf_custom_path;	/* NULL: the kernel's own BTF */
	unsigned int max_threads;
	unsigned int max_futexes;
	unsigned int max_stacks;
	__u64 stack_interval_ns;	/* 0: a stack for every event */
	const struct ss_unwind_table *unwind;	/* NULL: frame pointers only */
	/* When set, called before *unwind is first read: the caller may still
	 * be building the table while the tracer opens (attach time). */
	void (*unwind_wait)(void *arg);
	void *unwind_wait_arg;
	int verbose;
	bool light;			/* --light: scheduler tracepoints only */
	enum tracer_attach attach;	/* --attach: how futex/yield calls are traced */
	const char *tracefs_roots[3];	/* NULL-terminated; NULL: the usual two */
};

/* Which optional tracepoints this kernel has (futex2, futex_waitv), what
 * it offers BPF, and the variants chosen from that. */
struct tracer_features {
	bool futex_waitv;
	bool futex2;
	bool sched_btf;		/* scheduler programs use tp_btf, not raw_tp */
	bool light;		/* --light: no syscall program (user/trace/light.h) */
	bool fentry;		/* fentry/fexit on the syscall functions, not
				 * syscall tracepoints (user/trace/attach.h) */
	bool maps_grow;		/* hash maps allocated as entries are made
				 * (BPF_F_NO_PREALLOC: 6.1, not PREEMPT_RT) */
	bool kfuncs;		/* the kfunc build of trace.bpf.c (6.2+ with
				 * its own BTF: user/trace/trace_object.h) */
	bool switch_state;	/* sched_switch passes prev's state (5.18+) */
	struct kernel_features kernel;	/* probed at open */
};

/* Opens, configures and loads. On failure prints nothing, returns NULL and
 * sets *code (an SS_EXIT_*) and why to a one-line reason. */
struct tracer *tracer__open(const struct tracer_opts *o, int *code, char *why, size_t whylen);
/* Attaches every program; 0 or an SS_EXIT_* code with why filled. */
int tracer__attach(struct tracer *t, char *why, size_t whylen);
/* Why program prog (of ELF section section) did not attach, err an errno:
 * the line for why and its exit code. A missing event is the kernel lacking
 * support (5); anything else is the kernel refusing the program (6; EACCES
 * is a context read past the event's record, not missing privileges, which
 * were checked before), except EPERM (4: lockdown, an LSM). */
int tracer_attach_error(const char *prog, const char *section, int err, int verbose, char *why,
			size_t whylen);
/* Detaches every program and waits until none still runs; the maps stay
 * readable. A tracer__read after it is one snapshot: no event lands in one
 * map between the reads of two (the report's totals, waiter stacks and
 * release sites then agree). */
void tracer__stop(struct tracer *t);
/* Copies the maps into p (which the caller frees with profile_free). */
int tracer__read(struct tracer *t, struct ss_profile *p);
/* Moves the waiter and release entries of the target's threads that have
 * exited since the last call out of their maps (user/trace/exited_sites.h),
 * so that a thread-per-request server does not fill them; tracer__read()
 * adds them back. Cheap when no thread exited. 0 or a negative errno. */
int tracer__drain_exited(struct tracer *t);
/* User stack of a stack id: fills ips (innermost first), returns depth. */
int tracer__stack(struct tracer *t, __s32 stack_id, __u64 *ips, int max);
void tracer__features(const struct tracer *t, struct tracer_features *f);
/* What the BPF unwinder did: 1, or 0 (all zero) when it was off. */
int tracer__unwind_stats(const struct tracer *t, __u64 out[SS_UNWIND_NSTATS]);
/* Bytes of kernel memory the maps may use at their configured sizes. */
size_t tracer__map_bytes(const struct tracer *t);
/* Detaches and frees everything; accepts NULL. */
void tracer__free(struct tracer *t);

/* libbpf's messages: none (0), warnings (1), debug too (2). */
void tracer_set_verbose(int level);

/* Monotonic now, in the same clock as bpf_ktime_get_ns(). */
__u64 tracer_now_ns(void);

/* Looks for a tracepoint "category/name" under the tracefs roots.
 * Returns 1 when found, 0 when not, -1 when no tracefs is mounted, -2 when
 * we may not read it. */
int tracefs_has_event(const char *const *roots, const char *event);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler-only tracer (--light, bpf/light.bpf.c): opened on the maps
 * of an already loaded trace.bpf.c object (whose syscall programs are then
 * not loaded), so it fills the same profile. The tracer owns it.
 */
#ifndef SPINSCOPE_LIGHT_H
#define SPINSCOPE_LIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bpf_object;
struct light_tracer;


/* Switches off, before load, the programs of trace.bpf.c's obj that
 * --light does without (every syscall tracepoint) or does itself (the
 * scheduler's accounting at sched_switch and sched_waking). */
void light_disable_replaced_programs(struct bpf_object *obj);

/* 0 when this kernel gives BPF bpf_task_pt_regs (Linux 5.15+), else
 * SS_EXIT_KERNEL with why set. */
int light_check_kernel(char *why, size_t whylen);

struct light_opts {
	int pid, tid;
	__u64 stack_interval_ns;
	bool sched_btf;			/* tp_btf, else raw_tp */
	const char *btf_custom_path;	/* NULL: the kernel's own BTF */
	bool kfuncs;			/* the build with kfuncs (trace_object.h) */
	bool switch_state;		/* sched_switch passes prev's state */
};

/* Opens and loads light.bpf.c on maps_from's maps (same names). NULL on
 * failure with *code (SS_EXIT_*) and why set. */
struct light_tracer *light_tracer__open(struct bpf_object *maps_from, const struct light_opts *o, int verbose,
			  int *code, char *why, size_t whylen);
/* Attaches its programs, with the trace's time zero (trace.bpf.c's
 * start_ns: this object keeps its own copy): 0 or an SS_EXIT_* with why. */
int light_tracer__attach(struct light_tracer *l, __u64 start_ns, char *why, size_t whylen);
/* The BPF object, for the tracer's program statistics. */
struct bpf_object *light_tracer__object(struct light_tracer *l);
/* Detaches every program, keeping the maps; accepts NULL. */
void light_tracer__detach(struct light_tracer *l);
/* Detaches and frees; accepts NULL. */
void light_tracer__free(struct light_tracer *l);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lifecycle of bpf/top.bpf.c: open (the kfunc build where the kernel has
 * them) -> configure (tp_btf or raw_tp, sampling) -> load -> attach, each
 * step checked and named in its error; detach and free on every path.
 */
#ifndef SPINSCOPE_TOP_BPF_H
#define SPINSCOPE_TOP_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct top_bpf_opts {
	bool sampling;		/* cpu-clock samples for spin-wait hints */
	uint32_t sample_hz;	/* per CPU; 0: TOP_SAMPLE_HZ */
	int verbose;		/* libbpf's log on stderr */
};

#define TOP_SAMPLE_HZ 99	/* prime: out of step with periodic work */

struct top_bpf;

/* Checks the kernel, opens, configures and loads: NULL with *code (an
 * SS_EXIT_*) and why set on failure. */
struct top_bpf *top_bpf__open(const struct top_bpf_opts *o, int *code, char *why, size_t whylen);
/* Attaches the scheduler programs (and, with sampling, the cpu-clock
 * events of every online CPU): 0 or an SS_EXIT_* code with why. */
int top_bpf__attach(struct top_bpf *t, char *why, size_t whylen);
/* The thread records: slots (an array) and the spill hash. */
int top_bpf__slots_fd(const struct top_bpf *t);
int top_bpf__spill_fd(const struct top_bpf *t);
int top_bpf__words_fd(const struct top_bpf *t);
/* Events not recorded since load, all reasons and CPUs. */
uint64_t top_bpf__drops(const struct top_bpf *t);
/* The programs' run time and runs over the last window between
 * top_bpf__cost_begin() and top_bpf__cost_end(), which keep the kernel's
 * run-time statistics on for that window only (all zero where it keeps
 * none: no CAP_SYS_ADMIN, or a kernel before 5.8). */
struct top_bpf_cost {
	uint64_t run_ns, runs, window_ns;
};
void top_bpf__cost_begin(struct top_bpf *t, uint64_t now_ns);
void top_bpf__cost_end(struct top_bpf *t, uint64_t now_ns);
struct top_bpf_cost top_bpf__cost(const struct top_bpf *t);
bool top_bpf__sampling(const struct top_bpf *t);
/* Detaches every program and event; safe to call twice. */
void top_bpf__detach(struct top_bpf *t);
void top_bpf__free(struct top_bpf *t);

#endif

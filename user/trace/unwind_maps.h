/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF unwinder's maps (bpf/unwind.bpf.h) in one loaded object, trace
 * or sampling: sized and switched on before load, filled with the
 * process's unwind table (built by syms/unwind_table.c, handed over by the
 * command) after, read back for its stacks and counters. Unwinding is an improvement, never a requirement:
 * when the table is empty or the kernel cannot run the unwinder, the
 * object keeps the kernel's frame-pointer stacks.
 */
#ifndef SPINSCOPE_UNWIND_MAPS_H
#define SPINSCOPE_UNWIND_MAPS_H

#include <stdbool.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include "unwind.h"

struct unwind_maps {
	struct bpf_object *obj;
	const struct ss_unwind_table *table;	/* until filled */
	bool on;			/* the unwinding programs are loaded */
};

/* Before load, after the programs to load are chosen: when table (built
 * by syms/unwind_table.c; NULL or empty: none) has rows and this kernel
 * runs the unwinder, sets *targ_unwind_rows, sizes the maps (max_stacks
 * stacks) and loads each program's unwinding twin (NAME_unw) in its
 * place. Prints why not with verbose. Never fails. table must live until
 * unwind_maps__fill(). */
void unwind_maps__prepare(struct unwind_maps *u, struct bpf_object *obj, struct bpf_map *kernel_stacks,
			  __u32 *targ_unwind_rows, const struct ss_unwind_table *table, __u32 max_stacks,
			  int verbose);
/* After load: writes the table. On failure returns -errno (the stacks
 * would then be cut short: the caller reports it). */
int unwind_maps__fill(struct unwind_maps *u);
/* The fd of the map that holds stack id's frames (map_read.h reads it):
 * the unwinder's, or kernel_stacks_fd for the kernel's stack ids. */
int unwind_maps__stack_fd(const struct unwind_maps *u, __s32 stack_id, int kernel_stacks_fd);
/* Sums the unwinder's per-CPU counters into out: 1, or 0 (zeros) when
 * it was off, or -errno. */
int unwind_maps__stats(const struct unwind_maps *u, __u64 out[SS_UNWIND_NSTATS]);
void unwind_maps__free(struct unwind_maps *u);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unwind table of one process: the CFI rows (cfi_table.h) of each
 * executable mapping whose code keeps no frame pointers, or not
 * everywhere (frame_ptr.h's judgement), with the mapping's address range
 * and load bias (struct ss_unwind_module). What BPF needs to step out of
 * libc (or libstdc++, libjvm) into the user's code. Libraries loaded
 * after the snapshot are not covered: their frames fall back to the
 * frame-pointer walk.
 */
#ifndef SPINSCOPE_UNWIND_TABLE_H
#define SPINSCOPE_UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "cfi_table.h"

struct unwind_table {
	struct cfi_table cfi;	/* every module's rows, at run-time addresses,
				 * sorted: the BPF table */
	struct ss_unwind_module mods[SS_UNWIND_MAX_MODULES];
	size_t nmods;
	size_t skipped;		/* frameless mappings not covered: unreadable, no
				 * .eh_frame_hdr, past the row or module limits */
	size_t unsupported;	/* rows BPF cannot follow (PLT, signal frames) */
};

struct unwind_table_opts {
	const char *proc_root;	/* "/proc" when NULL */
	size_t max_rows;	/* 0: SS_UNWIND_MAX_ROWS */
	bool all_modules;	/* cover modules with frame pointers too (tests) */
};

/* Builds the table of pid's current mappings into *t. Returns 0 (also
 * when nothing needs covering: t->nmods is then 0) or -errno when the
 * maps cannot be read. */
int unwind_table__build(int pid, const struct unwind_table_opts *o, struct unwind_table *t);
void unwind_table__free(struct unwind_table *t);

#endif

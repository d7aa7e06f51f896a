/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unwind table of one ELF file, from its .eh_frame call-frame
 * information (read with elfutils libdw): sorted rows saying, from each
 * address on, how to find the frame's CFA, the return address and the
 * caller's frame pointer (struct ss_unwind_row, bpf/unwind.h). BPF walks
 * it to step out of code built without frame pointers. Rules it cannot
 * express in a row (DWARF expressions, as in PLT stubs and signal
 * trampolines, or a CFA off another register) become SS_CFA_UNSUPPORTED
 * rows, where the BPF unwinder stops and falls back.
 */
#ifndef SPINSCOPE_CFI_TABLE_H
#define SPINSCOPE_CFI_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "unwind.h"

struct cfi_table {
	struct ss_unwind_row *rows;
	size_t nrows;
	size_t cap;
};

struct cfi_table_stats {
	size_t fdes;		/* functions (FDEs) read */
	size_t rows;		/* rows added */
	size_t unsupported;	/* ... of which with rules BPF cannot follow */
};

/* Appends the rows of the ELF file open at fd (pc: ELF virtual address)
 * after the table's existing rows, sorted among themselves. Returns the
 * number of rows added, -ENOTSUP for a machine other than x86-64 or
 * arm64, -ENOENT when the file has no .eh_frame_hdr, -EOVERFLOW past
 * max_rows in all, or another -errno. st may be NULL. */
int cfi_table__add_elf(struct cfi_table *t, int fd, size_t max_rows, struct cfi_table_stats *st);

/* Appends r (pc not below the last row's; at the same pc it replaces
 * that row). 0, -EOVERFLOW at max_rows or -ENOMEM. */
int cfi_table__push(struct cfi_table *t, const struct ss_unwind_row *r, size_t max_rows);

/* The row that applies at pc among rows[0..n) (sorted), or NULL when pc
 * is before the first: the same search the BPF unwinder does. */
const struct ss_unwind_row *cfi_table__find(const struct ss_unwind_row *rows, size_t n, uint64_t pc);

void cfi_table__free(struct cfi_table *t);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind table builder (see cfi_table.h). The functions come from
 * .eh_frame_hdr's sorted table of FDE start addresses; libdw interprets
 * each FDE's CFA program row by row (dwarf_cfi_addrframe gives the rules
 * at an address and the range they hold for), and each row's rules are
 * reduced to the few forms BPF can follow.
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include "cfi_table.h"

/* DWARF register numbers of the registers the unwinder tracks. */
struct cfi_regs {
	int sp, fp, ra;
};

static int machine_regs(Elf *elf, struct cfi_regs *r)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOTSUP;
	switch (eh.e_machine) {
	case EM_X86_64:
		*r = (struct cfi_regs){ .sp = 7, .fp = 6, .ra = 16 };
		return 0;
	case EM_AARCH64:
		*r = (struct cfi_regs){ .sp = 31, .fp = 29, .ra = 30 };
		return 0;
	default:
		return -ENOTSUP;
	}
}

int cfi_table__push(struct cfi_table *t, const struct ss_unwind_row *r, size_t max_rows)
{
	/* An empty range before pc: this row replaces it. */
	if (t->nrows && t->rows[t->nrows - 1].pc == r->pc) {
		t->rows[t->nrows - 1] = *r;
		return 0;
	}
	if (t->nrows >= max_rows)
		return -EOVERFLOW;
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		struct ss_unwind_row *rows = realloc(t->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		t->cap = cap;
	}
	t->rows[t->nrows++] = *r;
	return 0;
}

static int push_row(struct cfi_table *t, size_t first, size_t max_rows, const struct ss_unwind_row *r)
{
	const struct ss_unwind_row *last = t->nrows > first ? &t->rows[t->nrows - 1] : NULL;

	/* Same rules as the row before: it already covers pc. */
	if (last && !memcmp(&last->cfa_off, &r->cfa_off, sizeof(*r) - sizeof(r->pc)))
		return 0;
	return cfi_table__push(t, r, max_rows);
}

/* A register's saved location as an offset from the CFA: 1 when it is
 * one, 0 for "same value" (not saved), -1 for anything else. */
static int saved_at_cfa(Dwarf_Frame *f, int reg, int64_t *off, bool *undefined)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	*undefined = false;
	if (dwarf_frame_register(f, reg, mem, &ops, &nops))
		return -1;
	if (nops == 0) {
		/* libdw: ops == mem for "undefined", NULL for "same value". */
		*undefined = ops != NULL;
		return 0;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	if (nops == 1) {
		*off = 0;
		return 1;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 1;
	}
	return -1;
}

/* Reduces the rules of one CFI row to a table row. */
static struct ss_unwind_row row_of(Dwarf_Frame *f, const struct cfi_regs *regs, uint64_t pc)
{
	struct ss_unwind_row r = { .pc = pc, .cfa = SS_CFA_UNSUPPORTED };
	int64_t cfa_off, ra_off = 0, fp_off = 0;
	Dwarf_Op *ops;
	size_t nops;
	bool undef;
	int reg, how;

	if (dwarf_frame_cfa(f, &ops, &nops) || nops != 1)
		return r;
	if (ops[0].atom == DW_OP_bregx) {
		reg = (int)ops[0].number;
		cfa_off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg0 + 31) {
		reg = ops[0].atom - DW_OP_breg0;
		cfa_off = (int64_t)ops[0].number;
	} else {
		return r;
	}
	if ((reg != regs->sp && reg != regs->fp) || cfa_off < INT32_MIN || cfa_off > INT32_MAX)
		return r;

	how = saved_at_cfa(f, regs->ra, &ra_off, &undef);
	if (how == 0 && undef) {
		r.cfa = SS_CFA_END;
		return r;
	}
	/* A return address left in a register is arm64's link register in
	 * leaf code; on x86-64 it is always on the stack. */
	if (how < 0 || (how == 0 && regs->ra == 16) || (how == 1 && ra_off == 0) ||
	    ra_off % 8 || ra_off < 8 * INT8_MIN || ra_off > 8 * INT8_MAX)
		return r;
	how = saved_at_cfa(f, regs->fp, &fp_off, &undef);
	if (how < 0 || (how == 1 && fp_off == 0) || fp_off < INT16_MIN || fp_off > INT16_MAX)
		return r;
	r.cfa = reg == regs->sp ? SS_CFA_SP : SS_CFA_FP;
	r.cfa_off = (int32_t)cfa_off;
	r.ra_off8 = (int8_t)(ra_off / 8);
	r.fp_off = (int16_t)fp_off;
	return r;
}

static int32_t rd_s32(const unsigned char *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * .eh_frame_hdr (found through PT_GNU_EH_FRAME, which survives stripping):
 * version 1, three pointer encodings, the .eh_frame pointer, the FDE count
 * and a table of (start, FDE) pairs sorted by start. Linkers write the
 * count as udata4 and the table as datarel sdata4; other encodings are
 * not supported. Fills *starts (malloc'd ELF virtual addresses).
 */
static int fde_starts(Elf *elf, uint64_t **starts, size_t *n)
{
	const unsigned char *h = NULL;
	GElf_Phdr ph;
	Elf_Data *d = NULL;
	size_t nph, count, hdr_len = 4 + 4 + 4;
	uint64_t vaddr = 0;

	if (elf_getphdrnum(elf, &nph))
		return -EINVAL;
	for (size_t i = 0; i < nph && !d; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		vaddr = ph.p_vaddr;
	}
	if (!d || d->d_size < hdr_len)
		return -ENOENT;
	h = d->d_buf;
	if (h[0] != 1 || h[2] != DW_EH_PE_udata4 || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    (h[1] & 0x0f) != DW_EH_PE_sdata4)
		return -ENOTSUP;
	count = (uint32_t)rd_s32(h + 8);
	if (count > (d->d_size - hdr_len) / 8)
		return -EINVAL;
	*starts = malloc((count ? count : 1) * sizeof(**starts));
	if (!*starts)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++)
		(*starts)[i] = vaddr + (int64_t)rd_s32(h + hdr_len + 8 * i);
	*n = count;
	return 0;
}

/* Rows of one function, from start until its CFI ends (or limit, where
 * the next function begins). A gap after it gets an unsupported row. */
static int add_fde(struct cfi_table *t, size_t first, size_t max_rows, Dwarf_CFI *cfi,
		   const struct cfi_regs *regs, uint64_t start, uint64_t limit, struct cfi_table_stats *st)
{
	uint64_t addr = start;
	int err = 0;

	while (addr < limit) {
		Dwarf_Addr lo, hi;
		Dwarf_Frame *f;
		struct ss_unwind_row r;
		bool sig;

		if (dwarf_cfi_addrframe(cfi, addr, &f)) {
			struct ss_unwind_row gap = { .pc = addr, .cfa = SS_CFA_UNSUPPORTED };

			return addr == start ? 0 : push_row(t, first, max_rows, &gap);
		}
		dwarf_frame_info(f, &lo, &hi, &sig);
		r = row_of(f, regs, addr);
		free(f);
		if (sig)
			r.cfa = SS_CFA_UNSUPPORTED;
		st->unsupported += r.cfa == SS_CFA_UNSUPPORTED;
		err = push_row(t, first, max_rows, &r);
		if (err)
			return err;
		if (hi <= addr)
			break;
		addr = hi;
	}
	return 0;
}

static int add_rows(struct cfi_table *t, Elf *elf, size_t max_rows, struct cfi_table_stats *st)
{
	struct cfi_regs regs;
	uint64_t *starts = NULL;
	size_t n = 0, first = t->nrows;
	Dwarf_CFI *cfi;
	int err;

	err = machine_regs(elf, &regs);
	if (err)
		return err;
	err = fde_starts(elf, &starts, &n);
	if (err)
		return err;
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi) {
		free(starts);
		return -ENOENT;
	}
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t limit = i + 1 < n ? starts[i + 1] : UINT64_MAX;

		if (i && starts[i] < starts[i - 1]) {
			err = -EINVAL;	/* the header promises a sorted table */
			break;
		}
		st->fdes++;
		err = add_fde(t, first, max_rows, cfi, &regs, starts[i], limit, st);
	}
	dwarf_cfi_end(cfi);
	free(starts);
	if (err) {
		t->nrows = first;
		return err;
	}
	st->rows += t->nrows - first;
	return (int)(t->nrows - first);
}

int cfi_table__add_elf(struct cfi_table *t, int fd, size_t max_rows, struct cfi_table_stats *st)
{
	struct cfi_table_stats dummy = { 0 };
	Elf *elf;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -EINVAL;
	}
	err = add_rows(t, elf, max_rows, st ? st : &dummy);
	elf_end(elf);
	return err;
}

const struct ss_unwind_row *cfi_table__find(const struct ss_unwind_row *rows, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n;

	/* The last row with rows[i].pc <= pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &rows[lo - 1] : NULL;
}

void cfi_table__free(struct cfi_table *t)
{
	free(t->rows);
	*t = (struct cfi_table){ 0 };
}

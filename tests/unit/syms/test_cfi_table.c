// SPDX-License-Identifier: GPL-2.0
/*
 * The CFI table builder (cfi_table.c) against a fixture library built
 * without frame pointers (tests/fixtures/unwind_fixture.c), for x86-64 and
 * arm64: the rows of a leaf, a 64 KiB frame, a frame-pointer frame and the
 * PLT; sorting, lookups and the failures. Then unwind_table.c on this very
 * process: libc is covered at its run-time addresses.
 */
#include "testlib.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "syms/cfi_table.h"
#include "syms/unwind_table.h"
#include "syms_fixture.h"

struct built {
	struct cfi_table t;
	struct cfi_table_stats st;
	int n;
};

static void build(const char *fixture, struct built *b, size_t max_rows)
{
	int fd = open(tl_path(fixture), O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	memset(b, 0, sizeof(*b));
	b->n = cfi_table__add_elf(&b->t, fd, max_rows, &b->st);
	close(fd);
}

/* The row at pc, which must exist. */
static const struct ss_unwind_row *row_at(const struct built *b, uint64_t pc)
{
	const struct ss_unwind_row *r = cfi_table__find(b->t.rows, b->t.nrows, pc);

	assert_non_null(r);
	return r;
}

/* Whether some row in [lo, hi) satisfies the condition. */
#define ANY_ROW(b, lo, hi, cond) ({                                               \
		bool found_ = false;                                              \
		for (size_t i_ = 0; i_ < (b)->t.nrows; i_++) {                    \
			const struct ss_unwind_row *r = &(b)->t.rows[i_];         \
			if (r->pc >= (lo) && r->pc < (hi) && (cond))              \
				found_ = true;                                    \
		}                                                                 \
		found_;                                                           \
	})

/* Address of the section called name, 0 if none. */
static uint64_t section_addr(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t addr = 0;

	assert_true(fd >= 0);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name))
			addr = sh.sh_addr;
	}
	elf_end(elf);
	close(fd);
	return addr;
}

static void assert_sorted(const struct built *b)
{
	for (size_t i = 1; i < b->t.nrows; i++)
		assert_true(b->t.rows[i - 1].pc < b->t.rows[i].pc);
}

static void test_x86_64_rows(void **state)
{
	const char *lib = tl_path("fixtures/libunwind_fixture.so");
	uint64_t leaf = sf_nm(lib, "uf_leaf"), big = sf_nm(lib, "uf_big_frame");
	uint64_t vla = sf_nm(lib, "uf_vla"), out = sf_nm(lib, "uf_calls_out");
	uint64_t plt = section_addr(lib, ".plt");
	const struct ss_unwind_row *r;
	struct built b;

#ifndef __x86_64__
	skip();		/* the native fixture is built for this machine */
#endif
	assert_true(leaf && big && vla && out && plt);
	build("fixtures/libunwind_fixture.so", &b, SS_UNWIND_MAX_ROWS);
	assert_true(b.n > 0);
	assert_int_equal((size_t)b.n, b.t.nrows);
	assert_true(b.st.fdes >= 5);	/* the four functions, uf_fill, the PLT */
	assert_sorted(&b);

	/* A leaf: CFA = rsp + 8, the return address just below it, rbp
	 * untouched. */
	r = row_at(&b, leaf);
	assert_int_equal(r->cfa, SS_CFA_SP);
	assert_int_equal(r->cfa_off, 8);
	assert_int_equal(r->ra_off8, -1);
	assert_int_equal(r->fp_off, 0);
	/* Before any function: nothing. */
	assert_null(cfi_table__find(b.t.rows, b.t.nrows, b.t.rows[0].pc - 1));

	/* 64 KiB of locals: a CFA offset no 16-bit field would hold. */
	assert_true(ANY_ROW(&b, big, vla, r->cfa == SS_CFA_SP && r->cfa_off > 65536));
	/* A variable-length array brings rbp back as the frame base. */
	assert_true(ANY_ROW(&b, vla, out, r->cfa == SS_CFA_FP && r->cfa_off == 16 && r->fp_off == -16));
	/* PLT stubs (after the 16-byte PLT0) are described by a DWARF
	 * expression: not followed. */
	assert_true(b.st.unsupported >= 1);
	assert_int_equal(row_at(&b, plt + 16)->cfa, SS_CFA_UNSUPPORTED);
	/* Past the last function: the closing row, not followed either. */
	assert_int_equal(row_at(&b, UINT64_MAX)->cfa, SS_CFA_UNSUPPORTED);
	cfi_table__free(&b.t);
}

static void test_arm64_rows(void **state)
{
	const char *lib = tl_path("fixtures/libunwind_fixture_arm64.so");
	uint64_t leaf = sf_nm(lib, "uf_leaf"), vla = sf_nm(lib, "uf_vla");
	uint64_t out = sf_nm(lib, "uf_calls_out");
	const struct ss_unwind_row *r;
	struct built b;

	assert_true(leaf && vla && out);
	build("fixtures/libunwind_fixture_arm64.so", &b, SS_UNWIND_MAX_ROWS);
	assert_true(b.n > 0);
	assert_sorted(&b);
	/* Leaf code: CFA = sp, the return address still in x30. */
	r = row_at(&b, leaf);
	assert_int_equal(r->cfa, SS_CFA_SP);
	assert_int_equal(r->cfa_off, 0);
	assert_int_equal(r->ra_off8, 0);
	/* A call saves x30 in the frame; a VLA makes x29 the CFA base. */
	assert_true(ANY_ROW(&b, out, out + 0x40, r->cfa == SS_CFA_SP && r->ra_off8 < 0));
	assert_true(ANY_ROW(&b, vla, out, r->cfa == SS_CFA_FP && r->ra_off8 < 0 && r->fp_off < 0));
	cfi_table__free(&b.t);
}

static void test_failures(void **state)
{
	struct cfi_table t = { 0 };
	struct built b;
	int fd;

	/* No .eh_frame_hdr: no list of functions to read. */
	build("fixtures/libunwind_fixture_nohdr.so", &b, SS_UNWIND_MAX_ROWS);
	assert_int_equal(b.n, -ENOENT);
	assert_int_equal(b.t.nrows, 0);
	/* Over the row limit: nothing added. */
	build("fixtures/libunwind_fixture.so", &b, 3);
	assert_int_equal(b.n, -EOVERFLOW);
	assert_int_equal(b.t.nrows, 0);
	cfi_table__free(&b.t);
	/* Not ELF. */
	FILE *f = tmpfile();

	assert_non_null(f);
	fputs("not an ELF file\n", f);
	fflush(f);
	fd = fileno(f);
	assert_int_equal(cfi_table__add_elf(&t, fd, SS_UNWIND_MAX_ROWS, NULL), -EINVAL);
	fclose(f);
	assert_null(cfi_table__find(t.rows, 0, 0x1000));
}

/* This test's own libc: covered (it has no frame pointers), at run-time
 * addresses, the rows of all modules in one sorted table. */
static void test_process_table_covers_libc(void **state)
{
	struct unwind_table t;
	uint64_t pc = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
	const struct ss_unwind_row *r;
	bool in_module = false;

	assert_true(pc != 0);
	assert_int_equal(unwind_table__build(getpid(), NULL, &t), 0);
	assert_true(t.nmods >= 1);
	for (size_t i = 1; i < t.cfi.nrows; i++)
		assert_true(t.cfi.rows[i - 1].pc < t.cfi.rows[i].pc);
	for (size_t i = 0; i < t.nmods; i++) {
		const struct ss_unwind_module *m = &t.mods[i];

		in_module |= pc >= m->start && pc < m->end;
		/* Each module's rows lie in it and end with a "not covered" row. */
		assert_true(m->nrows >= 2);
		assert_true(t.cfi.rows[m->first_row].pc >= m->start);
		assert_int_equal(t.cfi.rows[m->first_row + m->nrows - 1].pc, m->end);
		assert_int_equal(t.cfi.rows[m->first_row + m->nrows - 1].cfa, SS_CFA_NONE);
	}
	assert_true(in_module);
	r = cfi_table__find(t.cfi.rows, t.cfi.nrows, pc);
	assert_non_null(r);
	/* pthread_mutex_lock's entry: CFA = rsp + 8 (x86-64), sp (arm64). */
	assert_int_equal(r->cfa, SS_CFA_SP);
	assert_true(r->cfa_off == 8 || r->cfa_off == 0);
	unwind_table__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64_rows),
		cmocka_unit_test(test_arm64_rows),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_process_table_covers_libc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

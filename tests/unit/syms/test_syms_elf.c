// SPDX-License-Identifier: GPL-2.0
/*
 * elf_symtab.c and frame_ptr.c on their own: symbols and segments of a
 * fixture against nm and readelf, truncated and corrupted images (which
 * must fail or load, never crash: run under `make asan` this is a small
 * fuzz), and prologue patterns of both architectures.
 */
#include "testlib.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "syms/elf_symtab.h"
#include "syms/frame_ptr.h"
#include "syms_fixture.h"

static void *read_file(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *buf;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

static void test_symbols_match_nm(void **state)
{
	const char *bin = tl_path("fixtures/syms_nopie");
	static const char *const names[] = {
		"syms_fixture_leaf", "syms_fixture_static", "syms_fixture_chain0", "syms_fixture_chain15", "main",
	};
	size_t size;
	void *img = read_file(bin, &size);
	struct elf_symtab *st;
	uint64_t off;
	int err;

	st = elf_symtab__load_mem(img, size, &err);
	assert_non_null(st);
	assert_int_equal(elf_symtab__source(st), ELF_SYMS_SYMTAB);
	assert_true(elf_symtab__count(st) >= 20);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t addr = sf_nm(bin, names[i]);
		const char *got;

		assert_true(addr != 0);
		got = elf_symtab__find(st, addr + 1, &off);
		assert_non_null(got);
		assert_string_equal(got, names[i]);
		assert_true(off == 1);
	}
	/* below the first function and past the end of text: nothing */
	assert_null(elf_symtab__find(st, 0x1000, &off));
	assert_null(elf_symtab__find(st, UINT64_MAX, &off));
	assert_int_equal(elf_symtab__check_frame_ptr(st, -1, img, size), FRAME_PTR_YES);
	elf_symtab__free(st);
	free(img);
}

/* readelf says the text segment of the non-PIE fixture starts at file
 * offset 0x1000, link address 0x401000: offsets map through it. */
static void test_file_offset_to_vaddr(void **state)
{
	size_t size;
	void *img = read_file(tl_path("fixtures/syms_nopie"), &size);
	struct elf_symtab *st;
	uint64_t v;
	int err;

	st = elf_symtab__load_mem(img, size, &err);
	assert_non_null(st);
	assert_int_equal(elf_symtab__file_to_vaddr(st, 0x1010, &v), 0);
	assert_true(v == 0x401010);
	assert_int_equal(elf_symtab__file_to_vaddr(st, 1 << 30, &v), -ENOENT);
	elf_symtab__free(st);
	free(img);
}

static void test_frame_pointer_verdicts(void **state)
{
	static const char *const fp[] = { "fixtures/syms_fp_pie", "fixtures/syms_nopie" };
	size_t size;
	void *img;
	struct elf_symtab *st;
	int err;

	for (size_t i = 0; i < 2; i++) {
		img = read_file(tl_path(fp[i]), &size);
		st = elf_symtab__load_mem(img, size, &err);
		assert_non_null(st);
		assert_int_equal(elf_symtab__check_frame_ptr(st, -1, img, size), FRAME_PTR_YES);
		elf_symtab__free(st);
		free(img);
	}
	img = read_file(tl_path("fixtures/syms_nofp"), &size);
	st = elf_symtab__load_mem(img, size, &err);
	assert_non_null(st);
	assert_int_equal(elf_symtab__check_frame_ptr(st, -1, img, size), FRAME_PTR_NO);
	elf_symtab__free(st);
	free(img);
}

/* The build-ids of two variants differ: their debug files do not mix. */
static void test_foreign_debug_file_refused(void **state)
{
	size_t a_size, b_size;
	void *a = read_file(tl_path("fixtures/syms_buildid"), &a_size);
	void *b = read_file(tl_path("fixtures/syms_debuglink.debug"), &b_size);
	struct elf_symtab *st, *dbg;
	size_t len;
	int err;

	st = elf_symtab__load_mem(a, a_size, &err);
	dbg = elf_symtab__load_mem(b, b_size, &err);
	assert_non_null(st);
	assert_non_null(dbg);
	assert_non_null(elf_symtab__build_id(st, &len));
	assert_int_equal(len, 20);
	assert_int_equal(elf_symtab__take_symbols(st, dbg, ELF_SYMS_BUILD_ID), -ESTALE);
	assert_int_not_equal(elf_symtab__source(st), ELF_SYMS_BUILD_ID);
	elf_symtab__free(st);
	elf_symtab__free(dbg);
	free(a);
	free(b);
}

static void check_image(const void *img, size_t size)
{
	struct elf_symtab *st;
	uint64_t off, v;
	int err;

	st = elf_symtab__load_mem(img, size, &err);
	if (!st) {
		assert_true(err < 0);
		return;
	}
	/* whatever loaded must be usable: names, PLT stubs, demangling */
	for (uint64_t a = 0; a < 0x3000; a += 0x101) {
		struct elf_sym_hit hit;

		elf_symtab__find(st, 0x400000 + a, &off);
		if (elf_symtab__lookup(st, a, &hit))
			assert_true(hit.name && hit.raw && strlen(hit.name) < 1024);
	}
	elf_symtab__file_to_vaddr(st, 0x1000, &v);
	elf_symtab__check_frame_ptr(st, -1, img, size);
	elf_symtab__free(st);
}

/* Every prefix of a real binary (a download cut short, a file being
 * written): each must load or fail cleanly. */
static void test_truncated_images(void **state)
{
	size_t size;
	unsigned char *img = read_file(tl_path("fixtures/syms_nopie"), &size);

	for (size_t len = 0; len < size; len += len < 256 ? 1 : 61)
		check_image(img, len);
	free(img);
}

/* Deterministic corruption: overwrite header fields and random bytes
 * with extreme values (huge counts, offsets past the end, bad links). */
static void corrupt(const char *fixture, int rounds)
{
	static const uint64_t extremes[] = { 0, 1, 0x7f, 0xff, 0xffff, 0x7fffffff, 0xffffffff, UINT64_MAX };
	size_t size;
	unsigned char *orig = read_file(tl_path(fixture), &size);
	unsigned char *img = malloc(size);
	uint32_t rnd = 12345;

	assert_non_null(img);
	for (int round = 0; round < rounds; round++) {
		memcpy(img, orig, size);
		for (int k = 0; k < 1 + round % 4; k++) {
			size_t pos;
			uint64_t v;

			rnd = rnd * 1103515245 + 12345;
			/* half of the hits land in the ELF header */
			pos = (rnd >> 8) % (round % 2 ? sizeof(Elf64_Ehdr) : size - 8);
			v = extremes[(rnd >> 4) % 8];
			memcpy(img + pos, &v, 1 + (rnd >> 2) % 8);
		}
		check_image(img, size);
	}
	free(img);
	free(orig);
}

static void test_corrupted_images(void **state)
{
	corrupt("fixtures/syms_nopie", 1500);
	/* mangled names, imports of C++ functions through the PLT */
	corrupt("fixtures/syms_cxx", 500);
}

/* entries: `sets` copies of a, then `clobbers` of b, the rest c */
static void fill(uint8_t (*entries)[FRAME_PTR_PROLOGUE], size_t n, size_t sets, size_t clobbers,
		 const uint8_t *a, const uint8_t *b, const uint8_t *c)
{
	for (size_t i = 0; i < n; i++)
		memcpy(entries[i], i < sets ? a : i < sets + clobbers ? b : c, FRAME_PTR_PROLOGUE);
}

static enum frame_ptr_state classify(uint8_t (*entries)[FRAME_PTR_PROLOGUE], size_t n)
{
	return frame_ptr__classify(EM_X86_64, (const uint8_t (*)[FRAME_PTR_PROLOGUE])entries, n);
}

static void test_prologue_patterns(void **state)
{
	static const uint8_t x86_plain[FRAME_PTR_PROLOGUE] = { 0x55, 0x48, 0x89, 0xe5 };
	static const uint8_t x86_endbr[FRAME_PTR_PROLOGUE] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5 };
	static const uint8_t x86_other_mov[FRAME_PTR_PROLOGUE] = { 0x55, 0x48, 0x8b, 0xec };
	/* push %rbx; sub $0x10,%rsp: leaves %rbp alone */
	static const uint8_t x86_none[FRAME_PTR_PROLOGUE] = { 0x53, 0x48, 0x83, 0xec, 0x10 };
	/* push %rbp; push %rbx: %rbp saved to be used as a scratch register */
	static const uint8_t x86_push_only[FRAME_PTR_PROLOGUE] = { 0x55, 0x53, 0x48, 0x83 };
	/* push %r15; push %r14; push %rbp; push %rbx (gcc -O2 without) */
	static const uint8_t x86_saves[FRAME_PTR_PROLOGUE] = { 0x41, 0x57, 0x41, 0x56, 0x55, 0x53, 0x48, 0x83 };
	/* stp x29, x30, [sp, #-32]!; mov x29, sp */
	static const uint8_t a64_plain[FRAME_PTR_PROLOGUE] = { 0xfd, 0x7b, 0xbe, 0xa9, 0xfd, 0x03, 0x00, 0x91 };
	/* paciasp; sub sp, sp, #0x40; stp x29, x30, [sp, #0x30]; add x29, sp, #0x30 */
	static const uint8_t a64_big[FRAME_PTR_PROLOGUE] = {
		0x3f, 0x23, 0x03, 0xd5, 0xff, 0x03, 0x01, 0xd1, 0xfd, 0x7b, 0x03, 0xa9, 0xfd, 0xc3, 0x00, 0x91,
	};
	/* sub sp, sp, #0x10; ret: a leaf without a frame record */
	static const uint8_t a64_none[FRAME_PTR_PROLOGUE] = { 0xff, 0x43, 0x00, 0xd1, 0xc0, 0x03, 0x5f, 0xd6 };
	uint8_t entries[20][FRAME_PTR_PROLOGUE];

	assert_int_equal(frame_ptr__prologue(EM_X86_64, x86_plain), FRAME_PTR_PRO_SETS);
	assert_int_equal(frame_ptr__prologue(EM_X86_64, x86_endbr), FRAME_PTR_PRO_SETS);
	assert_int_equal(frame_ptr__prologue(EM_X86_64, x86_other_mov), FRAME_PTR_PRO_SETS);
	assert_int_equal(frame_ptr__prologue(EM_X86_64, x86_none), FRAME_PTR_PRO_NEUTRAL);
	assert_int_equal(frame_ptr__prologue(EM_X86_64, x86_push_only), FRAME_PTR_PRO_CLOBBERS);
	assert_int_equal(frame_ptr__prologue(EM_X86_64, x86_saves), FRAME_PTR_PRO_CLOBBERS);
	assert_int_equal(frame_ptr__prologue(EM_AARCH64, a64_plain), FRAME_PTR_PRO_SETS);
	assert_int_equal(frame_ptr__prologue(EM_AARCH64, a64_big), FRAME_PTR_PRO_SETS);
	assert_int_equal(frame_ptr__prologue(EM_AARCH64, a64_none), FRAME_PTR_PRO_NEUTRAL);
	assert_int_equal(frame_ptr__prologue(EM_RISCV, a64_plain), FRAME_PTR_PRO_UNSUPPORTED);

	/* verdicts over 20 functions: fewer than 10% setting a frame up is
	 * "no"; more than 5% using the register as scratch is "partial" */
	fill(entries, 20, 1, 0, x86_plain, x86_saves, x86_none);
	assert_int_equal(classify(entries, 20), FRAME_PTR_NO);
	fill(entries, 20, 1, 6, x86_plain, x86_saves, x86_none);
	assert_int_equal(classify(entries, 20), FRAME_PTR_NO);
	fill(entries, 20, 2, 0, x86_plain, x86_saves, x86_none);	/* 10%: leaf-heavy code */
	assert_int_equal(classify(entries, 20), FRAME_PTR_YES);
	fill(entries, 20, 14, 0, x86_plain, x86_saves, x86_none);
	assert_int_equal(classify(entries, 20), FRAME_PTR_YES);
	fill(entries, 20, 14, 1, x86_plain, x86_saves, x86_none);
	assert_int_equal(classify(entries, 20), FRAME_PTR_YES);
	fill(entries, 20, 8, 3, x86_plain, x86_saves, x86_none);
	assert_int_equal(classify(entries, 20), FRAME_PTR_PARTIAL);
	assert_int_equal(classify(entries, FRAME_PTR_MIN_SAMPLES - 1), FRAME_PTR_UNKNOWN);
	assert_int_equal(frame_ptr__classify(EM_RISCV, (const uint8_t (*)[FRAME_PTR_PROLOGUE])entries, 20),
			 FRAME_PTR_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols_match_nm),
		cmocka_unit_test(test_file_offset_to_vaddr),
		cmocka_unit_test(test_frame_pointer_verdicts),
		cmocka_unit_test(test_foreign_debug_file_refused),
		cmocka_unit_test(test_truncated_images),
		cmocka_unit_test(test_corrupted_images),
		cmocka_unit_test(test_prologue_patterns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

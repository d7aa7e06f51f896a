// SPDX-License-Identifier: GPL-2.0
/*
 * The built BPF objects use only instructions and helpers that Linux 5.10
 * has (README's oldest tested kernel; 5.8 is the stated minimum): 5.10's
 * verifier refuses a BPF cmpxchg with "BPF_STX uses reserved fields" and
 * an atomic with BPF_FETCH the same way (both 5.12), the cpu v4
 * instructions (6.6) as unknown opcodes, and later helpers as unknown
 * functions. Reads every executable section of each object, so
 * subprograms are covered too, except the stack unwinder's programs, which
 * are loaded only after a probe of their helpers; needs no root.
 */
#include "testlib.h"
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>

#define LAST_HELPER_5_10 BPF_FUNC_redirect_peer	/* helper 155, 5.10's last */

/*
 * light.bpf.c is loaded only with --light, and only once the kernel has
 * been probed for the two helpers it needs beyond 5.10's (light.c,
 * light_check_kernel: bpf_task_pt_regs, Linux 5.15). Everything else in it
 * must still load on 5.10's verifier.
 */
static const int light_helpers[] = { BPF_FUNC_get_current_task_btf, BPF_FUNC_task_pt_regs, 0 };

static bool helper_allowed(int id, const int *extra)
{
	if (id <= LAST_HELPER_5_10)
		return true;
	for (; extra && *extra; extra++)
		if (*extra == id)
			return true;
	return false;
}

/* Why insn would be refused by 5.10's verifier, or NULL; extra: the
 * newer helpers the object may call (0-terminated, NULL: none). */
static const char *insn_newer_than_5_10(const struct bpf_insn *insn, const int *extra)
{
	__u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);

	if (cls == BPF_STX && BPF_MODE(insn->code) == BPF_ATOMIC) {
		if (insn->imm == BPF_CMPXCHG)
			return "BPF cmpxchg (Linux 5.12)";
		if (insn->imm != BPF_ADD)
			return "atomic other than a plain add: BPF_FETCH, xchg, and/or/xor (Linux 5.12)";
	}
	if (cls == BPF_LDX && BPF_MODE(insn->code) == 0x80)
		return "sign-extending load, cpu v4 (Linux 6.6)";
	if ((cls == BPF_ALU || cls == BPF_ALU64) && op == BPF_MOV && insn->off)
		return "sign-extending move, cpu v4 (Linux 6.6)";
	if ((cls == BPF_ALU || cls == BPF_ALU64) && (op == BPF_DIV || op == BPF_MOD) && insn->off)
		return "signed division, cpu v4 (Linux 6.6)";
	if (cls == BPF_ALU64 && op == BPF_END)
		return "unconditional byte swap, cpu v4 (Linux 6.6)";
	if (cls == BPF_JMP32 && op == BPF_JA)
		return "32-bit jump offset, cpu v4 (Linux 6.6)";
	if (cls == BPF_JMP && op == BPF_CALL) {
		if (insn->src_reg == BPF_PSEUDO_KFUNC_CALL)
			return "kfunc call (Linux 5.13)";
		if (insn->src_reg == 0 && !helper_allowed(insn->imm, extra))
			return "helper newer than Linux 5.10";
	}
	return NULL;
}

/*
 * The stack unwinder's programs (NAME_unw, and its bpf_loop callback
 * unwind_frame) are loaded only where user/trace/unwind_maps.c probed
 * bpf_loop and bpf_task_pt_regs (5.17): whether insn byte offset off of
 * section scn lies in one of them.
 */
static bool gated_by_probe(Elf *elf, size_t scn, uint64_t off)
{
	Elf_Scn *sym_scn = NULL;

	while ((sym_scn = elf_nextscn(elf, sym_scn))) {
		Elf_Data *data = elf_getdata(sym_scn, NULL);
		GElf_Shdr sh;
		GElf_Sym sym;

		if (!gelf_getshdr(sym_scn, &sh) || sh.sh_type != SHT_SYMTAB || !data)
			continue;
		for (size_t i = 0; gelf_getsym(data, (int)i, &sym); i++) {
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			size_t n = name ? strlen(name) : 0;

			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx != scn ||
			    off < sym.st_value || off >= sym.st_value + sym.st_size)
				continue;
			return (n > 4 && !strcmp(name + n - 4, "_unw")) || !strcmp(name, "unwind_frame");
		}
	}
	return false;
}

/* Checks every executable section of one object; returns the problems. */
static int check_object(const char *path, const int *extra)
{
	int fd = open(path, O_RDONLY), bad = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		const struct bpf_insn *insns;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !data)
			continue;
		insns = data->d_buf;
		for (size_t i = 0; i < data->d_size / sizeof(*insns); i++) {
			const char *why = insn_newer_than_5_10(&insns[i], extra);

			if (why && !gated_by_probe(elf, elf_ndxscn(scn), i * sizeof(*insns))) {
				print_message("%s: section %s insn %zu: %s\n", path,
					      elf_strptr(elf, shstrndx, sh.sh_name), i, why);
				bad++;
			}
			/* ldimm64 spans two slots; the second is not an insn. */
			if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
				i++;
		}
	}
	elf_end(elf);
	close(fd);
	return bad;
}

/* The checker itself refuses what 5.10 refuses (so the test can fail). */
static void test_checker_refuses_newer_insns(void **state)
{
	const struct bpf_insn bad[] = {
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .imm = BPF_CMPXCHG },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_W, .imm = BPF_XCHG },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .imm = BPF_OR },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .off = 32 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_task_storage_get },
	};
	const struct bpf_insn good[] = {
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .imm = BPF_ADD },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_stackid },
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 200 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_non_null(insn_newer_than_5_10(&bad[i], light_helpers));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_null(insn_newer_than_5_10(&good[i], NULL));
}

static void test_objects_run_on_5_10(void **state)
{
	const char *dir = tl_path("bpf");
	struct dirent *de;
	int objects = 0, bad = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[4096];

		if (n < 6 || strcmp(de->d_name + n - 6, ".bpf.o"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		bad += check_object(path, strcmp(de->d_name, "light.bpf.o") ? NULL : light_helpers);
		objects++;
	}
	closedir(d);
	/* trace and sampling at least: an empty folder proves nothing. */
	assert_true(objects >= 2);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_refuses_newer_insns),
		cmocka_unit_test(test_objects_run_on_5_10),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The built BPF objects use only instructions and helpers that Linux 5.10
 * has (docs/REFERENCE.md's oldest tested kernel; 5.8 is the stated minimum): 5.10's
 * verifier refuses a BPF cmpxchg with "BPF_STX uses reserved fields" and
 * an atomic with BPF_FETCH the same way (both 5.12), the cpu v4
 * instructions (6.6) as unknown opcodes, and later helpers as unknown
 * functions. Reads every executable section of each object, so
 * subprograms are covered too, except the stack unwinder's programs, which
 * are loaded only after a probe of their helpers; needs no root.
 *
 * It also checks that a map update's error is read as the kernels before
 * 6.5 return it (map_result_misread()): the only way to see that bug on a
 * 6.5+ host, where it never shows at run time.
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
 * light.bpf.c (both builds) is loaded only with --light, and only once the
 * kernel has been probed for the two helpers it needs beyond 5.10's
 * (light.c, light_check_kernel: bpf_task_pt_regs, Linux 5.15). Everything
 * else in it must still load on 5.10's verifier.
 */
static const int light_helpers[] = { BPF_FUNC_get_current_task_btf, BPF_FUNC_task_pt_regs, 0 };

/* What an object may use beyond 5.10's verifier because user space probes
 * for it first: newer helpers, and BPF compare-and-swap (5.12). */
struct newer_ok {
	const int *helpers;	/* 0-terminated */
	bool cmpxchg;
};

static const struct newer_ok light_ok = { light_helpers, false };
/* top.bpf.c (both builds) is loaded only where light_helpers are, 5.15
 * and later (top_bpf.c's check_kernel), so its array slots are claimed
 * with compare-and-swap (5.12). */
static const struct newer_ok top_ok = { light_helpers, true };

/* What the object file name may use: light's and top's builds. */
static const struct newer_ok *newer_ok_of(const char *name)
{
	if (!strncmp(name, "light", 5))
		return &light_ok;
	if (!strncmp(name, "top", 3))
		return &top_ok;
	return NULL;
}

static bool helper_allowed(int id, const int *extra)
{
	if (id <= LAST_HELPER_5_10)
		return true;
	for (; extra && *extra; extra++)
		if (*extra == id)
			return true;
	return false;
}

/* Why insn would be refused by 5.10's verifier, or NULL; ok: what newer
 * the object may use (NULL: nothing). */
static const char *insn_newer_than_5_10(const struct bpf_insn *insn, const struct newer_ok *ok)
{
	__u8 cls = BPF_CLASS(insn->code), op = BPF_OP(insn->code);
	const int *extra = ok ? ok->helpers : NULL;

	if (cls == BPF_STX && BPF_MODE(insn->code) == BPF_ATOMIC) {
		if (insn->imm == BPF_CMPXCHG)
			return ok && ok->cmpxchg ? NULL : "BPF cmpxchg (Linux 5.12)";
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
 * Helpers that the verifier turns into direct calls of the map's own
 * function, which returned int before Linux 6.5 ("bpf: return long from
 * bpf_map_ops funcs"): an error reaches the program zero-extended, -EEXIST
 * as 0x00000000ffffffef.
 */
static bool map_op_int_before_6_5(int id)
{
	return id == BPF_FUNC_map_update_elem || id == BPF_FUNC_map_delete_elem ||
	       id == BPF_FUNC_map_push_elem || id == BPF_FUNC_map_pop_elem ||
	       id == BPF_FUNC_map_peek_elem;
}

/* Straight-line instructions after the call that are searched. */
#define RESULT_WINDOW 16

/*
 * Why the result of the call at insns[at] is misread on 5.10 to 6.4, or
 * NULL: compared in 64 bits with a negative number (an errno) before
 * anything narrowed it, which never matches there (the kernel matrix's
 * 5.10 and 6.1 guests counted lost insert races as drops that way). Follows
 * the fall-through path and the registers the result is copied to.
 */
static const char *map_result_misread(const struct bpf_insn *insns, size_t n, size_t at)
{
	unsigned int holds = 1u << BPF_REG_0, neg = 0;	/* the result; negative constants */
	const struct bpf_insn *c = &insns[at];

	if (c->code != (BPF_JMP | BPF_CALL) || c->src_reg || !map_op_int_before_6_5(c->imm))
		return NULL;
	for (size_t i = at + 1; i < n && i <= at + RESULT_WINDOW && holds; i++) {
		const struct bpf_insn *in = &insns[i];
		__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		unsigned int dst = 1u << in->dst_reg, src = 1u << in->src_reg;
		bool x = BPF_SRC(in->code) == BPF_X;

		if (cls == BPF_JMP && (op == BPF_CALL || op == BPF_EXIT || op == BPF_JA))
			return NULL;
		if (cls == BPF_JMP && op != BPF_JSET &&
		    (((holds & dst) && (x ? (neg & src) : in->imm < 0)) ||
		     (x && (holds & src) && (neg & dst))))
			return "map helper's result compared in 64 bits with a negative errno "
			       "(an int before Linux 6.5: compare it as an int)";
		if (cls == BPF_JMP || cls == BPF_JMP32 || cls == BPF_ST || cls == BPF_STX)
			continue;	/* no register written */
		if (cls == BPF_ALU64 && op == BPF_MOV && x) {
			holds = holds & src ? holds | dst : holds & ~dst;
			neg = neg & src ? neg | dst : neg & ~dst;
			continue;
		}
		holds &= ~dst;
		neg &= ~dst;
		if (cls == BPF_ALU64 && op == BPF_MOV && in->imm < 0)
			neg |= dst;
		if (in->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (i + 1 < n && in[1].imm < 0)	/* the upper half */
				neg |= dst;
			i++;
		}
	}
	return NULL;
}

/*
 * The stack unwinder's programs (NAME_unw) and its functions (unwind_*:
 * the global unwind_user_stackid() and its bpf_loop callbacks, called only
 * from those programs) are loaded only where user/trace/unwind_maps.c
 * probed bpf_loop and bpf_task_pt_regs (5.17): whether insn byte offset
 * off of section scn lies in one of them.
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
			return (n > 4 && !strcmp(name + n - 4, "_unw")) || !strncmp(name, "unwind_", 7);
		}
	}
	return false;
}

/* Checks every executable section of one object; returns the problems. */
/* A built object's ELF, read only; close_elf() ends it. */
static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	*fd = open(path, O_RDONLY);
	assert_true(*fd >= 0);
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	return elf;
}

static void close_elf(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

static int check_object(const char *path, const struct newer_ok *extra)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, bad = 0;
	Elf *elf = open_elf(path, &fd);

	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		const struct bpf_insn *insns;
		size_t ninsns;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !data)
			continue;
		insns = data->d_buf;
		ninsns = data->d_size / sizeof(*insns);
		for (size_t i = 0; i < ninsns; i++) {
			const char *why = insn_newer_than_5_10(&insns[i], extra);

			if (why && gated_by_probe(elf, elf_ndxscn(scn), i * sizeof(*insns)))
				why = NULL;
			/* The unwinder's programs run on 5.17 to 6.4 too. */
			why = why ?: map_result_misread(insns, ninsns, i);
			if (why) {
				print_message("%s: section %s insn %zu: %s\n", path,
					      elf_strptr(elf, shstrndx, sh.sh_name), i, why);
				bad++;
			}
			/* ldimm64 spans two slots; the second is not an insn. */
			if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
				i++;
		}
	}
	close_elf(elf, fd);
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
		assert_non_null(insn_newer_than_5_10(&bad[i], &light_ok));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_null(insn_newer_than_5_10(&good[i], NULL));
}

/* The misread map result is found, in both forms clang emits, and the
 * narrowed reads it emits for an int are not. */
static void test_checker_finds_misread_map_results(void **state)
{
	const struct bpf_insn long_imm[] = {	/* long err; if (err != -EEXIST) */
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_update_elem },
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .off = 1 },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = BPF_REG_0, .imm = -17, .off = 7 },
	};
	const struct bpf_insn long_reg[] = {	/* the same through a copy and a register */
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_delete_elem },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_6, .src_reg = BPF_REG_0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = -17 },
		{ .code = BPF_JMP | BPF_JEQ | BPF_X, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_6, .off = 1 },
	};
	const struct bpf_insn int_zext[] = {	/* int err; if (err != -EEXIST), clang 14 */
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_update_elem },
		{ .code = BPF_ALU64 | BPF_LSH | BPF_K, .dst_reg = BPF_REG_0, .imm = 32 },
		{ .code = BPF_ALU64 | BPF_RSH | BPF_K, .dst_reg = BPF_REG_0, .imm = 32 },
		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = BPF_REG_1, .imm = (int)0xffffffef },
		{ .imm = 0 },
		{ .code = BPF_JMP | BPF_JEQ | BPF_X, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_1, .off = 1 },
	};
	const struct bpf_insn int_jmp32[] = {	/* the same with cpu v3's 32-bit jumps */
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_update_elem },
		{ .code = BPF_JMP32 | BPF_JNE | BPF_K, .dst_reg = BPF_REG_0, .imm = -17, .off = 7 },
	};
	const struct bpf_insn stackid[] = {	/* a helper that returns a long itself */
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_stackid },
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_0, .imm = -17, .off = 1 },
	};

	assert_non_null(map_result_misread(long_imm, 3, 0));
	assert_non_null(map_result_misread(long_reg, 4, 0));
	assert_null(map_result_misread(int_zext, 6, 0));
	assert_null(map_result_misread(int_jmp32, 2, 0));
	assert_null(map_result_misread(stackid, 2, 0));
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
		/* light's and top's builds (with and without kfuncs) may use
		 * what their kernel checks probe for */
		bad += check_object(path, newer_ok_of(de->d_name));
		objects++;
	}
	closedir(d);
	/* trace and sampling at least: an empty folder proves nothing. */
	assert_true(objects >= 2);
	assert_int_equal(bad, 0);
}

/* The functions path's object calls but does not define (kfuncs: libbpf
 * resolves them in the kernel's own BTF, which a kernel without it lacks). */
static int undefined_functions(const char *path)
{
	Elf_Scn *scn = NULL;
	int fd, n = 0;
	Elf *elf = open_elf(path, &fd);

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Shdr sh;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !data)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF ||
			    GELF_ST_BIND(sym.st_info) == STB_LOCAL)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name) {
				print_message("%s: calls %s\n", path, name);
				n++;
			}
		}
	}
	close_elf(elf, fd);
	return n;
}

/* The builds without kfuncs call none (user space opens them where the
 * kernel's own BTF cannot resolve one); the builds with them do, which
 * shows the check sees a kfunc when there is one. */
static void test_nokfunc_builds_call_no_kfunc(void **state)
{
	static const char *const pairs[][2] = {
		{ "trace.bpf.o", "trace_nokfunc.bpf.o" },
		{ "light.bpf.o", "light_nokfunc.bpf.o" },
		{ "top.bpf.o", "top_nokfunc.bpf.o" },
	};
	char path[4096];

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tl_path("bpf"), pairs[i][0]);
		assert_true(undefined_functions(path) > 0);
		snprintf(path, sizeof(path), "%s/%s", tl_path("bpf"), pairs[i][1]);
		assert_int_equal(undefined_functions(path), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_refuses_newer_insns),
		cmocka_unit_test(test_checker_finds_misread_map_results),
		cmocka_unit_test(test_objects_run_on_5_10),
		cmocka_unit_test(test_nokfunc_builds_call_no_kfunc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

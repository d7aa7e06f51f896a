// SPDX-License-Identifier: GPL-2.0
/*
 * Data addresses of sampled instructions (see data_addr.h): capstone
 * decodes, the registers the timer interrupt found give the addresses,
 * /proc/PID/maps and the files' ELF object symbols name them.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <capstone/capstone.h>
#include "common/sort.h"
#include "data_addr.h"
#include "data_fields.h"
#include "syms.h"

/* Words of bpf_user_pt_regs_t: x86-64 struct pt_regs, arm64 user_pt_regs. */
enum { X86_R15, X86_R14, X86_R13, X86_R12, X86_RBP, X86_RBX, X86_R11, X86_R10, X86_R9,
       X86_R8, X86_RAX, X86_RCX, X86_RDX, X86_RSI, X86_RDI, X86_ORIG_RAX, X86_RIP,
       X86_CS, X86_FLAGS, X86_RSP, X86_SS };
#define A64_LR 30
#define A64_SP 31
#define A64_PC 32

/* Code read from a function's start to the IP at most. */
#define MAX_FUNC_BYTES (64 * 1024)
#define MAX_INSN 16

struct mapping {
	uint64_t start, end, offset;
	bool exec, stack;
	char *path;		/* NULL: anonymous */
};

struct objsym {
	uint64_t addr, size;	/* link-time address */
	char *name;
};

/* A file's object symbols, loaded when an address first lands in it. */
struct module {
	char *path;
	char *file;		/* where it was opened from, for its DWARF */
	struct data_fields *fields;	/* opened at the first global named */
	uint64_t bias;		/* run-time minus link-time address */
	uint64_t lo, hi;	/* run-time range of its PT_LOAD segments */
	struct objsym *syms;	/* sorted by addr */
	size_t nsyms;
};

struct data_addr {
	int pid, memfd;
	enum data_arch arch;
	csh cs;
	struct syms *syms;
	struct mapping *maps;
	size_t nmaps;
	struct module *mods;
	size_t nmods;
	uint8_t *code;		/* MAX_FUNC_BYTES + MAX_INSN */
	struct data_addr_stats st;
};

/* Printable and plain: names come from the target and may be hostile. */
static void sanitise(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.$:<>~+-@[]() ,*#!", *s))
			*s = '?';
}

static int cs_start(enum data_arch arch, csh *h)
{
	if (cs_open(arch == DATA_ARCH_ARM64 ? CS_ARCH_ARM64 : CS_ARCH_X86,
		    arch == DATA_ARCH_ARM64 ? CS_MODE_ARM : CS_MODE_64, h) != CS_ERR_OK)
		return -EINVAL;
	cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

/* A capstone register as a word of the saved registers; -1 if none. */
static int x86_word(unsigned reg, bool *narrow)
{
	static const struct { unsigned r64, r32, r16, r8; int word; } t[] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_RAX },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_RBX },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_RCX },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_RDX },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_RSI },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_RDI },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_RBP },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, X86_RSP },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_R8 },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_R9 },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_R10 },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_R11 },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_R12 },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_R13 },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_R14 },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_R15 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (reg == t[i].r64 || reg == t[i].r32 || reg == t[i].r16 || reg == t[i].r8 ||
		    (reg == X86_REG_AH && t[i].word == X86_RAX) ||
		    (reg == X86_REG_BH && t[i].word == X86_RBX) ||
		    (reg == X86_REG_CH && t[i].word == X86_RCX) ||
		    (reg == X86_REG_DH && t[i].word == X86_RDX)) {
			if (narrow)
				*narrow = reg == t[i].r32;
			return t[i].word;
		}
	return -1;
}

static int a64_word(unsigned reg)
{
	if (reg >= ARM64_REG_X0 && reg <= ARM64_REG_X28)
		return (int)(reg - ARM64_REG_X0);
	if (reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30)
		return (int)(reg - ARM64_REG_W0);
	if (reg == ARM64_REG_X29)
		return 29;
	if (reg == ARM64_REG_X30)
		return 30;
	if (reg == ARM64_REG_SP || reg == ARM64_REG_WSP)
		return A64_SP;
	return -1;
}

static int reg_word(enum data_arch arch, unsigned reg)
{
	return arch == DATA_ARCH_ARM64 ? a64_word(reg) : x86_word(reg, NULL);
}

/* Whether insn writes the register of saved word w. */
static bool writes_word(csh h, enum data_arch arch, const cs_insn *insn, int w)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (w < 0)
		return false;
	if (cs_regs_access(h, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true;	/* cannot tell: not guessed */
	for (uint8_t i = 0; i < nwr; i++)
		if (reg_word(arch, wr[i]) == w)
			return true;
	return false;
}

/* AArch64 gives no operand size: the mnemonic and data register do. */
static uint32_t a64_size(const cs_insn *insn)
{
	const char *m = insn->mnemonic;
	const cs_arm64 *a = &insn->detail->arm64;
	size_t n = strlen(m);
	bool pair = strstr(m, "p") && (!strncmp(m, "ldp", 3) || !strncmp(m, "stp", 3) ||
				       !strncmp(m, "ldnp", 4) || !strncmp(m, "stnp", 4) ||
				       !strncmp(m, "ldxp", 4) || !strncmp(m, "stxp", 4) ||
				       !strncmp(m, "ldaxp", 5) || !strncmp(m, "stlxp", 5));
	uint32_t sz = 8;
	unsigned reg = 0;

	if (n && m[n - 1] == 'b' && strcmp(m, "ldsetb") != 0)
		return 1;
	if (n && m[n - 1] == 'h')
		return 2;
	if (!strcmp(m, "ldrsw") || !strcmp(m, "ldursw"))
		return 4;
	for (uint8_t i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_REG) {
			reg = a->operands[i].reg;
			break;
		}
	if ((reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30) || reg == ARM64_REG_WZR ||
	    (reg >= ARM64_REG_S0 && reg <= ARM64_REG_S31))
		sz = 4;
	else if (reg >= ARM64_REG_Q0 && reg <= ARM64_REG_Q31)
		sz = 16;
	else if (reg >= ARM64_REG_H0 && reg <= ARM64_REG_H31)
		sz = 2;
	else if (reg >= ARM64_REG_B0 && reg <= ARM64_REG_B31)
		sz = 1;
	return pair ? 2 * sz : sz;
}

/* AArch64 loads and stores by name: st* stores, atomics (ld<op>, swp,
 * cas) read and write, other ld* load; prefetches access nothing. */
static int a64_access(const char *m)
{
	static const char *const rmw[] = { "ldadd", "ldclr", "ldeor", "ldset", "ldsmax",
					   "ldsmin", "ldumax", "ldumin", "swp", "cas" };

	for (size_t i = 0; i < sizeof(rmw) / sizeof(rmw[0]); i++)
		if (!strncmp(m, rmw[i], strlen(rmw[i])))
			return CS_AC_READ | CS_AC_WRITE;
	if (!strncmp(m, "st", 2))
		return CS_AC_WRITE;
	if (!strncmp(m, "ld", 2))
		return CS_AC_READ;
	return 0;
}

static void put(struct data_access *a, const cs_insn *insn, uint64_t addr, uint32_t size,
		int access, bool before)
{
	a->ip = insn->address;
	a->site_ip = insn->address;
	a->addr = addr;
	a->size = size ? size : 1;
	a->store = access & CS_AC_WRITE;
	a->before = before;
	snprintf(a->insn, sizeof(a->insn), "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "",
		 insn->op_str);
	sanitise(a->insn);
}

static size_t x86_ops(csh h, const cs_insn *insn, const uint64_t *regs, bool before,
		      struct data_access *out, size_t max, struct data_addr_stats *st)
{
	const cs_x86 *x = &insn->detail->x86;
	size_t n = 0;

	/* lea computes, nop and prefetch touch nothing the program wrote. */
	if (insn->id == X86_INS_LEA || insn->id == X86_INS_NOP || strstr(insn->mnemonic, "prefetch"))
		return 0;
	for (uint8_t i = 0; i < x->op_count && n < max; i++) {
		const cs_x86_op *op = &x->operands[i];
		bool narrow = false;
		int base, index;
		uint64_t ea;

		if (op->type != X86_OP_MEM || !op->access)
			continue;
		if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS) {
			st->segment++;
			continue;
		}
		if (op->mem.base == X86_REG_RIP) {
			ea = insn->address + insn->size + (uint64_t)op->mem.disp;
			base = -1;
		} else {
			base = op->mem.base ? x86_word(op->mem.base, &narrow) : -1;
			if (op->mem.base && base < 0)
				continue;	/* not a general register */
			ea = (base >= 0 ? regs[base] : 0) + (uint64_t)op->mem.disp;
		}
		index = op->mem.index ? x86_word(op->mem.index, NULL) : -1;
		if (op->mem.index && index < 0)
			continue;
		if (index >= 0)
			ea += regs[index] * (uint64_t)op->mem.scale;
		if (narrow)
			ea &= 0xffffffffu;
		if (before && (writes_word(h, DATA_ARCH_X86_64, insn, base) ||
			       writes_word(h, DATA_ARCH_X86_64, insn, index))) {
			st->base_changed++;
			continue;
		}
		put(&out[n++], insn, ea, op->size, op->access, before);
	}
	return n;
}

static size_t a64_ops(csh h, const cs_insn *insn, const uint64_t *regs, bool before,
		      struct data_access *out, size_t max, struct data_addr_stats *st)
{
	const cs_arm64 *a = &insn->detail->arm64;
	int access = a64_access(insn->mnemonic);
	size_t n = 0;

	for (uint8_t i = 0; access && i < a->op_count && n < max; i++) {
		const cs_arm64_op *op = &a->operands[i];
		int base, index;
		uint64_t ea;

		if (op->type != ARM64_OP_MEM)
			continue;
		base = a64_word(op->mem.base);
		index = op->mem.index ? a64_word(op->mem.index) : -1;
		if (base < 0 || (op->mem.index && index < 0))
			continue;
		ea = regs[base] + (uint64_t)(int64_t)op->mem.disp;
		if (index >= 0) {
			uint64_t v = regs[index];

			if (op->ext == ARM64_EXT_SXTW)
				v = (uint64_t)(int64_t)(int32_t)v;
			else if (op->ext == ARM64_EXT_UXTW)
				v = (uint32_t)v;
			if (op->shift.type == ARM64_SFT_LSL)
				v <<= op->shift.value;
			ea += v;
		}
		/* Writeback (pre/post-index) changes the base: for the retired
		 * instruction the register no longer holds it. */
		if (before && (a->writeback || writes_word(h, DATA_ARCH_ARM64, insn, base) ||
			       writes_word(h, DATA_ARCH_ARM64, insn, index))) {
			st->base_changed++;
			continue;
		}
		put(&out[n++], insn, ea, a64_size(insn), access, before);
	}
	return n;
}

static size_t ops_of(csh h, enum data_arch arch, const cs_insn *insn, const uint64_t *regs,
		     bool before, struct data_access *out, size_t max, struct data_addr_stats *st)
{
	st->insns++;
	return arch == DATA_ARCH_ARM64 ? a64_ops(h, insn, regs, before, out, max, st)
				       : x86_ops(h, insn, regs, before, out, max, st);
}

static void free_insn(cs_insn *insn)
{
	if (insn)	/* cs_free reads its detail */
		cs_free(insn, 1);
}

/* A full fence: it waits for the stores before it to drain, so a sample
 * right after it is charged to the store before it too. */
static bool is_fence(enum data_arch arch, const cs_insn *insn)
{
	if (arch == DATA_ARCH_ARM64)
		return !strcmp(insn->mnemonic, "dmb");
	if (insn->id == X86_INS_MFENCE)
		return true;
	/* HotSpot's and GCC's "lock add/or $0, (%rsp)" */
	if (!insn->detail->x86.prefix[0] || insn->detail->x86.prefix[0] != X86_PREFIX_LOCK)
		return false;
	for (uint8_t i = 0; i < insn->detail->x86.op_count; i++)
		if (insn->detail->x86.operands[i].type == X86_OP_MEM &&
		    insn->detail->x86.operands[i].mem.base == X86_REG_RSP)
			return true;
	return false;
}

/* The operands of earlier, the instruction before later (a fence), unless
 * either changed their base or index. */
static size_t before_fence(csh h, enum data_arch arch, const cs_insn *earlier,
			   const cs_insn *later, const uint64_t *regs, struct data_access *out,
			   size_t max, struct data_addr_stats *st)
{
	size_t n = ops_of(h, arch, earlier, regs, true, out, max, st), kept = 0;

	for (size_t i = 0; i < n; i++) {
		const cs_insn *x = earlier;
		bool changed = false;

		/* ops_of checked earlier itself; the fence must not have either. */
		if (arch == DATA_ARCH_X86_64) {
			const cs_x86_op *op = NULL;

			for (uint8_t k = 0; k < x->detail->x86.op_count && !op; k++)
				if (x->detail->x86.operands[k].type == X86_OP_MEM)
					op = &x->detail->x86.operands[k];
			changed = op && (writes_word(h, arch, later, reg_word(arch, op->mem.base)) ||
					 writes_word(h, arch, later, reg_word(arch, op->mem.index)));
		} else {
			const cs_arm64_op *op = NULL;

			for (uint8_t k = 0; k < x->detail->arm64.op_count && !op; k++)
				if (x->detail->arm64.operands[k].type == ARM64_OP_MEM)
					op = &x->detail->arm64.operands[k];
			changed = op && (writes_word(h, arch, later, reg_word(arch, op->mem.base)) ||
					 writes_word(h, arch, later, reg_word(arch, op->mem.index)));
		}
		if (changed)
			st->base_changed++;
		else
			out[kept++] = out[i];
	}
	return kept;
}

/* The instruction before ip: decoded forward from the function's start;
 * 0 when no instruction ends exactly at ip. When it is a full fence, the
 * one before it too. */
static size_t decode_before(csh h, enum data_arch arch, const uint8_t *code, size_t len,
			    uint64_t code_addr, uint64_t ip, const uint64_t *regs,
			    struct data_access *out, size_t max, struct data_addr_stats *st)
{
	const uint8_t *p = code;
	size_t left = (size_t)(ip - code_addr), n = 0;
	uint64_t addr = code_addr;
	cs_insn *insn = cs_malloc(h), *prev = cs_malloc(h), *prev2 = cs_malloc(h);

	(void)len;
	if (!insn || !prev || !prev2)
		goto out;
	prev->address = prev2->address = 0;
	while (left && cs_disasm_iter(h, &p, &left, &addr, insn)) {
		cs_insn *t = prev2;

		prev2 = prev;
		prev = insn;
		insn = t;
	}
	if (left || addr != ip || !prev->address) {
		st->no_boundary++;
		goto out;
	}
	n = ops_of(h, arch, prev, regs, true, out, max, st);
	if (n < max && prev2->address && is_fence(arch, prev))
		n += before_fence(h, arch, prev2, prev, regs, out + n, max - n, st);
out:
	free_insn(insn);
	free_insn(prev);
	free_insn(prev2);
	return n;
}

/*
 * AArch64's atomic memory operations (ARMv8.1's LSE: LDADD and its kin,
 * SWP, CAS, CASP), which capstone 4 (Debian 12's) does not decode, though
 * they are what an atomic compiles to on every core that has them (GCC's
 * outline atomics pick them at run time). By encoding, from the Arm ARM:
 * each reads and writes [Xn] (SP when n is 31), no offset; LDAPR (the
 * same group, o3 = 1, opc = 100) only reads. 1 access into out, or 0 for
 * any other word.
 */
static size_t a64_lse(uint32_t w, uint64_t ip, const uint64_t *regs, bool before,
		      struct data_access *out, struct data_addr_stats *st)
{
	static const char *const ldop[] = { "ldadd", "ldclr", "ldeor", "ldset",
					    "ldsmax", "ldsmin", "ldumax", "ldumin" };
	unsigned rn = (w >> 5) & 31, o3 = (w >> 15) & 1, opc = (w >> 12) & 7;
	uint32_t size = 1u << (w >> 30);
	const char *what;
	bool store = true;

	if ((w & 0x3f200c00) == 0x38200000) {		/* atomic memory operation */
		what = o3 ? (opc == 4 ? "ldapr" : opc == 0 ? "swp" : NULL) : ldop[opc];
		store = !(o3 && opc == 4);
	} else if ((w & 0x3fa07c00) == 0x08a07c00) {	/* CAS */
		what = "cas";
	} else if ((w & 0xbfa07c00) == 0x08207c00) {	/* CASP: a pair */
		what = "casp";
		size = (w >> 30) & 1 ? 16 : 8;
	} else {
		return 0;
	}
	if (!what)
		return 0;
	st->insns++;
	out->ip = out->site_ip = ip;
	out->addr = regs[rn == 31 ? A64_SP : rn];
	out->size = size;
	out->store = store;
	out->before = before;
	if (rn == 31)
		snprintf(out->insn, sizeof(out->insn), "%s [sp] (by encoding)", what);
	else
		snprintf(out->insn, sizeof(out->insn), "%s [x%u] (by encoding)", what, rn);
	return 1;
}

/* The AArch64 word at ip in code, or false outside it. */
static bool a64_insn_word(const uint8_t *code, size_t len, uint64_t code_addr, uint64_t ip,
			  uint32_t *w)
{
	if (ip < code_addr || ip + 4 > code_addr + len)
		return false;
	memcpy(w, code + (ip - code_addr), 4);	/* little-endian, as the host */
	return true;
}

/* AArch64's instruction before ip: 4 bytes back, every instruction being
 * 4 bytes (no decoding from the function's start, which an instruction
 * capstone cannot decode would stop); after a full fence, the one before
 * that too. */
static size_t a64_before(csh h, const uint8_t *code, size_t len, uint64_t code_addr, uint64_t ip,
			 const uint64_t *regs, struct data_access *out, size_t max,
			 struct data_addr_stats *st)
{
	cs_insn *insn = cs_malloc(h);
	size_t n = 0;

	for (uint64_t at = ip - 4; insn && n < max && at + 8 >= ip; at -= 4) {
		const uint8_t *p = code + (at - code_addr);
		size_t left = 4;
		uint64_t addr = at;
		uint32_t w;

		if (!a64_insn_word(code, len, code_addr, at, &w)) {
			st->no_boundary++;
			break;
		}
		if (!cs_disasm_iter(h, &p, &left, &addr, insn)) {
			if (!a64_lse(w, at, regs, true, out + n, st))
				st->undecodable++;
			else
				n++;
			break;
		}
		n += ops_of(h, DATA_ARCH_ARM64, insn, regs, true, out + n, max - n, st);
		if (!is_fence(DATA_ARCH_ARM64, insn))
			break;
	}
	free_insn(insn);
	return n;
}

static size_t decode_with(csh h, enum data_arch arch, const uint8_t *code, size_t len,
			  uint64_t code_addr, bool from_start, uint64_t ip, const uint64_t *regs,
			  struct data_access *out, size_t max, struct data_addr_stats *st)
{
	const uint8_t *p;
	size_t left, n = 0;
	uint64_t addr = ip;
	cs_insn *insn;
	uint32_t w;

	if (ip < code_addr || ip >= code_addr + len)
		return 0;
	insn = cs_malloc(h);
	if (!insn)
		return 0;
	p = code + (ip - code_addr);
	left = len - (size_t)(ip - code_addr);
	if (cs_disasm_iter(h, &p, &left, &addr, insn))
		n = ops_of(h, arch, insn, regs, false, out, max, st);
	else if (arch != DATA_ARCH_ARM64 || !a64_insn_word(code, len, code_addr, ip, &w) ||
		 !(n = a64_lse(w, ip, regs, false, out, st)))
		st->undecodable++;
	cs_free(insn, 1);
	if (arch == DATA_ARCH_ARM64) {
		if (n < max)
			n += a64_before(h, code, len, code_addr, ip, regs, out + n, max - n, st);
	} else if (!from_start)
		st->no_boundary++;
	else if (n < max)
		n += decode_before(h, arch, code, len, code_addr, ip, regs, out + n, max - n, st);
	return n;
}

size_t data_addr__decode(enum data_arch arch, const uint8_t *code, size_t len, uint64_t code_addr,
			 bool from_start, uint64_t ip, const uint64_t *regs,
			 struct data_access *out, size_t max, struct data_addr_stats *st)
{
	csh h;
	size_t n;

	if (cs_start(arch, &h))
		return 0;
	n = decode_with(h, arch, code, len, code_addr, from_start, ip, regs, out, max, st);
	cs_close(&h);
	return n;
}

/* ---- the target's mappings ---------------------------------------------- */

static int read_maps(struct data_addr *da)
{
	char path[64], line[4096];
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", da->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];
		int pos = 0;
		struct mapping *m;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &pos) < 4)
			continue;
		if (da->nmaps == cap) {
			struct mapping *t = realloc(da->maps, (cap = cap ? 2 * cap : 64) * sizeof(*t));

			if (!t) {
				fclose(f);
				return -ENOMEM;
			}
			da->maps = t;
		}
		m = &da->maps[da->nmaps++];
		*m = (struct mapping){ .start = start, .end = end, .offset = off,
				       .exec = perms[2] == 'x' };
		line[strcspn(line, "\n")] = 0;
		if (pos > 0 && line[pos])
			m->path = strdup(line + pos);
		m->stack = m->path && !strncmp(m->path, "[stack", 6);
	}
	fclose(f);
	return 0;
}

static struct mapping *mapping_at(struct data_addr *da, uint64_t addr)
{
	size_t lo = 0, hi = da->nmaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < da->maps[mid].start)
			hi = mid;
		else if (addr >= da->maps[mid].end)
			lo = mid + 1;
		else
			return &da->maps[mid];
	}
	return NULL;
}

struct data_addr *data_addr__new(int pid, enum data_arch arch, const struct ss_regs_sample *regs,
				 size_t n)
{
	struct data_addr *da = calloc(1, sizeof(*da));
	char path[64];
	int err;

	if (!da)
		return NULL;
	da->pid = pid;
	da->arch = arch;
	da->memfd = -1;
	da->code = malloc(MAX_FUNC_BYTES + MAX_INSN);
	err = da->code ? read_maps(da) : -ENOMEM;
	if (!err && cs_start(arch, &da->cs))
		err = -EINVAL;
	if (!err && !(da->syms = syms__new(pid)))
		err = -errno;
	if (err) {
		data_addr__free(da);
		errno = -err;
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	da->memfd = open(path, O_RDONLY | O_CLOEXEC);
	/* Where threads' stack pointers are, threads' stacks are. */
	for (size_t i = 0; i < n; i++) {
		struct mapping *m = mapping_at(da, regs[i].regs[arch == DATA_ARCH_ARM64 ? A64_SP : X86_RSP]);

		if (m)
			m->stack = true;
	}
	return da;
}

/* Reads [addr, addr + len) of the target; bytes read. */
static size_t read_mem(struct data_addr *da, uint64_t addr, uint8_t *buf, size_t len)
{
	ssize_t got = da->memfd >= 0 ? pread(da->memfd, buf, len, (off_t)addr) : -1;

	return got > 0 ? (size_t)got : 0;
}

/*
 * One of libgcc's outline atomics: GCC for arm64 (10 and later, Debian's
 * default) compiles each atomic to a call of __aarch64_<op><size>_<order>
 * (cas, swp, ldadd, ldclr, ldeor, ldset), a leaf that picks LSE or
 * exclusive loads at run time; the link register, not saved, still points
 * back into the caller at the sample. The name only says where the
 * caller is; what the access is comes from the decoded instruction.
 */
static bool outline_atomic(enum data_arch arch, const char *name)
{
	static const char *const ops[] = { "cas", "swp", "ldadd", "ldclr", "ldeor", "ldset" };

	if (arch != DATA_ARCH_ARM64 || strncmp(name, "__aarch64_", 10))
		return false;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(name + 10, ops[i], strlen(ops[i])))
			return true;
	return false;
}

size_t data_addr__sample(struct data_addr *da, const struct ss_regs_sample *r,
			 struct data_access *out, size_t max)
{
	uint64_t ip = r->regs[da->arch == DATA_ARCH_ARM64 ? A64_PC : X86_RIP], start = ip;
	const struct mapping *m = mapping_at(da, ip);
	struct sym_info si = { 0 };
	bool named;
	size_t got;

	da->st.samples++;
	if (!m || !m->exec) {
		da->st.unmapped++;
		return 0;
	}
	if (m->path && (!strcmp(m->path, "[vdso]") || !strcmp(m->path, "[vsyscall]"))) {
		da->st.vdso++;
		return 0;
	}
	named = !syms__resolve(da->syms, ip, &si) && si.name;
	if ((!m->path || m->path[0] == '[') && !named) {
		da->st.jit_no_map++;	/* anonymous code nobody described */
		return 0;
	}
	if (named && si.offset < MAX_FUNC_BYTES && ip - si.offset >= m->start)
		start = ip - si.offset;
	got = read_mem(da, start, da->code, (size_t)(ip - start) + MAX_INSN);
	if (got <= ip - start) {
		da->st.unreadable++;
		return 0;
	}
	got = decode_with(da->cs, da->arch, da->code, got, start, start != ip, ip, (const uint64_t *)r->regs,
			  out, max, &da->st);
	for (size_t i = 0; i < got; i++)
		out[i].site_ip = named && outline_atomic(da->arch, si.name) && r->regs[A64_LR] >= 4 ?
				 r->regs[A64_LR] - 4 : out[i].ip;
	return got;
}

/* ---- naming data -------------------------------------------------------- */

static int cmp_objsym(const void *a, const void *b)
{
	const struct objsym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The object symbols of a module's ELF file, and its load bias. */
static void load_module(struct data_addr *da, struct module *mod, const struct mapping *first)
{
	char path[512];
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t nph, cap = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	Elf *e;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, da->pid,
		 first->start, first->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", da->pid, mod->path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return;
	mod->file = strdup(path);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph))
		goto out;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
			if (ph.p_vaddr < lo)
				lo = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > hi)
				hi = ph.p_vaddr + ph.p_memsz;
		}
	}
	if (lo > hi)
		goto out;
	mod->bias = eh.e_type == ET_DYN ? first->start - (lo & ~0xfffull) : 0;
	mod->lo = lo + mod->bias;
	mod->hi = hi + mod->bias;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_OBJECT ||
			    !s.st_size || !(name = elf_strptr(e, sh.sh_link, s.st_name)) || !*name)
				continue;
			if (mod->nsyms == cap) {
				struct objsym *t = realloc(mod->syms, (cap = cap ? 2 * cap : 256) * sizeof(*t));

				if (!t)
					goto out;
				mod->syms = t;
			}
			mod->syms[mod->nsyms++] = (struct objsym){ s.st_value, s.st_size, strdup(name) };
		}
	}
	ss_sort(mod->syms, mod->nsyms, sizeof(*mod->syms), cmp_objsym);
out:
	elf_end(e);
	close(fd);
}

static struct module *module_of(struct data_addr *da, const struct mapping *m)
{
	const struct mapping *first = m;
	struct module *t;

	for (size_t i = 0; i < da->nmods; i++)
		if (!strcmp(da->mods[i].path, m->path))
			return &da->mods[i];
	/* The file's lowest mapping is where it was loaded. */
	for (size_t i = 0; i < da->nmaps; i++)
		if (da->maps[i].path && !strcmp(da->maps[i].path, m->path)) {
			first = &da->maps[i];
			break;
		}
	t = realloc(da->mods, (da->nmods + 1) * sizeof(*t));
	if (!t)
		return NULL;
	da->mods = t;
	t = &da->mods[da->nmods++];
	*t = (struct module){ .path = strdup(m->path) };
	if (t->path)
		load_module(da, t, first);
	return t;
}

static const struct objsym *objsym_at(const struct module *mod, uint64_t addr)
{
	uint64_t v = addr - mod->bias;
	size_t lo = 0, hi = mod->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mod->syms[mid].addr <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Candidates end at lo - 1; sizes never nest for data. */
	if (lo && v < mod->syms[lo - 1].addr + mod->syms[lo - 1].size)
		return &mod->syms[lo - 1];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

enum data_region data_addr__name(struct data_addr *da, uint64_t addr, char *buf, size_t len)
{
	char part[64];
	struct mapping *m = mapping_at(da, addr);
	const struct objsym *s;
	struct module *mod;

	snprintf(buf, len, "0x%" PRIx64, addr);
	if (!m)
		return DATA_UNKNOWN;
	/* .bss past the file's end is the anonymous mapping just after it. */
	if (!m->path && m > da->maps && m[-1].path && m[-1].end == m->start && m[-1].path[0] == '/')
		m = m - 1;
	if (m->stack) {
		snprintf(buf, len, "a thread's stack");
		return DATA_STACK;
	}
	if (!m->path || m->path[0] != '/') {
		snprintf(buf, len, "a heap block");
		return DATA_HEAP;
	}
	mod = module_of(da, m);
	s = mod ? objsym_at(mod, addr) : NULL;
	if (!s) {
		snprintf(buf, len, "%s+0x%" PRIx64, base_name(m->path),
			 mod ? addr - mod->bias : addr - m->start);
		sanitise(buf);
		return DATA_FILE;
	}
	if (!mod->fields)
		mod->fields = data_fields__new(mod->file);
	/* counters[1], pair.flag: the part of the variable, where the file
	 * has debug information */
	if (data_fields__path(mod->fields, s->addr, addr - mod->bias - s->addr, part, sizeof(part)))
		snprintf(buf, len, "%.80s%.60s (%.60s)", s->name, part, base_name(m->path));
	else if (addr - mod->bias == s->addr)
		snprintf(buf, len, "%.80s (%.60s)", s->name, base_name(m->path));
	else
		snprintf(buf, len, "%.80s+%" PRIu64 " (%.60s)", s->name, addr - mod->bias - s->addr,
			 base_name(m->path));
	sanitise(buf);
	return DATA_GLOBAL;
}

bool data_addr__func(struct data_addr *da, uint64_t ip, char *buf, size_t len, char *mod,
		     size_t modlen, enum data_lang *lang)
{
	struct sym_info si;
	const char *raw;

	*lang = DATA_LANG_C;
	mod[0] = 0;
	if (syms__resolve(da->syms, ip, &si) || !si.name) {
		snprintf(buf, len, "0x%" PRIx64, ip);
		return false;
	}
	raw = si.raw_name ? si.raw_name : si.name;
	/* Rust: v0 (_R) or legacy mangling (_ZN...17h<hash>E). */
	if (!strncmp(raw, "_R", 2) || (!strncmp(raw, "_ZN", 3) && strstr(raw, "17h")))
		*lang = DATA_LANG_RUST;
	else if (!strncmp(raw, "_Z", 2))
		*lang = DATA_LANG_CXX;
	snprintf(buf, len, "%.100s (%.50s)", si.name, base_name(si.module));
	snprintf(mod, modlen, "%s", si.module ? si.module : "");
	sanitise(buf);
	return true;
}

const struct data_addr_stats *data_addr__stats(const struct data_addr *da)
{
	return &da->st;
}

void data_addr__free(struct data_addr *da)
{
	if (!da)
		return;
	for (size_t i = 0; i < da->nmods; i++) {
		for (size_t k = 0; k < da->mods[i].nsyms; k++)
			free(da->mods[i].syms[k].name);
		free(da->mods[i].syms);
		free(da->mods[i].path);
		free(da->mods[i].file);
		data_fields__free(da->mods[i].fields);
	}
	for (size_t i = 0; i < da->nmaps; i++)
		free(da->maps[i].path);
	if (da->cs)
		cs_close(&da->cs);
	if (da->memfd >= 0)
		close(da->memfd);
	syms__free(da->syms);
	free(da->mods);
	free(da->maps);
	free(da->code);
	free(da);
}

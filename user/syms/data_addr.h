/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data addresses of sampled instructions. A timer sample gives the
 * exact user registers at an instruction boundary; the instruction at the
 * IP (about to run) and the one before it (just retired: a slow store or
 * atomic usually is) are decoded with capstone, x86-64 or AArch64, from
 * the live target's code, and each memory operand's effective address is
 * computed from the registers. An operand of the previous instruction whose
 * base or index that instruction itself changed is dropped. When the
 * previous instruction is a full fence (mfence, a locked op on the stack
 * as HotSpot's volatile stores end with, dmb), the store before it, which
 * the fence waited for, is taken too, under the same rule. What cannot be
 * decoded honestly (no code mapping, the vDSO, JIT code without a perf
 * map, unreadable pages, bytes capstone rejects, %fs/%gs-relative operands)
 * is counted and skipped, never guessed.
 *
 *   struct data_addr *da = data_addr__new(pid, DATA_ARCH_HOST, regs, n);
 *   data_addr__sample(da, &regs[i], out, max);   // accesses of one sample
 *   data_addr__name(da, addr, buf, len);          // "counters+8 (app)"
 *   data_addr__free(da);
 */
#ifndef SPINSCOPE_DATA_ADDR_H
#define SPINSCOPE_DATA_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sampling.h"

enum data_arch { DATA_ARCH_X86_64, DATA_ARCH_ARM64 };

#if defined(__aarch64__)
#define DATA_ARCH_HOST DATA_ARCH_ARM64
#else
#define DATA_ARCH_HOST DATA_ARCH_X86_64
#endif

/* One memory operand of a sampled instruction. */
struct data_access {
	uint64_t ip;			/* the instruction's address */
	/* Where the code that made the access is named from: ip, or for an
	 * access inside a helper the compiler calls for one atomic (libgcc's
	 * outline atomics on arm64, __aarch64_ldadd8_relax and kin, linked
	 * into the user's binary) the call to it, from the link register:
	 * the function the user wrote, not the helper. */
	uint64_t site_ip;
	uint64_t addr;			/* effective address */
	uint32_t size;			/* bytes accessed */
	bool store;			/* writes it (a store or read-modify-write) */
	bool before;			/* the instruction before the sampled IP */
	char insn[48];			/* "lock xadd qword ptr [rdi], rax" */
};

/* What the decoder did, one list: counted, shown, summed. */
#define DATA_ADDR_STATS(X)						\
	X(samples, "register samples examined")				\
	X(insns, "instructions decoded")				\
	X(accesses, "memory operands with an address")			\
	X(unmapped, "IPs in no code mapping")				\
	X(vdso, "IPs in the vDSO or vsyscall page")			\
	X(jit_no_map, "IPs in anonymous code without a perf map")	\
	X(unreadable, "code pages that could not be read")		\
	X(undecodable, "instructions capstone could not decode")	\
	X(no_boundary, "previous instructions not found (no function start)") \
	X(base_changed, "operands dropped: the instruction changed its base") \
	X(segment, "operands dropped: %fs/%gs-relative (TLS)")

struct data_addr_stats {
#define DATA_ADDR_FIELD(name, text) uint64_t name;
	DATA_ADDR_STATS(DATA_ADDR_FIELD)
#undef DATA_ADDR_FIELD
};

/* Where an address lies. */
enum data_region {
	DATA_UNKNOWN = 0,
	DATA_GLOBAL,			/* a named object of a mapped file */
	DATA_FILE,			/* a mapped file, no symbol covers it */
	DATA_HEAP,			/* [heap] or an anonymous mapping */
	DATA_STACK,			/* [stack] or a thread's stack */
};

/* The language a function was written in, from its symbol's mangling. */
enum data_lang { DATA_LANG_C, DATA_LANG_CXX, DATA_LANG_RUST };

struct data_addr;

/* Reads pid's maps; regs (the samples, may be NULL) mark the mappings that
 * hold a thread's stack pointer as stacks. NULL with errno on failure. */
struct data_addr *data_addr__new(int pid, enum data_arch arch, const struct ss_regs_sample *regs,
				 size_t n);
/* The accesses of one sample into out (at most max); how many. */
size_t data_addr__sample(struct data_addr *da, const struct ss_regs_sample *r,
			 struct data_access *out, size_t max);
/* Names addr ("counters+8 (app)", "a heap block", "a thread's stack")
 * into buf, sanitised; its region. */
enum data_region data_addr__name(struct data_addr *da, uint64_t addr, char *buf, size_t len);
/* The function of an instruction ("bump (app)", sanitised), its module's
 * path (mod, "" when none) and its language; false when unnamed. */
bool data_addr__func(struct data_addr *da, uint64_t ip, char *buf, size_t len, char *mod,
		     size_t modlen, enum data_lang *lang);
const struct data_addr_stats *data_addr__stats(const struct data_addr *da);
void data_addr__free(struct data_addr *da);

/* The decoding alone, pure (tests): the accesses of the instruction at ip
 * and, when code starts at a function's first instruction (from_start),
 * of the one before it. code holds [code_addr, code_addr + len). */
size_t data_addr__decode(enum data_arch arch, const uint8_t *code, size_t len, uint64_t code_addr,
			 bool from_start, uint64_t ip, const uint64_t *regs,
			 struct data_access *out, size_t max, struct data_addr_stats *st);

#endif

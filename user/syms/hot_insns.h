/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a sampled instruction does to memory, read from the live target's
 * code through /proc/PID/mem: an atomic read-modify-write (x86 LOCK prefix)
 * writes data other threads write too; MFENCE and XCHG with memory (a
 * seq_cst store) are full fences. Feeds the advisor's false-sharing and
 * memory-order rules. x86-64 only: elsewhere everything is unknown.
 */
#ifndef SPINSCOPE_HOT_INSNS_H
#define SPINSCOPE_HOT_INSNS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

enum insn_kind {
	INSN_UNKNOWN = 0,	/* unreadable, or not x86-64 */
	INSN_PLAIN,
	INSN_ATOMIC_RMW,	/* LOCK-prefixed read-modify-write */
	INSN_FENCE,		/* MFENCE, or XCHG with memory */
};

/*
 * Classifies the code around a sampled address. A timer sample lands on
 * the instruction about to run or just after the one that stalled, so both
 * the bytes at ip and those ending at ip count. code holds the bytes
 * [ip - before, ip + len - before). Pure.
 */
enum insn_kind insn__classify(const uint8_t *code, size_t len, size_t before);

/* Reads the target's code around ip and classifies it. */
enum insn_kind insn__classify_at(int pid, uint64_t ip);

/*
 * The spin-wait hint of a loop around a sampled address: "pause" (x86-64:
 * F3 90 within SPIN_WINDOW bytes of ip, with a backward branch after it
 * that jumps to or before it), "isb", "sb", "yield" or "wfe" (AArch64:
 * one of those words in the window, with a backward branch after it), or
 * NULL. code holds [ip - before, ip + len - before). Pure.
 */
const char *insn__spin_hint(const uint8_t *code, size_t len, size_t before, bool arm64);
/* Reads the target's code around ip; NULL when unreadable or none. */
const char *insn__spin_hint_at(int pid, uint64_t ip);

/*
 * The target of the direct call that ends at a return address: x86-64
 * "call rel32" (E8 and 4 bytes) or AArch64 "bl" (one word), the bytes
 * code[0..len) ending at ret_ip. true and *target when they are one.
 * Pure. What a tail call hides: a return address after "call f" whose
 * inner frame is not f means f jumped on to it.
 */
bool insn__call_target(const uint8_t *code, size_t len, uint64_t ret_ip, bool arm64,
		       uint64_t *target);
/* Reads the target's code before ret_ip and decodes it (this host's
 * architecture). */
bool insn__call_target_at(int pid, uint64_t ret_ip, uint64_t *target);

#endif

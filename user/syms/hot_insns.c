// SPDX-License-Identifier: GPL-2.0
/* A minimal x86-64 look at sampled instructions (see hot_insns.h). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "hot_insns.h"

#define LOCK 0xf0
#define WINDOW_BEFORE 8		/* longest LOCK'd RMW we look back for */
#define WINDOW_AFTER 8

static bool is_legacy_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 ||
	       b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65;
}

static bool is_rex(uint8_t b)
{
	return (b & 0xf0) == 0x40;
}

/* Opcodes the LOCK prefix is valid with (add, or, adc, sbb, and, sub, xor
 * to memory; the 80/81/83 group; inc/dec/not/neg; xadd, cmpxchg, bts...). */
static bool lockable(const uint8_t *p, size_t n)
{
	if (!n)
		return false;
	switch (p[0]) {
	case 0x00: case 0x01: case 0x08: case 0x09: case 0x10: case 0x11:
	case 0x18: case 0x19: case 0x20: case 0x21: case 0x28: case 0x29:
	case 0x30: case 0x31: case 0x80: case 0x81: case 0x83: case 0x86:
	case 0x87: case 0xf6: case 0xf7: case 0xfe: case 0xff:
		return true;
	case 0x0f:
		return n > 1 && (p[1] == 0xb0 || p[1] == 0xb1 || p[1] == 0xc0 || p[1] == 0xc1 ||
				 p[1] == 0xc7 || p[1] == 0xab || p[1] == 0xb3 || p[1] == 0xbb ||
				 p[1] == 0xba);
	default:
		return false;
	}
}

/* The instruction starting at p, after its prefixes. */
static enum insn_kind decode_at(const uint8_t *p, size_t n)
{
	bool lock = false;
	size_t i = 0;

	while (i < n && (is_legacy_prefix(p[i]) || p[i] == LOCK)) {
		lock |= p[i] == LOCK;
		i++;
	}
	if (i < n && is_rex(p[i]))
		i++;
	if (i >= n)
		return INSN_UNKNOWN;
	if (lock && lockable(p + i, n - i))
		return INSN_ATOMIC_RMW;
	/* MFENCE: 0f ae f0. */
	if (n - i >= 3 && p[i] == 0x0f && p[i + 1] == 0xae && p[i + 2] == 0xf0)
		return INSN_FENCE;
	/* XCHG r, m (86/87 with a memory operand: ModRM.mod != 3) locks
	 * implicitly: what a seq_cst store compiles to. */
	if (n - i >= 2 && (p[i] == 0x86 || p[i] == 0x87) && (p[i + 1] >> 6) != 3)
		return INSN_FENCE;
	return INSN_PLAIN;
}

/* Bytes of a ModRM memory operand with its SIB and displacement. */
static size_t modrm_len(const uint8_t *p, size_t n)
{
	uint8_t mod = p[0] >> 6, rm = p[0] & 7;
	size_t len = 1;

	if (mod != 3 && rm == 4) {		/* a SIB byte follows */
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)	/* SIB without base: disp32 */
			len += 4;
	} else if (mod == 0 && rm == 5) {	/* RIP-relative: disp32 */
		len += 4;
	}
	return len + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* An XCHG with memory that ends exactly where p + n does. */
static bool xchg_mem_ends_at(const uint8_t *p, size_t n)
{
	size_t i = 0;

	if (i < n && p[i] == 0x66)
		i++;
	if (i < n && is_rex(p[i]))
		i++;
	if (n - i < 2 || (p[i] != 0x86 && p[i] != 0x87) || (p[i + 1] >> 6) == 3)
		return false;
	return i + 1 + modrm_len(p + i + 1, n - i - 1) == n;
}

enum insn_kind insn__classify(const uint8_t *code, size_t len, size_t before)
{
	enum insn_kind at;

	if (before > len)
		return INSN_UNKNOWN;
	at = decode_at(code + before, len - before);
	if (at == INSN_ATOMIC_RMW || at == INSN_FENCE)
		return at;
	/* The stalled instruction just before ip: x86 cannot be decoded
	 * backwards, so look for the patterns that end right at ip. */
	if (before >= 3 && code[before - 3] == 0x0f && code[before - 2] == 0xae &&
	    code[before - 1] == 0xf0)
		return INSN_FENCE;
	for (size_t k = 2; k <= before && k <= WINDOW_BEFORE; k++)
		if (code[before - k] == LOCK && decode_at(code + before - k, k) == INSN_ATOMIC_RMW)
			return INSN_ATOMIC_RMW;
	/* A seq_cst store stalls in its XCHG too; with no anchor byte, only
	 * an instruction whose length ends exactly at ip counts. */
	for (size_t k = 2; k <= before && k <= WINDOW_BEFORE; k++)
		if (xchg_mem_ends_at(code + before - k, k))
			return INSN_FENCE;
	return at;
}

/* Reads len bytes of the target's code starting before bytes ahead of ip. */
static bool read_code(int pid, uint64_t ip, size_t before, uint8_t *code, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	if (ip < before)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, code, len, (off_t)(ip - before));
	close(fd);
	return n == (ssize_t)len;
}

enum insn_kind insn__classify_at(int pid, uint64_t ip)
{
#if defined(__x86_64__)
	uint8_t code[WINDOW_BEFORE + WINDOW_AFTER];

	if (!read_code(pid, ip, WINDOW_BEFORE, code, sizeof(code)))
		return INSN_UNKNOWN;
	return insn__classify(code, sizeof(code), WINDOW_BEFORE);
#else
	(void)pid;
	(void)ip;
	return INSN_UNKNOWN;
#endif
}

/* ---- spin loops ---------------------------------------------------------- */

#define SPIN_WINDOW 48		/* bytes each side of ip: a spin loop is short */

/* A backward x86 branch starting at p (jcc/jmp rel8, jcc rel32) and where
 * it lands, as an offset from p. */
static bool x86_back_branch(const uint8_t *p, size_t n, long *target)
{
	if (n >= 2 && ((p[0] >= 0x70 && p[0] <= 0x7f) || p[0] == 0xeb) && (int8_t)p[1] < 0) {
		*target = 2 + (int8_t)p[1];
		return true;
	}
	if (n >= 6 && p[0] == 0x0f && p[1] >= 0x80 && p[1] <= 0x8f) {
		int32_t d = (int32_t)((uint32_t)p[2] | (uint32_t)p[3] << 8 | (uint32_t)p[4] << 16 |
				      (uint32_t)p[5] << 24);

		if (d < 0) {
			*target = 6 + d;
			return true;
		}
	}
	return false;
}

static const char *x86_spin_hint(const uint8_t *code, size_t len)
{
	for (size_t h = 0; h + 1 < len; h++) {
		if (code[h] != 0xf3 || code[h + 1] != 0x90)
			continue;
		for (size_t b = h + 2; b < len; b++) {
			long t;

			if (x86_back_branch(code + b, len - b, &t) && (long)b + t <= (long)h)
				return "pause";
		}
	}
	return NULL;
}

static uint32_t word_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* B.cond, CBZ/CBNZ, TBZ/TBNZ or B with a negative offset. */
static bool arm64_back_branch(uint32_t w)
{
	if ((w & 0xff000010) == 0x54000000 || (w & 0x7e000000) == 0x34000000)
		return (w >> 23) & 1;			/* imm19's sign */
	if ((w & 0x7e000000) == 0x36000000)
		return (w >> 18) & 1;			/* imm14's sign */
	if ((w & 0xfc000000) == 0x14000000)
		return (w >> 25) & 1;			/* imm26's sign */
	return false;
}

static const char *arm64_spin_hint(const uint8_t *code, size_t len, size_t before)
{
	static const struct { uint32_t word; const char *name; } hints[] = {
		{ 0xd5033fdf, "isb" }, { 0xd50330ff, "sb" }, { 0xd503203f, "yield" },
		{ 0xd503205f, "wfe" },
	};
	size_t start = before % 4;	/* instructions are 4-byte aligned at ip */

	for (size_t h = start; h + 4 <= len; h += 4)
		for (size_t k = 0; k < sizeof(hints) / sizeof(hints[0]); k++) {
			if (word_at(code + h) != hints[k].word)
				continue;
			for (size_t b = h + 4; b + 4 <= len; b += 4)
				if (arm64_back_branch(word_at(code + b)))
					return hints[k].name;
		}
	return NULL;
}

const char *insn__spin_hint(const uint8_t *code, size_t len, size_t before, bool arm64)
{
	if (before > len)
		return NULL;
	return arm64 ? arm64_spin_hint(code, len, before) : x86_spin_hint(code, len);
}

const char *insn__spin_hint_at(int pid, uint64_t ip)
{
	uint8_t code[2 * SPIN_WINDOW];

	if (!read_code(pid, ip, SPIN_WINDOW, code, sizeof(code)))
		return NULL;
#if defined(__aarch64__)
	return insn__spin_hint(code, sizeof(code), SPIN_WINDOW, true);
#elif defined(__x86_64__)
	return insn__spin_hint(code, sizeof(code), SPIN_WINDOW, false);
#else
	return NULL;
#endif
}

bool insn__call_target(const uint8_t *code, size_t len, uint64_t ret_ip, bool arm64,
		       uint64_t *target)
{
	if (arm64) {
		uint32_t w;
		int64_t imm;

		if (len < 4 || ret_ip < 4)
			return false;
		w = word_at(code + len - 4);
		if ((w & 0xfc000000u) != 0x94000000u)	/* BL imm26 */
			return false;
		imm = (int64_t)((int32_t)((w & 0x03ffffffu) << 6) >> 6);	/* sign-extend 26 bits */
		*target = ret_ip - 4 + (uint64_t)(imm * 4);
		return true;
	}
	if (len < 5 || code[len - 5] != 0xe8)		/* CALL rel32 */
		return false;
	{
		int32_t rel;

		memcpy(&rel, code + len - 4, 4);
		*target = ret_ip + (uint64_t)(int64_t)rel;
	}
	return true;
}

bool insn__call_target_at(int pid, uint64_t ret_ip, uint64_t *target)
{
	uint8_t code[8];

	if (!read_code(pid, ret_ip, sizeof(code), code, sizeof(code)))
		return false;
#if defined(__aarch64__)
	return insn__call_target(code, sizeof(code), ret_ip, true, target);
#else
	return insn__call_target(code, sizeof(code), ret_ip, false, target);
#endif
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Frame-pointer detection from function prologues (see frame_ptr.h).
 * Only instruction patterns live here; elf_symtab.c picks the functions.
 */
#include <elf.h>
#include <stdbool.h>
#include <string.h>
#include "frame_ptr.h"

/*
 * x86-64: after an optional endbr64, a run of register pushes. "push
 * %rbp; mov %rsp,%rbp" sets up a frame; %rbp pushed any other way (among
 * the callee-saved registers, not followed by the mov) is being freed
 * for use as a general register.
 */
static enum frame_ptr_prologue x86_64_prologue(const uint8_t *c)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t i = 0;

	if (!memcmp(c, endbr64, sizeof(endbr64)))
		i = sizeof(endbr64);
	while (i + 4 <= FRAME_PTR_PROLOGUE) {
		if (c[i] == 0x55) {
			bool mov = c[i + 1] == 0x48 &&
				   ((c[i + 2] == 0x89 && c[i + 3] == 0xe5) || (c[i + 2] == 0x8b && c[i + 3] == 0xec));

			return mov ? FRAME_PTR_PRO_SETS : FRAME_PTR_PRO_CLOBBERS;
		}
		if (c[i] >= 0x50 && c[i] <= 0x57)		/* push %rax..%rdi */
			i += 1;
		else if (c[i] == 0x41 && c[i + 1] >= 0x50 && c[i + 1] <= 0x57)	/* push %r8..%r15 */
			i += 2;
		else
			break;
	}
	return FRAME_PTR_PRO_NEUTRAL;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * arm64: the frame record is stored with "stp x29, x30, [sp, ...]" and
 * x29 then set with "mov x29, sp" (add x29, sp, #0) or "add x29, sp, #n",
 * possibly after paciasp, bti or a "sub sp" for a large frame. Look for
 * the x29 update in the first four instructions. (x29 as a scratch
 * register is not recognised: such code reads as neutral.)
 */
static enum frame_ptr_prologue arm64_prologue(const uint8_t *c)
{
	for (int i = 0; i < FRAME_PTR_PROLOGUE / 4; i++) {
		uint32_t insn = le32(c + 4 * i);

		/* ADD (immediate), 64-bit, Rn = sp (31), Rd = x29 */
		if ((insn & 0xff8003ff) == 0x910003fd)
			return FRAME_PTR_PRO_SETS;
	}
	return FRAME_PTR_PRO_NEUTRAL;
}

enum frame_ptr_prologue frame_ptr__prologue(uint16_t machine, const uint8_t *code)
{
	switch (machine) {
	case EM_X86_64:
		return x86_64_prologue(code);
	case EM_AARCH64:
		return arm64_prologue(code);
	default:
		return FRAME_PTR_PRO_UNSUPPORTED;
	}
}

enum frame_ptr_state frame_ptr__classify(uint16_t machine, const uint8_t (*entries)[FRAME_PTR_PROLOGUE],
					 size_t n)
{
	size_t sets = 0, clobbers = 0;

	if (n < FRAME_PTR_MIN_SAMPLES)
		return FRAME_PTR_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		switch (frame_ptr__prologue(machine, entries[i])) {
		case FRAME_PTR_PRO_UNSUPPORTED:
			return FRAME_PTR_UNKNOWN;
		case FRAME_PTR_PRO_SETS:
			sets++;
			break;
		case FRAME_PTR_PRO_CLOBBERS:
			clobbers++;
			break;
		default:
			break;
		}
	}
	/* Built without, code sets up a frame only where it needs one (a
	 * variable-sized stack frame): on Debian 12, 0-1% of the functions
	 * of libc, libstdc++ or bash. Built with, all non-leaf functions do.
	 * In between (libjvm: 37% set one, 13% use the register as scratch)
	 * the chain holds in some places and breaks in others. */
	if (sets * 10 < n)
		return FRAME_PTR_NO;
	if (clobbers * 20 > n)
		return FRAME_PTR_PARTIAL;
	return FRAME_PTR_YES;
}

const char *frame_ptr__str(enum frame_ptr_state s)
{
	switch (s) {
	case FRAME_PTR_YES:
		return "yes";
	case FRAME_PTR_PARTIAL:
		return "partial";
	case FRAME_PTR_NO:
		return "no";
	default:
		return "unknown";
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Does a binary keep frame pointers? BPF walks user stacks through the
 * frame-pointer chain, so a library built without them (Debian's libc is)
 * cuts stacks short. This judges from the first bytes of a sample of its
 * functions: code built with frame pointers sets one up on entry (except,
 * with -momit-leaf-frame-pointer, in leaf functions) and never uses the
 * register for anything else; code built without saves the register
 * among the others it uses as scratch.
 */
#ifndef SPINSCOPE_FRAME_PTR_H
#define SPINSCOPE_FRAME_PTR_H

#include <stddef.h>
#include <stdint.h>

enum frame_ptr_state {
	FRAME_PTR_UNKNOWN = 0,	/* too few functions, or an unsupported machine */
	FRAME_PTR_YES,
	FRAME_PTR_PARTIAL,	/* some functions use it as a scratch register */
	FRAME_PTR_NO,
};

/* What one function's entry does with the frame-pointer register. */
enum frame_ptr_prologue {
	FRAME_PTR_PRO_NEUTRAL,	/* leaves it alone */
	FRAME_PTR_PRO_SETS,	/* saves the caller's and sets up its own */
	FRAME_PTR_PRO_CLOBBERS,	/* saves it to use it as a scratch register */
	FRAME_PTR_PRO_UNSUPPORTED,	/* a machine this does not know */
};

/* Bytes looked at per function entry. */
#define FRAME_PTR_PROLOGUE 16
/* Fewer sampled functions than this give FRAME_PTR_UNKNOWN. */
#define FRAME_PTR_MIN_SAMPLES 8

/* Reads FRAME_PTR_PROLOGUE bytes from a function's entry; machine is the
 * ELF e_machine. */
enum frame_ptr_prologue frame_ptr__prologue(uint16_t machine, const uint8_t *code);

/* Classifies n function entries, each FRAME_PTR_PROLOGUE bytes long. */
enum frame_ptr_state frame_ptr__classify(uint16_t machine, const uint8_t (*entries)[FRAME_PTR_PROLOGUE],
					 size_t n);

const char *frame_ptr__str(enum frame_ptr_state s);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data shared between the BPF user-stack unwinder (unwind.bpf.h) and user
 * space (user/syms/cfi_table.c builds the rows, user/trace/unwind_maps.c
 * loads them): the unwind table of the target's libraries without frame
 * pointers, read from their .eh_frame, and the unwinder's counters.
 *
 * The frame-pointer walk loses the caller of a function that keeps no
 * frame pointer (Debian's libc): the syscall's user registers are inside
 * __lll_lock_wait, whose caller's return address is somewhere on the
 * stack, not at [rbp+8]. The table says, per address, where the frame's
 * canonical frame address (CFA) is and where the return address and the
 * caller's frame pointer were saved, so BPF can step out of such code to
 * the user's own functions, then follow their frame pointers.
 */
#ifndef SPINSCOPE_UNWIND_H
#define SPINSCOPE_UNWIND_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "common.h"

/* Executable mappings the table covers (libc, libstdc++, libjvm, ...). */
#define SS_UNWIND_MAX_MODULES 32
/* Frames unwound through the table before the frame-pointer walk takes
 * over: libc reaches the user's code in 2-4 frameless frames. */
#define SS_UNWIND_CFI_FRAMES 8
/* Rows in all (16 bytes each): libc has ~27k, libstdc++ ~30k. The binary
 * search takes at most SS_UNWIND_SEARCH_STEPS steps. */
#define SS_UNWIND_MAX_ROWS (1u << 20)
#define SS_UNWIND_SEARCH_STEPS 21	/* log2(SS_UNWIND_MAX_ROWS) + 1 */
/* Stack ids the unwinder hands out have this bit set, so they never meet
 * the ids of the kernel's stack map (used when the unwinder is off). */
#define SS_UNWIND_ID_BIT 0x40000000

/* A stored stack, innermost frame first, zero padded (value of the
 * unwinder's stack map, laid out as the kernel's stack maps' values). */
struct ss_unwind_stack {
	__u64 ip[SS_MAX_STACK_DEPTH];
};

/* How a row finds the CFA. */
enum ss_unwind_cfa {
	SS_CFA_NONE = 0,	/* not covered: the code keeps frame pointers */
	SS_CFA_UNSUPPORTED,	/* an expression, a register we do not track, or
				 * no FDE: stop, fall back, count */
	SS_CFA_SP,		/* CFA = sp + cfa_off */
	SS_CFA_FP,		/* CFA = fp (rbp / x29) + cfa_off */
	SS_CFA_END,		/* the return address is undefined: outermost frame */
};

/*
 * From pc on, up to the next row. BPF gets one table for the whole
 * process, sorted by run-time address, so that one binary search finds
 * both the module and the row; an SS_CFA_NONE row ends each covered
 * mapping. (cfi_table.c builds a file's rows with ELF virtual addresses,
 * unwind_table.c relocates them.)
 */
struct ss_unwind_row {
	__u64 pc;
	__s32 cfa_off;
	__s16 fp_off;		/* caller's fp saved at CFA + fp_off; 0: unchanged */
	__s8 ra_off8;		/* return address at CFA + 8 * ra_off8; 0: still
				 * in the link register (arm64 leaf code) */
	__u8 cfa;		/* enum ss_unwind_cfa */
};

/* The rows handed to the BPF objects (user space): every covered
 * mapping's, at run-time addresses, sorted. */
struct ss_unwind_table {
	const struct ss_unwind_row *rows;
	__u64 nrows;
};

/* One executable mapping the table covers: its rows are
 * [first_row, first_row + nrows) (user space only: BPF needs the rows). */
struct ss_unwind_module {
	__u64 start;		/* run-time address range [start, end) */
	__u64 end;
	__u64 bias;		/* run-time address - ELF virtual address */
	__u32 first_row;
	__u32 nrows;
};

/* What the unwinder did, counted per CPU. One list: BPF, the JSON
 * `symbols` section and the text report walk it. */
#define SS_UNWIND_STATS(X)                                                          \
	X(STACKS, "stacks")		/* stacks the unwinder collected */         \
	X(CFI_STACKS, "cfi_stacks")	/* ... of which began in covered code */   \
	X(CFI_FRAMES, "cfi_frames")	/* frames found through the table */       \
	X(CUT_SHORT, "cut_short")	/* stacks where the table stopped inside   \
					 * covered code (an unsupported rule,      \
					 * unreadable stack): frame pointer after */\
	X(CFI_DEPTH, "cfi_depth_exceeded") /* stacks still in covered code    \
					    * after SS_UNWIND_CFI_FRAMES steps */  \
	X(COLLISIONS, "id_collisions")	/* another stack had the same id */       \
	X(MAP_FULL, "map_full")		/* stack map full: stack not kept */

enum ss_unwind_stat {
#define SS_UNWIND_ENUM(name, str) SS_UNWIND_STAT_##name,
	SS_UNWIND_STATS(SS_UNWIND_ENUM)
#undef SS_UNWIND_ENUM
	SS_UNWIND_NSTATS,
};

#ifndef __VMLINUX_H__
/* The counters' names, as the JSON report writes and a recording reads them. */
static const char *const ss_unwind_stat_names[SS_UNWIND_NSTATS] = {
#define SS_UNWIND_STR(name, str) str,
	SS_UNWIND_STATS(SS_UNWIND_STR)
#undef SS_UNWIND_STR
};

_Static_assert(sizeof(struct ss_unwind_row) == 16, "struct ss_unwind_row layout");
_Static_assert(sizeof(struct ss_unwind_module) == 32, "struct ss_unwind_module layout");
#endif

#endif /* SPINSCOPE_UNWIND_H */

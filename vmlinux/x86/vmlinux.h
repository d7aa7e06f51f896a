/* SPDX-License-Identifier: GPL-2.0 */
/* x86-64 kernel types read by spinscope's BPF programs (see ../vmlinux_common.h). */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax;
	unsigned long ip, cs, flags, sp, ss;
} __attribute__((preserve_access_index));

typedef struct pt_regs bpf_user_pt_regs_t;

#include "../vmlinux_common.h"

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* arm64 kernel types read by spinscope's BPF programs (see ../vmlinux_common.h). */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

typedef unsigned long long __u64_arm64;

/* Layout of arch/arm64/include/uapi/asm/ptrace.h: user_pt_regs. */
struct user_pt_regs {
	__u64_arm64 regs[31];
	__u64_arm64 sp;
	__u64_arm64 pc;
	__u64_arm64 pstate;
};

struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			__u64_arm64 regs[31];
			__u64_arm64 sp;
			__u64_arm64 pc;
			__u64_arm64 pstate;
		};
	};
	__u64_arm64 orig_x0;
} __attribute__((preserve_access_index));

typedef struct user_pt_regs bpf_user_pt_regs_t;

#include "../vmlinux_common.h"

#endif

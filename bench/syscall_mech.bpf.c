// SPDX-License-Identifier: GPL-2.0
/*
 * The attach mechanism alone (bench/syscall_mech.c): the same do-nothing
 * futex programs on the per-syscall tracepoints that spinscope's exact path
 * uses (syscalls/sys_enter_futex, sys_exit_futex: perf tracepoints, only
 * futex calls reach a program) and on the raw ones (sys_enter, sys_exit:
 * every system call of the host runs the program, which checks the number
 * first). Each counts its target's futex events, nothing more.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#if defined(__TARGET_ARCH_arm64)
#define NR_futex 98
#define SYSCALL_NR(regs) ((regs)->syscallno)
#else
#define NR_futex 202
#define SYSCALL_NR(regs) ((regs)->orig_ax)
#endif

const volatile __u32 targ_tgid = 0;
__u64 target_events = 0;

static __always_inline int count_if_target(void)
{
	if ((bpf_get_current_pid_tgid() >> 32) == targ_tgid)
		__sync_fetch_and_add(&target_events, 1);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex")
int tp_enter(void *ctx)
{
	return count_if_target();
}

SEC("tracepoint/syscalls/sys_exit_futex")
int tp_exit(void *ctx)
{
	return count_if_target();
}

SEC("tp_btf/sys_enter")
int BPF_PROG(raw_enter, struct pt_regs *regs, long id)
{
	return id == NR_futex ? count_if_target() : 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(raw_exit, struct pt_regs *regs, long ret)
{
	return SYSCALL_NR(regs) == NR_futex ? count_if_target() : 0;
}

char LICENSE[] SEC("license") = "GPL";

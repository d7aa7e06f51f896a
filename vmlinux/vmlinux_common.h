/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types spinscope's BPF programs read, written by hand so that the
 * build never needs this machine's /sys/kernel/btf (it must build in a
 * chroot). Every struct carries preserve_access_index: libbpf relocates each
 * field access against the running kernel's BTF (CO-RE), so only the fields
 * named here must exist, not their offsets.
 */
#ifndef __VMLINUX_COMMON_H
#define __VMLINUX_COMMON_H

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef int pid_t;
typedef _Bool bool;
enum { false = 0, true = 1 };

/* UAPI values from include/uapi/linux/bpf.h: stable ABI. */
enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PROG_ARRAY = 3,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
	BPF_F_LOCK = 4,
};

enum {
	BPF_F_SKIP_FIELD_MASK = 255,
	BPF_F_USER_STACK = 256,
	BPF_F_FAST_STACK_CMP = 512,
	BPF_F_REUSE_STACKID = 1024,
	BPF_F_USER_BUILD_ID = 2048,
};

enum {
	BPF_F_NO_PREALLOC = 1,
};

/* Tracepoint records. The common header: 8 bytes, 12 on PREEMPT_RT
 * kernels (migrate_disable, preempt_lazy_count), so no offset after it is
 * fixed. */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
} __attribute__((preserve_access_index));

/* The records of the syscalls:sys_enter_* and sys_exit_* events, as the
 * kernel builds them (kernel/trace/trace.h): read these, relocated by CO-RE,
 * in those events' programs. An int nr follows the header, so on PREEMPT_RT
 * args and ret stay at 16 while the raw_syscalls types below move them. */
struct syscall_trace_enter {
	struct trace_entry ent;
	int nr;
	unsigned long args[];
} __attribute__((preserve_access_index));

struct syscall_trace_exit {
	struct trace_entry ent;
	int nr;
	long ret;
} __attribute__((preserve_access_index));

/* The raw_syscalls:sys_enter/sys_exit records (a long id): NOT the layout
 * of the syscalls:* events; it matches them only on non-RT kernels. */
struct trace_event_raw_sys_enter {
	struct trace_entry ent;
	long id;
	unsigned long args[6];
	char __data[0];
} __attribute__((preserve_access_index));

struct trace_event_raw_sys_exit {
	struct trace_entry ent;
	long id;
	long ret;
	char __data[0];
} __attribute__((preserve_access_index));

/* task_struct: only the fields read. `__state` replaced `state` in 5.14;
 * core_fixes.bpf.h reads whichever this kernel has. */
struct task_struct {
	unsigned int __state;
	unsigned int flags;
	int prio;
	pid_t pid;
	pid_t tgid;
	char comm[16];
	void *stack;	/* the kernel stack's base (task_stack_page()) */
	__u64 start_time;	/* monotonic ns at creation: tells a reused tid apart (top) */
} __attribute__((preserve_access_index));

struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* raw_tp program context: the tracepoint's arguments as u64s. */
struct bpf_raw_tracepoint_args {
	__u64 args[0];
};

/* perf_event program context; regs is arch-specific (see vmlinux.h). */
struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};

/* UAPI (include/uapi/linux/bpf.h): what bpf_perf_event_read_value() fills. */
struct bpf_perf_event_value {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

#endif /* __VMLINUX_COMMON_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the syscalls:sys_enter_* / sys_exit_* records keep the arguments and
 * the return value. The BPF programs read them through CO-RE as the kernel's
 * syscall_trace_enter/exit; this checks, before loading, that the BTF used
 * for that relocation agrees with the event's own layout in tracefs (its
 * format file), so a BTF of another kernel (a --btf of a non-RT build on a
 * PREEMPT_RT kernel, where trace_entry is 12 bytes, not 8) fails with one
 * line instead of reading the wrong fields or being refused at attach.
 */
#ifndef SPINSCOPE_SYSCALL_LAYOUT_H
#define SPINSCOPE_SYSCALL_LAYOUT_H

#include <stddef.h>

struct btf;

struct syscall_layout {
	int nr_off;		/* syscall_trace_enter.nr: right after the header */
	int args_off;		/* syscall_trace_enter.args: the first argument */
	int ret_off;		/* syscall_trace_exit.ret */
};

/* Offsets of syscall_trace_enter.nr and .args, syscall_trace_exit.ret in btf;
 * -ENOENT when either type or field is missing. */
int syscall_layout_from_btf(const struct btf *btf, struct syscall_layout *l);

/* Offset of field `name` in a tracefs event format file ("field:long ret;
 * offset:16; size:8; signed:1;"); -ENOENT when absent, -errno on I/O. */
int tracefs_field_offset(const char *format_path, const char *name);

/*
 * Checks btf (named btf_name in messages) against the futex events' format
 * files under the first of roots that has them: sys_enter_futex's
 * __syscall_nr is nr (it moves with the header), its uaddr and op are
 * args[0] and args[1], sys_exit_futex's ret is ret. Returns 0 (also
 * when no format file can be read: nothing to check against), or
 * SS_EXIT_KERNEL with why set.
 */
int syscall_layout_check(const char *const *roots, const struct btf *btf, const char *btf_name,
			 char *why, size_t whylen);

#endif

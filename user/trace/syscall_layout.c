// SPDX-License-Identifier: GPL-2.0
/* The syscall tracepoint records' layout: BTF against tracefs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "common/errors.h"
#include "syscall_layout.h"

static int member_offset(const struct btf *btf, const char *type, const char *field)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_member *m;
	const struct btf_type *t;

	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), field))
			return btf_member_bit_offset(t, i) / 8;
	return -ENOENT;
}

int syscall_layout_from_btf(const struct btf *btf, struct syscall_layout *l)
{
	l->nr_off = member_offset(btf, "syscall_trace_enter", "nr");
	l->args_off = member_offset(btf, "syscall_trace_enter", "args");
	l->ret_off = member_offset(btf, "syscall_trace_exit", "ret");
	return l->nr_off < 0 || l->args_off < 0 || l->ret_off < 0 ? -ENOENT : 0;
}

/* Does the declaration "u32 * uaddr" or "char comm[16]" name the field? */
static bool decl_names(const char *decl, size_t len, const char *name)
{
	const char *bracket = memchr(decl, '[', len);
	size_t n = strlen(name), end = bracket ? (size_t)(bracket - decl) : len;

	while (end && decl[end - 1] == ' ')
		end--;
	if (end < n || memcmp(decl + end - n, name, n))
		return false;
	return end == n || decl[end - n - 1] == ' ' || decl[end - n - 1] == '*';
}

int tracefs_field_offset(const char *format_path, const char *name)
{
	FILE *f = fopen(format_path, "re");
	char line[512];
	int off = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *decl = strstr(line, "field:"), *semi, *o;

		if (!decl)
			continue;
		decl += strlen("field:");
		semi = strchr(decl, ';');
		o = semi ? strstr(semi, "offset:") : NULL;
		if (o && decl_names(decl, semi - decl, name) &&
		    sscanf(o, "offset:%d", &off) == 1)
			break;
		off = -ENOENT;
	}
	fclose(f);
	return off;
}

/* Reads "<root>/events/syscalls/<event>/format"'s offset of field. */
static int event_field(const char *root, const char *event, const char *field)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/syscalls/%s/format", root, event);
	return tracefs_field_offset(path, field);
}

int syscall_layout_check(const char *const *roots, const struct btf *btf, const char *btf_name,
			 char *why, size_t whylen)
{
	struct syscall_layout l;
	int nr = -ENOENT, uaddr = -ENOENT, op = -ENOENT, ret = -ENOENT;

	for (int i = 0; roots[i] && uaddr < 0; i++) {
		nr = event_field(roots[i], "sys_enter_futex", "__syscall_nr");
		uaddr = event_field(roots[i], "sys_enter_futex", "uaddr");
		op = event_field(roots[i], "sys_enter_futex", "op");
		ret = event_field(roots[i], "sys_exit_futex", "ret");
	}
	if (nr < 0 || uaddr < 0 || op < 0 || ret < 0)
		return 0;
	if (syscall_layout_from_btf(btf, &l)) {
		snprintf(why, whylen, "the kernel BTF %s has no struct syscall_trace_enter and syscall_trace_exit (the syscall tracepoints' records): pass this kernel's own BTF with --btf FILE",
			 btf_name);
		return SS_EXIT_KERNEL;
	}
	if (l.nr_off != nr || l.args_off != uaddr || l.args_off + 8 != op || l.ret_off != ret) {
		snprintf(why, whylen, "the kernel BTF %s does not match this kernel's syscall tracepoints (syscall number, arguments and return value at %d, %d and %d; tracefs says %d, %d and %d): pass this kernel's own BTF with --btf FILE",
			 btf_name, l.nr_off, l.args_off, l.ret_off, nr, uaddr, ret);
		return SS_EXIT_KERNEL;
	}
	return 0;
}

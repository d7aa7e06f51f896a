// SPDX-License-Identifier: GPL-2.0
/* Raw BTF fixtures of the syscall tracepoint records (see btf_fixture.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <linux/btf.h>
#include "btf_fixture.h"

struct base_ids {
	int int_, long_, ulong, ushort, uchar;
};

static int add_base(struct btf *b, struct base_ids *id)
{
	id->int_ = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	id->long_ = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	id->ulong = btf__add_int(b, "long unsigned int", 8, 0);
	id->ushort = btf__add_int(b, "short unsigned int", 2, 0);
	id->uchar = btf__add_int(b, "unsigned char", 1, 0);
	return id->int_ > 0 && id->long_ > 0 && id->ulong > 0 && id->ushort > 0 && id->uchar > 0 ? 0 : -1;
}

/* struct trace_entry: 8 bytes, or 12 with PREEMPT_RT's extra byte. */
static int add_trace_entry(struct btf *b, const struct base_ids *id, bool rt)
{
	int t = btf__add_struct(b, "trace_entry", rt ? 12 : 8), err = t < 0;

	err = err ?: btf__add_field(b, "type", id->ushort, 0, 0);
	err = err ?: btf__add_field(b, "flags", id->uchar, 16, 0);
	err = err ?: btf__add_field(b, "preempt_count", id->uchar, 24, 0);
	err = err ?: btf__add_field(b, "pid", id->int_, 32, 0);
	if (rt)
		err = err ?: btf__add_field(b, "preempt_lazy_count", id->uchar, 64, 0);
	return err ? -1 : t;
}

/* The kernel's syscall_trace_enter/exit: header, int nr, then 8-aligned
 * args or ret; raw_shape puts a long id before ret instead. */
static int add_syscall_records(struct btf *b, const struct base_ids *id, int entry, int entry_size,
			       bool raw_shape)
{
	int args = btf__add_array(b, id->int_, id->ulong, 0), err = args < 0;
	int ret_bits = raw_shape ? (entry_size + 4 + 8) / 8 * 64 : 128;

	err = err ?: btf__add_struct(b, "syscall_trace_enter", 16) < 0;
	err = err ?: btf__add_field(b, "ent", entry, 0, 0);
	err = err ?: btf__add_field(b, "nr", id->int_, entry_size * 8, 0);
	err = err ?: btf__add_field(b, "args", args, 128, 0);
	err = err ?: btf__add_struct(b, "syscall_trace_exit", ret_bits / 8 + 8) < 0;
	err = err ?: btf__add_field(b, "ent", entry, 0, 0);
	if (raw_shape)
		err = err ?: btf__add_field(b, "id", id->long_, 128, 0);
	else
		err = err ?: btf__add_field(b, "nr", id->int_, entry_size * 8, 0);
	err = err ?: btf__add_field(b, "ret", id->long_, ret_bits, 0);
	return err ? -1 : 0;
}

char *btf_fixture_write(enum btf_fixture_layout layout)
{
	bool rt = layout != BTF_FIXTURE_PLAIN;
	struct btf *b = btf__new_empty();
	char *path = strdup("/tmp/spinscope-btf-fixture-XXXXXX");
	struct base_ids id;
	const void *raw;
	__u32 size;
	int entry, fd = -1, err = !b || !path;

	err = err ?: add_base(b, &id);
	entry = err ? -1 : add_trace_entry(b, &id, rt);
	err = err ?: entry < 0;
	if (!err && layout != BTF_FIXTURE_NO_SYSCALL_TYPES)
		err = add_syscall_records(b, &id, entry, rt ? 12 : 8, layout == BTF_FIXTURE_RT_RAW_SHAPE);
	raw = err ? NULL : btf__raw_data(b, &size);
	if (raw && (fd = mkstemp(path)) >= 0)
		err = write(fd, raw, size) != (ssize_t)size;
	else
		err = 1;
	if (fd >= 0)
		close(fd);
	btf__free(b);
	if (err && path) {
		if (fd >= 0)
			unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "trace_object.h"
#include "trace_nokfunc.skel.h"

bool trace_object_kfuncs(const struct btf *kernel)
{
	return kernel && btf__find_by_name_kind(kernel, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
}

/* trace__open_opts() with the ELF image swapped before the open: the
 * skeleton names its maps, programs and variables, which both builds
 * share. */
struct trace *trace_object_open(const struct bpf_object_open_opts *opts, bool kfuncs)
{
	struct trace *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = trace__create_skeleton(obj);
	if (!err && !kfuncs)
		obj->skeleton->data = trace_nokfunc__elf_bytes(&obj->skeleton->data_sz);
	err = err ?: bpf_object__open_skeleton(obj->skeleton, opts);
	if (err) {
		trace__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "trace_object.h"
#include "trace_nokfunc.skel.h"
#include "light_nokfunc.skel.h"

bool trace_object_kfuncs(const struct btf *kernel)
{
	return kernel && btf__find_by_name_kind(kernel, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
}

/* Opens a created skeleton on its own ELF image, or on nokfunc's (the same
 * maps, programs and variables, which the skeleton names) where kfuncs is
 * false: 0 or a negative errno. */
static int open_build(struct bpf_object_skeleton *s, const struct bpf_object_open_opts *opts,
		      bool kfuncs, const void *(*nokfunc)(size_t *sz))
{
	if (!kfuncs)
		s->data = nokfunc(&s->data_sz);
	return bpf_object__open_skeleton(s, opts);
}

struct trace *trace_object_open(const struct bpf_object_open_opts *opts, bool kfuncs)
{
	struct trace *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = trace__create_skeleton(obj);
	err = err ?: open_build(obj->skeleton, opts, kfuncs, trace_nokfunc__elf_bytes);
	if (err) {
		trace__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

struct light *light_object_open(const struct bpf_object_open_opts *opts, bool kfuncs)
{
	struct light *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = light__create_skeleton(obj);
	err = err ?: open_build(obj->skeleton, opts, kfuncs, light_nokfunc__elf_bytes);
	if (err) {
		light__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

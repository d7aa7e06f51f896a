// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "trace_object.h"
#include "trace_nokfunc.skel.h"
#include "light_nokfunc.skel.h"
#include "top_nokfunc.skel.h"

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

/*
 * NAME_object_open(): the skeleton NAME (trace, light, top) created, then opened
 * on the build kfuncs chooses. One definition for both objects: only the
 * skeleton's type and functions differ.
 */
#define DEFINE_OBJECT_OPEN(name)                                                         \
	struct name *name##_object_open(const struct bpf_object_open_opts *opts, bool kfuncs) \
	{                                                                                \
		struct name *obj = calloc(1, sizeof(*obj));                              \
		int err;                                                                 \
											 \
		if (!obj) {                                                              \
			errno = ENOMEM;                                                  \
			return NULL;                                                     \
		}                                                                        \
		err = name##__create_skeleton(obj);                                      \
		err = err ?: open_build(obj->skeleton, opts, kfuncs,                     \
					name##_nokfunc__elf_bytes);                      \
		if (err) {                                                               \
			name##__destroy(obj);                                            \
			errno = -err;                                                    \
			return NULL;                                                     \
		}                                                                        \
		return obj;                                                              \
	}

DEFINE_OBJECT_OPEN(trace)
DEFINE_OBJECT_OPEN(light)
DEFINE_OBJECT_OPEN(top)

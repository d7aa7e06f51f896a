// SPDX-License-Identifier: GPL-2.0
/* The trace-time parts of a recording (see trace_record.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calib/calib_host.h"
#include "calib/calib_store.h"
#include "syms/build_id.h"
#include "syms/proc_root.h"
#include "trace_record.h"

/* The modules' files by path, open while the stacks are placed: a handful
 * of modules serve every frame. */
#define MODULE_CACHE 64
struct module_cache {
	char *path[MODULE_CACHE];
	char hex[MODULE_CACHE][SS_BUILD_ID_HEX];
	int fd[MODULE_CACHE];		/* -1: not readable */
	size_t n;
	int root_fd;
};

/* The module's slot, opened through the target's root; NULL when full. */
static size_t module_of(struct module_cache *c, const char *module)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->path[i], module))
			return i;
	if (c->n == MODULE_CACHE || module[0] != '/' || !(c->path[c->n] = strdup(module)))
		return MODULE_CACHE;
	c->hex[c->n][0] = 0;
	c->fd[c->n] = c->root_fd >= 0 ? proc_root__open(c->root_fd, module, O_RDONLY) : -1;
	if (c->fd[c->n] >= 0)
		build_id__read_fd(c->fd[c->n], c->hex[c->n], SS_BUILD_ID_HEX);
	return c->n++;
}

static int locate_stack(struct ss_stack *st, struct syms *syms, struct module_cache *c)
{
	st->where = calloc(st->depth ? st->depth : 1, sizeof(*st->where));
	if (!st->where)
		return -ENOMEM;
	for (int d = 0; d < st->depth; d++) {
		struct sym_info si;
		uint64_t vaddr;
		size_t m;
		/* Callers' frames hold return addresses: the call is at ip - 1. */
		__u64 addr = d ? st->ips[d] - 1 : st->ips[d];

		if (!syms || syms__resolve(syms, addr, &si) || !si.module)
			continue;
		st->where[d].module = strdup(si.module);
		if (!st->where[d].module)
			return -ENOMEM;
		st->where[d].offset = si.module_offset;
		m = module_of(c, si.module);
		if (m == MODULE_CACHE)
			continue;
		snprintf(st->where[d].build_id, SS_BUILD_ID_HEX, "%s", c->hex[m]);
		if (c->fd[m] >= 0 && !build_id__vaddr_of(c->fd[m], si.module_offset, &vaddr))
			st->where[d].vaddr = vaddr;
	}
	return 0;
}

int trace_record__locate(struct ss_stacks *s, struct syms *syms, int pid)
{
	struct module_cache c = { .n = 0 };
	char root[64];
	int err = 0;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	c.root_fd = open(root, O_PATH | O_CLOEXEC);
	for (size_t i = 0; i < s->n && !err; i++)
		if (!s->v[i].where)
			err = locate_stack(&s->v[i], syms, &c);
	for (size_t i = 0; i < c.n; i++) {
		free(c.path[i]);
		if (c.fd[i] >= 0)
			close(c.fd[i]);
	}
	if (c.root_fd >= 0)
		close(c.root_fd);
	return err;
}

/* The ips of the first sampled stack with this id. */
static int read_sample_stack(void *arg, __s32 id, __u64 *ips, int max)
{
	const struct samples_result *sr = arg;

	for (size_t i = 0; i < sr->nr_stacks; i++) {
		const struct samples_stack *st = &sr->stacks[i];

		if (st->stack_id == id) {
			int n = (int)st->depth < max ? (int)st->depth : max;

			memcpy(ips, st->ips, (size_t)n * sizeof(*ips));
			return n;
		}
	}
	return 0;
}

int trace_record__sample_stacks(const struct samples_result *sr, struct ss_stacks *out)
{
	int err = 0;

	for (size_t i = 0; sr && i < sr->nr_stacks && !err; i++)
		if (sr->stacks[i].depth)
			err = stacks__add(out, sr->stacks[i].stack_id, read_sample_stack, (void *)sr);
	return err;
}

json_object *trace_record__fingerprint(void)
{
	struct ss_fingerprint fp;

	if (fingerprint__read(NULL, &fp))
		return NULL;
	return calib_store__host_json(&fp);
}

json_object *trace_record__calibration(const char *path, const char *machine,
				       const struct adv_report *advice)
{
	json_object *o = json_object_new_object(), *res = NULL;
	struct adv_host h, none = { .present = false };
	char why[256], used[256] = "";

	if (!o)
		return NULL;
	calib_host__load(&h, path, machine);
	json_object_object_add(o, "present", json_object_new_boolean(h.present));
	json_object_object_add(o, "matches", json_object_new_boolean(h.matches));
	if (h.mismatch_reason[0])
		json_object_object_add(o, "mismatch_reason", json_object_new_string(h.mismatch_reason));
	/* What the findings would need of a host with nothing measured is
	 * what they rest on. */
	if (advice)
		calib_host__needed(advice, &none, used, sizeof(used));
	json_object_object_add(o, "families_used", json_object_new_string(used));
	if (h.matches && !calib__load_matching(path, &res, why, sizeof(why)))
		json_object_object_add(o, "results", res);
	return o;
}

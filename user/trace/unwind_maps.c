// SPDX-License-Identifier: GPL-2.0
/*
 * Loading the unwind table into a BPF object (see unwind_maps.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "map_read.h"
#include "unwind_maps.h"

static struct bpf_map *map_of(const struct unwind_maps *u, const char *name)
{
	return u->obj ? bpf_object__find_map_by_name(u->obj, name) : NULL;
}

/* bpf_task_pt_regs (5.15) and bpf_get_current_task_btf need the kernel's
 * BTF; bpf_loop is 5.17. Probed for the program types that take stacks. */
static bool kernel_can_unwind(void)
{
	static const enum bpf_prog_type types[] = { BPF_PROG_TYPE_TRACEPOINT, BPF_PROG_TYPE_PERF_EVENT };

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (libbpf_probe_bpf_helper(types[i], BPF_FUNC_task_pt_regs, NULL) != 1 ||
		    libbpf_probe_bpf_helper(types[i], BPF_FUNC_loop, NULL) != 1)
			return false;
	return true;
}

#define UNW_SUFFIX "_unw"

/* Each program NAME that takes stacks has a twin NAME_unw that unwinds
 * (bpf/unwind.bpf.h): load the twin instead where NAME was to be loaded
 * and on is set, else never the twin. */
static void pick_programs(struct bpf_object *obj, bool on)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		const char *name = bpf_program__name(p);
		size_t n = strlen(name), k = strlen(UNW_SUFFIX);
		struct bpf_program *plain;
		char base[64];

		if (n <= k || n - k >= sizeof(base) || strcmp(name + n - k, UNW_SUFFIX))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(n - k), name);
		plain = bpf_object__find_program_by_name(obj, base);
		bpf_program__set_autoload(p, on && plain && bpf_program__autoload(plain));
		if (on && plain)
			bpf_program__set_autoload(plain, false);
	}
}

void unwind_maps__prepare(struct unwind_maps *u, struct bpf_object *obj, struct bpf_map *kernel_stacks,
			  __u32 *targ_unwind_rows, const struct ss_unwind_table *table, __u32 max_stacks,
			  int verbose)
{
	struct bpf_map *rows, *stacks;
	int err;

	memset(u, 0, sizeof(*u));
	u->obj = obj;
	pick_programs(obj, false);
	rows = map_of(u, "unwind_rows");
	stacks = map_of(u, "unwind_stacks");
	if (!rows || !stacks || !table || !table->nrows)
		return;
	if (!kernel_can_unwind()) {
		if (verbose)
			fprintf(stderr, "spinscope: this kernel cannot unwind stacks in BPF (needs BTF, bpf_task_pt_regs and bpf_loop: 5.17): frame pointers only\n");
		return;
	}
	err = bpf_map__set_max_entries(rows, (__u32)table->nrows);
	/* Filled by a copy into its memory (fill_rows()): 5.5 on. */
	err = err ?: bpf_map__set_map_flags(rows, bpf_map__map_flags(rows) | BPF_F_MMAPABLE);
	err = err ?: bpf_map__set_max_entries(stacks, max_stacks);
	/* The kernel's stack map is not used: keep it as small as allowed. */
	err = err ?: bpf_map__set_max_entries(kernel_stacks, 1);
	if (err)
		return;
	*targ_unwind_rows = (__u32)table->nrows;
	pick_programs(obj, true);
	u->table = table;
	u->on = true;
}

/*
 * One copy into the array's memory, mapped: a batch update copies each of
 * some 30,000 rows apart, 10 ms of every attach. The rows are 16 bytes, the
 * array's element size, so the layouts agree. Where the mapping fails, the
 * batch, then one row at a time.
 */
static int fill_rows(int fd, const struct ss_unwind_row *rows, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t len = (size_t)n * sizeof(*rows);
	void *mem = n ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	__u32 *keys, count = n;
	int err = 0;

	_Static_assert(sizeof(*rows) % 8 == 0, "an array element is rounded up to 8 bytes");
	if (mem != MAP_FAILED) {
		memcpy(mem, rows, len);
		munmap(mem, len);
		return 0;
	}
	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (__u32 i = 0; i < n; i++)
		keys[i] = i;
	if (bpf_map_update_batch(fd, keys, rows, &count, &opts)) {
		/* Kernels without batch ops on arrays: one by one. */
		for (__u32 i = 0; i < n && !err; i++)
			if (bpf_map_update_elem(fd, &keys[i], &rows[i], BPF_ANY))
				err = -errno;
	}
	free(keys);
	return err;
}

int unwind_maps__fill(struct unwind_maps *u)
{
	int err;

	if (!u->on)
		return 0;
	err = fill_rows(bpf_map__fd(map_of(u, "unwind_rows")), u->table->rows, (__u32)u->table->nrows);
	/* BPF keeps its copy; the caller may free the table now. */
	u->table = NULL;
	return err;
}

int unwind_maps__stack_fd(const struct unwind_maps *u, __s32 stack_id, int kernel_stacks_fd)
{
	bool ours = stack_id >= 0 && (stack_id & SS_UNWIND_ID_BIT) && u->on;

	return ours ? bpf_map__fd(map_of(u, "unwind_stacks")) : kernel_stacks_fd;
}

int unwind_maps__stats(const struct unwind_maps *u, __u64 out[SS_UNWIND_NSTATS])
{
	struct bpf_map *m = map_of(u, "unwind_stats");
	int err;

	memset(out, 0, SS_UNWIND_NSTATS * sizeof(*out));
	if (!m || !u->on)
		return 0;
	err = map_sum_percpu(bpf_map__fd(m), SS_UNWIND_NSTATS, out);
	return err ? err : 1;
}

void unwind_maps__free(struct unwind_maps *u)
{
	memset(u, 0, sizeof(*u));
}

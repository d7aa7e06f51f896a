// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind table of a process (see unwind_table.h): which mappings need one
 * (syms' frame-pointer judgement), where their rows are, their bias.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proc_maps.h"
#include "proc_root.h"
#include "syms.h"
#include "unwind_table.h"

/* The mapped file: map_files names the file itself (any mount namespace,
 * replaced or not); without CAP_SYS_ADMIN, its path in the target's root. */
static int open_mapping(const char *proc, int pid, int root_fd, const struct proc_map *m)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, proc, pid, m->start, m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || m->deleted || root_fd < 0)
		return fd >= 0 ? fd : -errno;
	snprintf(path, sizeof(path), "%.*s", (int)m->path_len, m->path);
	return proc_root__open(root_fd, path, O_RDONLY);
}

/* runtime address - ELF virtual address, from the PT_LOAD segment that
 * holds the mapping's file offset. */
static int load_bias(int fd, const struct proc_map *m, __u64 *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t nph = 0;
	int err = -ENOENT;

	if (!elf)
		return -EINVAL;
	if (elf_getphdrnum(elf, &nph))
		nph = 0;
	for (size_t i = 0; i < nph && err; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    m->offset < ph.p_offset || m->offset >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = m->start - (ph.p_vaddr + (m->offset - ph.p_offset));
		err = 0;
	}
	elf_end(elf);
	return err;
}

/* Appends a file's rows moved to the mapping's run-time addresses, clipped
 * to it, and the SS_CFA_NONE row that ends it. Returns the rows added. */
static int relocate(struct unwind_table *t, const struct cfi_table *file, const struct ss_unwind_module *mod,
		    size_t max_rows)
{
	size_t first = t->cfi.nrows;
	struct ss_unwind_row r, end = { .pc = mod->end, .cfa = SS_CFA_NONE };
	int err = 0;

	for (size_t i = 0; i < file->nrows && !err; i++) {
		r = file->rows[i];
		r.pc += mod->bias;
		if (r.pc >= mod->end)
			break;
		/* A row that begins before the mapping applies from its start. */
		if (r.pc < mod->start) {
			if (i + 1 < file->nrows && file->rows[i + 1].pc + mod->bias <= mod->start)
				continue;
			r.pc = mod->start;
		}
		err = cfi_table__push(&t->cfi, &r, max_rows);
	}
	err = err ?: cfi_table__push(&t->cfi, &end, max_rows);
	if (err) {
		t->cfi.nrows = first;
		return err;
	}
	return (int)(t->cfi.nrows - first);
}

static void add_mapping(struct unwind_table *t, const char *proc, int pid, int root_fd,
			const struct proc_map *m, size_t max_rows)
{
	struct ss_unwind_module mod = { .start = m->start, .end = m->end };
	struct cfi_table file = { 0 };
	struct cfi_table_stats st = { 0 };
	int fd, n = -1;

	if (t->nmods == SS_UNWIND_MAX_MODULES) {
		t->skipped++;
		return;
	}
	fd = open_mapping(proc, pid, root_fd, m);
	if (fd >= 0 && !load_bias(fd, m, &mod.bias))
		n = cfi_table__add_elf(&file, fd, max_rows, &st);
	if (fd >= 0)
		close(fd);
	mod.first_row = (uint32_t)t->cfi.nrows;
	if (n > 0)
		n = relocate(t, &file, &mod, max_rows);
	cfi_table__free(&file);
	if (n <= 0) {
		t->skipped++;
		return;
	}
	t->unsupported += st.unsupported;
	mod.nrows = (uint32_t)n;
	t->mods[t->nmods++] = mod;
}

int unwind_table__build(int pid, const struct unwind_table_opts *o, struct unwind_table *t)
{
	const char *proc = o && o->proc_root ? o->proc_root : "/proc";
	size_t max_rows = o && o->max_rows ? o->max_rows : SS_UNWIND_MAX_ROWS;
	struct syms_opts so = { .proc_root = proc, .no_perfmap = true };
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	struct syms *s;
	int root_fd;
	FILE *f;

	memset(t, 0, sizeof(*t));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%d/maps", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	s = syms__new_opts(pid, &so);
	snprintf(path, sizeof(path), "%s/%d/root", proc, pid);
	root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (getline(&line, &cap, f) > 0) {
		struct proc_map m;
		enum frame_ptr_state fp;

		if (proc_map__parse(line, &m) || !m.executable || !proc_map__is_file(&m))
			continue;
		fp = s ? syms__frame_pointers(s, m.start) : FRAME_PTR_UNKNOWN;
		if (fp == FRAME_PTR_YES && !(o && o->all_modules))
			continue;
		add_mapping(t, proc, pid, root_fd, &m, max_rows);
	}
	free(line);
	fclose(f);
	if (root_fd >= 0)
		close(root_fd);
	syms__free(s);
	return 0;
}

void unwind_table__free(struct unwind_table *t)
{
	cfi_table__free(&t->cfi);
	memset(t, 0, sizeof(*t));
}

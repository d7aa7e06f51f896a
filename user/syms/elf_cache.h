/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process-wide cache of ELF files whose symbols spinscope loads. An
 * entry is keyed by (device, inode, size, mtime), so the libc that every
 * process maps is read once, and a file rewritten in place is read again.
 *
 * Entries are opened eagerly (the fd keeps a deleted file, or the file of
 * a process that has since exited, readable) and loaded lazily, on the
 * first address that needs them; the fd is closed once loaded. Memory is
 * bounded: at most max_entries entries and max_bytes of loaded symbols;
 * entries no mapping refers to any more are evicted least recently used
 * first, and a file that would go over the bounds is refused (its
 * addresses then resolve to module+offset only).
 *
 * Not thread-safe: spinscope symbolizes from one thread.
 */
#ifndef SPINSCOPE_ELF_CACHE_H
#define SPINSCOPE_ELF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "debuginfo.h"
#include "elf_symtab.h"

#define ELF_CACHE_MAX_ENTRIES	512
#define ELF_CACHE_MAX_BYTES	(512u << 20)

struct elf_file;

/* Returns a referenced entry for the open file fd (ownership of fd passes
 * to the cache, which closes it when it already holds the same file),
 * or NULL with *err = -errno (-ENOSPC: cache full of referenced files). */
struct elf_file *elf_cache__get_fd(int fd, const char *path, int *err);
/* The same for an image in memory (the vDSO), copied; keyed by content. */
struct elf_file *elf_cache__get_mem(const void *image, size_t size, const char *name, int *err);
/* Another reference to f. */
struct elf_file *elf_file__get(struct elf_file *f);
/* Drops a reference; the entry stays cached until evicted. NULL is fine. */
void elf_file__put(struct elf_file *f);

/* The file's symbols, loading them (with ctx to find debug files) on the
 * first call. NULL when the file could not be loaded; *err says why. */
const struct elf_symtab *elf_file__symtab(struct elf_file *f, const struct debuginfo_ctx *ctx,
					  int *err);
bool elf_file__loaded(const struct elf_file *f);
/* The symbols if already loaded, else NULL; never loads. */
const struct elf_symtab *elf_file__peek(const struct elf_file *f);

struct elf_cache_stats {
	size_t entries;
	size_t bytes;		/* of loaded symbols */
	uint64_t hits;
	uint64_t misses;
	uint64_t evictions;
	uint64_t refused;	/* entries or loads refused at the bounds */
};

void elf_cache__stats(struct elf_cache_stats *out);
/* Changes the bounds (tests use small ones) and evicts down to them. */
void elf_cache__set_limits(size_t max_entries, size_t max_bytes);
/* Evicts every unreferenced entry. */
void elf_cache__flush(void);

#endif

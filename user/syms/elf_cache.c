// SPDX-License-Identifier: GPL-2.0
/* The bounded, process-wide cache of ELF symbol tables (see elf_cache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "elf_cache.h"

struct file_key {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_sec;
	int64_t mtime_nsec;
	bool mem;		/* an image from memory: ino holds its hash */
};

struct elf_file {
	struct file_key key;
	int fd;			/* until loaded; -1 for memory images */
	void *image;		/* memory images, until loaded */
	size_t image_size;
	char *path;		/* as the target sees it: finds debuglink files */
	struct elf_symtab *st;
	int load_err;
	bool loaded;
	unsigned refs;
	size_t bytes;
	struct elf_file *prev, *next;	/* most recently used first */
};

static struct {
	struct elf_file *head, *tail;
	size_t max_entries;
	size_t max_bytes;
	struct elf_cache_stats stats;
} cache = {
	.max_entries = ELF_CACHE_MAX_ENTRIES,
	.max_bytes = ELF_CACHE_MAX_BYTES,
};

static void unlink_entry(struct elf_file *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		cache.head = f->next;
	if (f->next)
		f->next->prev = f->prev;
	else
		cache.tail = f->prev;
	f->prev = f->next = NULL;
}

static void push_front(struct elf_file *f)
{
	f->next = cache.head;
	f->prev = NULL;
	if (cache.head)
		cache.head->prev = f;
	cache.head = f;
	if (!cache.tail)
		cache.tail = f;
}

static void touch(struct elf_file *f)
{
	if (cache.head != f) {
		unlink_entry(f);
		push_front(f);
	}
}

static void destroy(struct elf_file *f)
{
	unlink_entry(f);
	cache.stats.entries--;
	cache.stats.bytes -= f->bytes;
	if (f->fd >= 0)
		close(f->fd);
	free(f->image);
	free(f->path);
	elf_symtab__free(f->st);
	free(f);
}

/* Evicts unreferenced entries, oldest first, until entries and bytes
 * leave room for `entries` more entries and `bytes` more bytes. */
static void evict_for(size_t entries, size_t bytes)
{
	struct elf_file *f = cache.tail;

	while (f && (cache.stats.entries + entries > cache.max_entries ||
		     cache.stats.bytes + bytes > cache.max_bytes)) {
		struct elf_file *prev = f->prev;

		if (!f->refs) {
			destroy(f);
			cache.stats.evictions++;
		}
		f = prev;
	}
}

static struct elf_file *lookup(const struct file_key *k)
{
	for (struct elf_file *f = cache.head; f; f = f->next)
		if (!memcmp(&f->key, k, sizeof(*k)))
			return f;
	return NULL;
}

static struct elf_file *insert(const struct file_key *k, const char *path, int *err)
{
	struct elf_file *f;

	evict_for(1, 0);
	if (cache.stats.entries + 1 > cache.max_entries) {
		cache.stats.refused++;
		*err = -ENOSPC;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		*err = -ENOMEM;
		return NULL;
	}
	f->key = *k;
	f->fd = -1;
	f->refs = 1;
	push_front(f);
	cache.stats.entries++;
	cache.stats.misses++;
	return f;
}

static struct elf_file *hit(struct elf_file *f)
{
	cache.stats.hits++;
	f->refs++;
	touch(f);
	return f;
}

struct elf_file *elf_cache__get_fd(int fd, const char *path, int *err)
{
	struct file_key k;
	struct elf_file *f;
	struct stat st;

	if (fstat(fd, &st)) {
		*err = -errno;
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = -ENOEXEC;
		close(fd);
		return NULL;
	}
	memset(&k, 0, sizeof(k));	/* padding takes part in memcmp */
	k.dev = st.st_dev;
	k.ino = st.st_ino;
	k.size = (uint64_t)st.st_size;
	k.mtime_sec = st.st_mtim.tv_sec;
	k.mtime_nsec = st.st_mtim.tv_nsec;
	f = lookup(&k);
	if (f) {
		close(fd);
		return hit(f);
	}
	f = insert(&k, path, err);
	if (!f) {
		close(fd);
		return NULL;
	}
	f->fd = fd;
	return f;
}

/* FNV-1a: identifies a memory image well enough together with its size. */
static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

struct elf_file *elf_cache__get_mem(const void *image, size_t size, const char *name, int *err)
{
	struct file_key k;
	struct elf_file *f;

	memset(&k, 0, sizeof(k));
	k.mem = true;
	k.ino = fnv1a(image, size);
	k.size = size;
	f = lookup(&k);
	if (f)
		return hit(f);
	f = insert(&k, name, err);
	if (!f)
		return NULL;
	f->image = malloc(size ? size : 1);
	if (!f->image) {
		f->refs = 0;
		destroy(f);
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(f->image, image, size);
	f->image_size = size;
	return f;
}

struct elf_file *elf_file__get(struct elf_file *f)
{
	f->refs++;
	return f;
}

void elf_file__put(struct elf_file *f)
{
	if (!f || !f->refs)
		return;
	f->refs--;
	if (!f->refs)
		evict_for(0, 0);
}

static struct elf_symtab *load(struct elf_file *f, const struct debuginfo_ctx *ctx, int *err)
{
	struct elf_symtab *st;

	if (f->image)
		st = elf_symtab__load_mem(f->image, f->image_size, err);
	else
		st = elf_symtab__load_fd(f->fd, err);
	if (!st)
		return NULL;
	/* Only a table of exported functions (or none): a separate debug
	 * file may have them all. */
	if (elf_symtab__source(st) != ELF_SYMS_SYMTAB && f->fd >= 0 && ctx)
		debuginfo__load(ctx, f->path, f->fd, st);
	elf_symtab__check_frame_ptr(st, f->fd, f->image, f->image_size);
	return st;
}

const struct elf_symtab *elf_file__symtab(struct elf_file *f, const struct debuginfo_ctx *ctx,
					  int *err)
{
	struct elf_symtab *st;
	size_t bytes;

	if (f->loaded) {
		*err = f->load_err;
		return f->st;
	}
	f->loaded = true;
	st = load(f, ctx, &f->load_err);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->image);
	f->image = NULL;
	if (st) {
		bytes = elf_symtab__bytes(st);
		evict_for(0, bytes);
		if (cache.stats.bytes + bytes > cache.max_bytes) {
			cache.stats.refused++;
			elf_symtab__free(st);
			st = NULL;
			f->load_err = -ENOSPC;
		} else {
			f->st = st;
			f->bytes = bytes;
			cache.stats.bytes += bytes;
		}
	}
	touch(f);
	*err = f->load_err;
	return f->st;
}

bool elf_file__loaded(const struct elf_file *f)
{
	return f->loaded;
}

const struct elf_symtab *elf_file__peek(const struct elf_file *f)
{
	return f->st;
}

void elf_cache__stats(struct elf_cache_stats *out)
{
	*out = cache.stats;
}

void elf_cache__set_limits(size_t max_entries, size_t max_bytes)
{
	cache.max_entries = max_entries;
	cache.max_bytes = max_bytes;
	evict_for(0, 0);
}

void elf_cache__flush(void)
{
	struct elf_file *f = cache.head;

	while (f) {
		struct elf_file *next = f->next;

		if (!f->refs)
			destroy(f);
		f = next;
	}
}

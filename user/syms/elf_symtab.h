/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function symbols of one ELF image, loaded with libelf into a sorted
 * array for binary search, one "<import>@plt" symbol per PLT stub, plus
 * what is needed to place an address in it:
 * the PT_LOAD segments (file offset -> link-time address, which is how the
 * load bias of PIE executables and shared objects is undone), the build-id
 * and the .gnu_debuglink that name its separate debug file.
 *
 * Images are untrusted: a truncated or hostile file yields an error or
 * fewer symbols, never a crash or an unbounded loop (every count and size
 * below is capped, every libelf return is checked).
 */
#ifndef SPINSCOPE_ELF_SYMTAB_H
#define SPINSCOPE_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "frame_ptr.h"

/* Caps that keep a hostile image from costing unbounded time or memory. */
#define ELF_SYMTAB_MAX_SYMS	(4u << 20)	/* symbols read per table */
#define ELF_SYMTAB_MAX_STRS	(256u << 20)	/* bytes of names kept */
#define ELF_SYMTAB_MAX_NAME	1024		/* longer names are cut */
#define ELF_SYMTAB_MAX_SECTIONS	65536
#define ELF_SYMTAB_MAX_SEGS	64		/* PT_LOAD entries kept */
#define ELF_SYMTAB_MAX_BUILD_ID	64
#define ELF_SYMTAB_MAX_LINK	256
#define ELF_SYMTAB_MAX_PLT_SECS	4		/* .plt, .plt.sec, .plt.got, ... */

enum elf_sym_source {
	ELF_SYMS_NONE = 0,	/* no function symbols at all */
	ELF_SYMS_DYNSYM,	/* exported functions only */
	ELF_SYMS_SYMTAB,	/* full symbol table of the image itself */
	ELF_SYMS_DEBUGLINK,	/* .symtab of a debug file found via .gnu_debuglink */
	ELF_SYMS_BUILD_ID,	/* .symtab of a debug file found via build-id */
};

struct elf_symtab;

/* Loads an image from a file descriptor (not closed, not kept) or from
 * memory (not kept). NULL with *err = -errno on failure (-ENOEXEC: not an
 * ELF executable or shared object, or unusable). */
struct elf_symtab *elf_symtab__load_fd(int fd, int *err);
struct elf_symtab *elf_symtab__load_mem(const void *image, size_t size, int *err);
void elf_symtab__free(struct elf_symtab *st);

/* Replaces st's symbols by those of debug (a separate debug file of the
 * same binary) and records where they came from. Returns 0, or -ESTALE
 * when both carry build-ids and they differ, -ENOENT when debug has no
 * .symtab. debug is left empty of symbols either way only on success. */
int elf_symtab__take_symbols(struct elf_symtab *st, struct elf_symtab *debug,
			     enum elf_sym_source source);

/* Name of the function containing the link-time address vaddr, as in
 * the symbol table but without a version suffix ("@@GLIBC_2.17"), and
 * vaddr's offset in it. NULL when no symbol covers it: a symbol covers
 * its st_size bytes; one of size 0 (assembly) runs to the next symbol but
 * not past its section's end. PLT stubs are "<import>@plt", or "[plt]"
 * (offset from the section start) when their import is not known. */
const char *elf_symtab__find(const struct elf_symtab *st, uint64_t vaddr, uint64_t *offset);

struct elf_sym_hit {
	const char *name;	/* as shown: C++ and Rust names demangled, cut at DEMANGLE_MAX_SHOWN */
	const char *raw;	/* as elf_symtab__find gives it */
	uint64_t offset;
};

/* elf_symtab__find and the name to show. C++ and Rust names are demangled on the
 * first lookup of each symbol and kept with st (not thread-safe, like
 * the rest). Strings live as long as st. false when nothing covers vaddr. */
bool elf_symtab__lookup(const struct elf_symtab *st, uint64_t vaddr, struct elf_sym_hit *hit);
/* Link-time address of a file offset, through the PT_LOAD segment that
 * holds it. Returns 0, or -ENOENT when no segment does. */
int elf_symtab__file_to_vaddr(const struct elf_symtab *st, uint64_t file_off, uint64_t *vaddr);

/* Judges frame pointers from the entries of up to 64 functions, read
 * from the image (fd, or image/size when fd < 0); stores and returns it. */
enum frame_ptr_state elf_symtab__check_frame_ptr(struct elf_symtab *st, int fd, const void *image,
						 size_t size);

size_t elf_symtab__count(const struct elf_symtab *st);
enum elf_sym_source elf_symtab__source(const struct elf_symtab *st);
enum frame_ptr_state elf_symtab__frame_ptr(const struct elf_symtab *st);
/* Build-id bytes (NULL when absent) and their length. */
const uint8_t *elf_symtab__build_id(const struct elf_symtab *st, size_t *len);
/* Debug link file name (NULL when absent) and its CRC32. */
const char *elf_symtab__debuglink(const struct elf_symtab *st, uint32_t *crc);
/* Heap bytes held once loaded, for the cache's memory bound (names
 * demangled later add up to 16 MiB per image, not counted). */
size_t elf_symtab__bytes(const struct elf_symtab *st);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-ids: read from an ELF file's GNU note, and used to find the same
 * binary (or its debug file) elsewhere, so a recording made on one machine
 * can be named on another: DIR/.build-id/xx/rest.debug as debuggers lay
 * them out, or any plain file below DIR whose build-id matches.
 */
#ifndef SPINSCOPE_BUILD_ID_H
#define SPINSCOPE_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

/* The build-id of the ELF image open at fd as lowercase hex. 0, or
 * -ENOENT (no build-id note), -ENOEXEC (not ELF). */
int build_id__read_fd(int fd, char *hex, size_t len);
/* The same of an image in memory (the vDSO). */
int build_id__read_mem(const void *image, size_t size, char *hex, size_t len);

/* Opens a file below dir carrying build-id hex: dir/.build-id/xx/rest.debug,
 * dir/.build-id/xx/rest, then the regular files of dir and its
 * subfolders (two levels). Returns an fd or -ENOENT. */
int build_id__open_in(const char *dir, const char *hex);

/* The link-time address of file offset `offset` in the image at fd, through
 * the PT_LOAD segment that holds it: what names an address in a separate
 * debug file, whose segments hold no file bytes. 0 or -ENOENT. */
int build_id__vaddr_of(int fd, uint64_t offset, uint64_t *vaddr);

/* Names a code address of the image at fd: "func+0x12 (base)" into buf,
 * base being the module's file name. vaddr is its link-time address (0:
 * unknown, then file offset `offset` is placed through the image's
 * segments, which a debug file lacks). 0, or -ENOENT when no function
 * covers it. */
int build_id__name_offset(int fd, uint64_t offset, uint64_t vaddr, const char *base, char *buf,
			  size_t len);

#endif

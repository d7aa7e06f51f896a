/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Separate debug files: distributions strip binaries and ship their full
 * symbol tables in files found by build-id
 * (DEBUG_ROOT/.build-id/xx/rest.debug) or by the .gnu_debuglink name (next
 * to the binary, in its .debug/ folder, or under DEBUG_ROOT/<dir>/).
 */
#ifndef SPINSCOPE_DEBUGINFO_H
#define SPINSCOPE_DEBUGINFO_H

#include "elf_symtab.h"

#define DEBUGINFO_DEFAULT_ROOT "/usr/lib/debug"

struct debuginfo_ctx {
	int root_fd;		/* the target's root directory (O_PATH fd) */
	const char *debug_root;	/* on this host: DEBUGINFO_DEFAULT_ROOT, or a test's */
};

/*
 * Looks for the debug file of the binary at path (as the target sees it,
 * opened as main_fd), whose image is st; on success moves the debug file's
 * symbols into st. A candidate is taken only when it is the same build:
 * equal build-ids, or, without them, the CRC32 the debuglink records.
 * Returns 0, or -ENOENT when no usable debug file exists.
 */
int debuginfo__load(const struct debuginfo_ctx *ctx, const char *path, int main_fd,
		    struct elf_symtab *st);

#endif

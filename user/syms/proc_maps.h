/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of one line of /proc/PID/maps. Pure: no allocation, no I/O, so
 * the symbolizer and the unit tests share exactly the same reading.
 */
#ifndef SPINSCOPE_PROC_MAPS_H
#define SPINSCOPE_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;	/* file offset of start */
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	bool readable;
	bool writable;
	bool executable;
	bool shared;
	bool deleted;		/* path ended in " (deleted)" (suffix removed) */
	const char *path;	/* points into the line; "" for anonymous */
	size_t path_len;
};

/* Fills *out from one maps line (with or without its newline).
 * Returns 0, or -EINVAL when the line is not a maps line. */
int proc_map__parse(const char *line, struct proc_map *out);

/* True for a mapping backed by a file (path starts with '/'), as opposed
 * to anonymous memory and kernel-named regions like [stack] or [vdso]. */
bool proc_map__is_file(const struct proc_map *m);

#endif

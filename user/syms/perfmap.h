/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JIT symbols from a perf map (/tmp/perf-PID.map), the text file that
 * JVMs (-XX:+DumpPerfMapAtExit, jcmd Compiler.perfmap, perf-map-agent),
 * Node (--perf-basic-prof) and .NET (DOTNET_PerfMapEnabled) write: one
 * "START SIZE name" line per compiled method, numbers in hex.
 *
 * The file is written by the target, so it is untrusted input: lines are
 * read with a bounded length, entries and bytes are capped, and a line
 * that does not parse is counted and skipped rather than guessed at.
 */
#ifndef SPINSCOPE_PERFMAP_H
#define SPINSCOPE_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PERFMAP_MAX_LINE	4096		/* longer lines are rejected */
#define PERFMAP_MAX_ENTRIES	(2u << 20)
#define PERFMAP_MAX_BYTES	(256u << 20)	/* of the file read */
#define PERFMAP_MAX_NAME	1024

struct perfmap;

/* Parses one line (without its newline, len bytes, may lack a NUL).
 * Returns 0 and the fields (name points into line, name_len bytes), or
 * -EINVAL for a malformed line: missing or non-hex numbers, numbers wider
 * than 64 bits, size 0, a range past the end of the address space, an
 * empty name, or a NUL byte. */
int perfmap__parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			const char **name, size_t *name_len);

/* Opens path (absolute, as the target sees it, below root_fd: see
 * proc_root.h) for reading only when it is a regular file owned by owner,
 * the target's uid, as perf requires: a target in a user namespace must
 * not make root open a root-owned file through a bind mount. The name is
 * looked at with O_PATH | O_NOFOLLOW, then that inode is opened O_NONBLOCK.
 * Returns an fd (st: its stat) or -errno; -EPERM when refused. */
int perfmap__open(int root_fd, const char *path, uid_t owner, struct stat *st);

/* Reads a perf map from fd (not closed). NULL with *err = -errno. */
struct perfmap *perfmap__load(int fd, int *err);
void perfmap__free(struct perfmap *pm);

/* The newest entry covering addr (JIT code is often recompiled at a
 * reused address, and later lines describe the newer code). */
const char *perfmap__find(const struct perfmap *pm, uint64_t addr, uint64_t *offset);
size_t perfmap__count(const struct perfmap *pm);
/* Lines skipped as malformed, over-long or over the caps. */
size_t perfmap__rejected(const struct perfmap *pm);

#endif

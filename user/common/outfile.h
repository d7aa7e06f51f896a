/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file spinscope writes (-o, --folded, later exports) goes through
 * here. spinscope runs as root and its paths often lie in folders other
 * users can write (/tmp, a shared incident folder), so a name may already
 * be a symlink to /etc/shadow or a FIFO that blocks open() forever.
 *
 * - Before the trace, outfile__check() looks without opening FILE: it must
 *   be absent or a regular file owned by us, and a temporary file must be
 *   creatable in its folder (caught now: a read-only or pseudo filesystem).
 * - At the end, outfile__save() writes a new file next to FILE, created
 *   with O_CREAT | O_EXCL | O_NOFOLLOW and mode 0600 (stacks name the
 *   target's code), syncs it, checks FILE again and renames over it. A
 *   rename replaces a planted link itself, never what it points to, and
 *   nothing is left behind when any step fails.
 */
#ifndef SPINSCOPE_OUTFILE_H
#define SPINSCOPE_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* Whether path may be written: 0, or SS_EXIT_USAGE with the reason in
 * why ("it is a symbolic link: remove it or choose another name"). */
int outfile__check(const char *path, char *why, size_t whylen);

/* Writes n bytes of buf as path (see above). 0, or -errno with the reason
 * in why (strerror, or why FILE was refused). */
int outfile__save(const char *path, const void *buf, size_t n, char *why, size_t whylen);

/* Fills a stream given to it: 0 or -errno. */
typedef int (*outfile_fill_fn)(FILE *f, void *arg);

/* outfile__save of what fill writes (collected in memory first, so that a
 * failure to write is the file system's, with its errno). */
int outfile__save_stream(const char *path, outfile_fill_fn fill, void *arg, char *why,
			 size_t whylen);

/* Call first in main(): a standard fd (0, 1, 2) closed at start is taken
 * by /dev/null opened read-only, so that no file, BPF object or perf event
 * opened later lands on it (the report would go into it), and a write to a
 * closed stdout fails (EBADF) instead of vanishing. */
void outfile__reserve_std_fds(void);

/* Writes n bytes to stdout (fd 1, after what stdio holds): 0, or -errno
 * of the write that failed (ENOSPC for /dev/full; EPIPE for a reader that
 * went away, once SIGPIPE is ignored), which stdio would not keep. */
int outfile__stdout(const void *buf, size_t n);

/* outfile__stdout of what fill writes. */
int outfile__stdout_stream(outfile_fill_fn fill, void *arg);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the exports (--pprof, --metrics-file) reach their files: written
 * whole into a new file next to the target (O_CREAT|O_EXCL|O_NOFOLLOW, mode
 * 0600: we run as root, so no planted link is followed and no other user
 * reads the profile), then renamed over it, so a reader (node_exporter's
 * textfile collector) never sees half a file. One small function, to be
 * swapped for the project's common safe output file once there is one.
 */
#ifndef SPINSCOPE_EXPORT_FILE_H
#define SPINSCOPE_EXPORT_FILE_H

#include <stddef.h>

/* Replaces path with len bytes of data. Returns 0 or -errno. */
int export_file__write(const char *path, const void *data, size_t len);
/* Can path be written? Fails now rather than after the trace: 0 or -errno. */
int export_file__check(const char *path);

#endif

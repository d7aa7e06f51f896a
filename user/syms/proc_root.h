/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a path as another process sees it. Through /proc/PID/root a
 * plain open() resolves absolute symlinks in *our* root, which is wrong
 * for a container and lets a symlink in the target's tree point us at our
 * own files; openat2(RESOLVE_IN_ROOT) keeps the whole lookup inside.
 */
#ifndef SPINSCOPE_PROC_ROOT_H
#define SPINSCOPE_PROC_ROOT_H

/* Opens path (absolute, as the target sees it) below root_fd, a directory
 * fd such as open("/proc/PID/root", O_PATH). flags are open() flags;
 * O_CLOEXEC is always added. Returns an fd or -errno. */
int proc_root__open(int root_fd, const char *path, int flags);

#endif

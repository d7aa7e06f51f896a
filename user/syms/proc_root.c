// SPDX-License-Identifier: GPL-2.0
/* Path lookup inside another process's root directory (see proc_root.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include "proc_root.h"

int proc_root__open(int root_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	while (*path == '/')
		path++;
	if (!*path)
		return -ENOENT;
	fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != ENOSYS)
		return -errno;
	/* Kernels before 5.6: the lookup may leave the root through an
	 * absolute symlink, which is the best these kernels offer. */
	fd = openat(root_fd, path, flags | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

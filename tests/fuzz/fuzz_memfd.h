/* SPDX-License-Identifier: GPL-2.0 */
/* The fuzz input as a file: readers that take a path or an fd get it the
 * way they get a real file, without touching the disk. */
#ifndef SPINSCOPE_FUZZ_MEMFD_H
#define SPINSCOPE_FUZZ_MEMFD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

/* A memory file holding data, positioned at its start, and its path
 * ("/proc/self/fd/N") in path; -1 when it cannot be made. */
static inline int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif

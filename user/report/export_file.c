// SPDX-License-Identifier: GPL-2.0
/* Whole-file replacement for the exports: a new 0600 file, then rename. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "export_file.h"

/* "DIR/.BASE.PID.tmp": in the target's directory, so rename() stays on
 * one file system; hidden, so a textfile collector (*.prom) skips it. */
static int temp_path(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	int n = snprintf(buf, len, "%.*s.%s.%d.tmp", dirlen, path, path + dirlen, (int)getpid());

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int open_temp(const char *tmp)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, flags, 0600);

	/* Ours, left by a run that was killed: remove it (a link is removed,
	 * not followed) and try once more. */
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, flags, 0600);
	return fd < 0 ? -errno : fd;
}

int export_file__write(const char *path, const void *data, size_t len)
{
	const char *p = data;
	char tmp[4096];
	int fd, err = temp_path(path, tmp, sizeof(tmp));

	if (err)
		return err;
	fd = open_temp(tmp);
	if (fd < 0)
		return fd;
	while (len && !err) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			p += n, len -= (size_t)n;
	}
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int export_file__check(const char *path)
{
	char tmp[4096];
	int fd, err = temp_path(path, tmp, sizeof(tmp));

	if (err)
		return err;
	fd = open_temp(tmp);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	return 0;
}

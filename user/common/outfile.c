// SPDX-License-Identifier: GPL-2.0
/* The one way spinscope writes a file (see outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "errors.h"
#include "outfile.h"

#define TEMP_TRIES 64

/* Why path, as it is now, must not be replaced; NULL when it may be
 * (absent, or a regular file of ours). lstat: a link is never followed. */
static const char *refusal(const char *path, char *buf, size_t len)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return NULL;
		snprintf(buf, len, "%s", strerror(errno));
		return buf;
	}
	if (S_ISLNK(st.st_mode))
		return "it is a symbolic link (never followed): remove it or choose another name";
	if (S_ISDIR(st.st_mode))
		return "it is a directory: name a file";
	if (S_ISFIFO(st.st_mode))
		return "it is a FIFO (named pipe): remove it or choose another name";
	if (!S_ISREG(st.st_mode))
		return "it is not a regular file: remove it or choose another name";
	if (st.st_uid != geteuid()) {
		snprintf(buf, len, "it belongs to uid %u, not to uid %u: remove it or choose another name",
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return buf;
	}
	return NULL;
}

/* Creates "<folder>/.<name>.XXXXXXXX", a new file only we can read. */
static int create_temp(const char *path, char *tmp, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;

	for (int i = 0; i < TEMP_TRIES; i++) {
		unsigned int r;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (unsigned int)rand();
		if ((size_t)snprintf(tmp, len, "%.*s.%s.%08x", dirlen, path, path + dirlen, r) >= len)
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Why a temporary file cannot be created next to path. */
static void explain_create(const char *path, int err, char *why, size_t whylen)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(why, whylen, "cannot create a file in folder .: %s", strerror(-err));
	else
		snprintf(why, whylen, "cannot create a file in folder %.*s: %s",
			 slash == path ? 1 : (int)(slash - path), path, strerror(-err));
}

int outfile__check(const char *path, char *why, size_t whylen)
{
	char tmp[PATH_MAX], buf[256];
	const char *no;
	int fd;

	if (!*path || path[strlen(path) - 1] == '/') {
		snprintf(why, whylen, "it names a folder, not a file");
		return SS_EXIT_USAGE;
	}
	no = refusal(path, buf, sizeof(buf));
	if (no) {
		snprintf(why, whylen, "%s", no);
		return SS_EXIT_USAGE;
	}
	/* What the end will do, now: a read-only or pseudo file system
	 * (/proc, /sys) fails here rather than after the trace. */
	fd = create_temp(path, tmp, sizeof(tmp));
	if (fd < 0) {
		explain_create(path, fd, why, whylen);
		return SS_EXIT_USAGE;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int outfile__save(const char *path, const void *buf, size_t n, char *why, size_t whylen)
{
	char tmp[PATH_MAX], reason[256];
	const char *no;
	int fd, err;

	fd = create_temp(path, tmp, sizeof(tmp));
	if (fd < 0) {
		explain_create(path, fd, why, whylen);
		return fd;
	}
	err = write_all(fd, buf, n);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		snprintf(why, whylen, "%s", strerror(-err));
	/* Planted since the check? A rename would only replace the link or
	 * FIFO itself, but refusing says what happened. */
	if (!err && (no = refusal(path, reason, sizeof(reason)))) {
		snprintf(why, whylen, "%s", no);
		err = -EEXIST;
	}
	if (!err && rename(tmp, path)) {
		err = -errno;
		snprintf(why, whylen, "%s", strerror(-err));
	}
	if (err)
		unlink(tmp);
	return err;
}

/* What fill writes, in memory: 0 or -errno; *buf to be freed either way. */
static int fill_memory(outfile_fill_fn fill, void *arg, char **buf, size_t *n)
{
	FILE *f;
	int err;

	*buf = NULL;
	*n = 0;
	f = open_memstream(buf, n);
	if (!f)
		return -errno;
	err = fill(f, arg);
	if (fclose(f) && !err)
		err = -ENOMEM;
	return err;
}

int outfile__save_stream(const char *path, outfile_fill_fn fill, void *arg, char *why,
			 size_t whylen)
{
	char *buf;
	size_t n;
	int err = fill_memory(fill, arg, &buf, &n);

	if (err)
		snprintf(why, whylen, "%s", strerror(-err));
	else
		err = outfile__save(path, buf, n, why, whylen);
	free(buf);
	return err;
}

void outfile__reserve_std_fds(void)
{
	for (int fd = 0; fd <= STDERR_FILENO; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		got = open("/dev/null", O_RDONLY);	/* lowest free fd: this one */
		if (got >= 0 && got != fd)
			close(got);
	}
}

int outfile__stdout(const void *buf, size_t n)
{
	if (fflush(stdout) == EOF)
		return -errno;
	return write_all(STDOUT_FILENO, buf, n);
}

int outfile__stdout_stream(outfile_fill_fn fill, void *arg)
{
	char *buf;
	size_t n;
	int err = fill_memory(fill, arg, &buf, &n);

	err = err ?: outfile__stdout(buf, n);
	free(buf);
	return err;
}

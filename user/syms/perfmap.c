// SPDX-License-Identifier: GPL-2.0
/* Reading perf-PID.map files written by JIT compilers (see perfmap.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/sort.h"
#include "perfmap.h"
#include "proc_root.h"
#include "strpool.h"

/* Overlapping entries looked at before the newest covering one is taken. */
#define OVERLAP_LOOKBACK 16

struct perfmap_entry {
	uint64_t start;
	uint64_t size;
	uint32_t name;
	uint32_t seq;	/* line order: higher is newer */
};

struct perfmap {
	struct perfmap_entry *v;
	size_t n;
	size_t cap;
	size_t rejected;
	struct strpool names;
};

static bool hexval(char c, unsigned *d)
{
	if (c >= '0' && c <= '9')
		*d = (unsigned)(c - '0');
	else if (c >= 'a' && c <= 'f')
		*d = (unsigned)(c - 'a' + 10);
	else if (c >= 'A' && c <= 'F')
		*d = (unsigned)(c - 'A' + 10);
	else
		return false;
	return true;
}

/* One hex number at *pos, optional 0x, then at least one blank. */
static int parse_hex(const char *line, size_t len, size_t *pos, uint64_t *out)
{
	size_t i = *pos, digits = 0;
	uint64_t v = 0;
	unsigned d;

	if (i + 1 < len && line[i] == '0' && (line[i + 1] == 'x' || line[i + 1] == 'X'))
		i += 2;
	for (; i < len && hexval(line[i], &d); i++, digits++) {
		if (v >> 60)
			return -EINVAL;	/* a 17th significant digit */
		v = v << 4 | d;
	}
	if (!digits || i >= len || (line[i] != ' ' && line[i] != '\t'))
		return -EINVAL;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*pos = i;
	*out = v;
	return 0;
}

int perfmap__parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			const char **name, size_t *name_len)
{
	size_t pos = 0, end = len;

	if (memchr(line, '\0', len))
		return -EINVAL;
	while (pos < len && (line[pos] == ' ' || line[pos] == '\t'))
		pos++;
	if (parse_hex(line, len, &pos, start) || parse_hex(line, len, &pos, size))
		return -EINVAL;
	if (*size == 0 || *start + *size < *start)
		return -EINVAL;
	while (end > pos && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == '\r'))
		end--;
	if (end == pos)
		return -EINVAL;
	*name = line + pos;
	*name_len = end - pos;
	return 0;
}

static int add_line(struct perfmap *pm, const char *line, size_t len)
{
	const char *name;
	size_t name_len;
	uint64_t start, size;
	int64_t off;

	if (perfmap__parse_line(line, len, &start, &size, &name, &name_len) ||
	    pm->n >= PERFMAP_MAX_ENTRIES) {
		pm->rejected++;
		return 0;
	}
	if (pm->n == pm->cap) {
		size_t ncap = pm->cap ? pm->cap * 2 : 1024;
		struct perfmap_entry *v = realloc(pm->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pm->v = v;
		pm->cap = ncap;
	}
	off = strpool__add(&pm->names, name, name_len);
	if (off < 0) {
		pm->rejected++;
		return 0;
	}
	pm->v[pm->n] = (struct perfmap_entry){
		.start = start, .size = size, .name = (uint32_t)off, .seq = (uint32_t)pm->n,
	};
	pm->n++;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct perfmap_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Splits the stream into lines with a fixed buffer: a line longer than
 * PERFMAP_MAX_LINE is dropped up to its newline, so a file without
 * newlines costs one buffer, not its size.
 */
static int read_lines(struct perfmap *pm, int fd)
{
	static const size_t chunk = 1 << 16;
	char *line = malloc(PERFMAP_MAX_LINE), *buf = malloc(chunk);
	size_t len = 0, total = 0;
	bool too_long = false;
	ssize_t n;
	int err = 0;

	if (!line || !buf) {
		err = -ENOMEM;
		goto out;
	}
	while (total < PERFMAP_MAX_BYTES && (n = read(fd, buf, chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		total += (size_t)n;
		for (ssize_t i = 0; i < n && !err; i++) {
			if (buf[i] != '\n') {
				if (len < PERFMAP_MAX_LINE)
					line[len++] = buf[i];
				else
					too_long = true;
				continue;
			}
			if (too_long)
				pm->rejected++;
			else if (len)
				err = add_line(pm, line, len);
			len = 0;
			too_long = false;
		}
		if (err)
			goto out;
	}
	/* a last line without newline may be one being written: skip it */
	if (len || too_long)
		pm->rejected++;
out:
	free(line);
	free(buf);
	return err;
}

int perfmap__open(int root_fd, const char *path, uid_t owner, struct stat *st)
{
	struct stat again;
	char self[64];
	int pfd, fd;

	/* O_PATH opens nothing for reading: a device, FIFO or another
	 * user's file is only looked at. */
	pfd = proc_root__open(root_fd, path, O_PATH | O_NOFOLLOW);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, st)) {
		fd = -errno;
		close(pfd);
		return fd;
	}
	if (!S_ISREG(st->st_mode) || st->st_uid != owner) {
		close(pfd);
		return -EPERM;
	}
	/* Reopened through the checked inode itself, not its name. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &again) || again.st_dev != st->st_dev || again.st_ino != st->st_ino) {
		close(fd);
		return -EPERM;
	}
	*st = again;
	return fd;
}

struct perfmap *perfmap__load(int fd, int *err)
{
	struct perfmap *pm = calloc(1, sizeof(*pm));

	if (!pm) {
		*err = -ENOMEM;
		return NULL;
	}
	pm->names.max = PERFMAP_MAX_BYTES;
	pm->names.max_name = PERFMAP_MAX_NAME;
	*err = read_lines(pm, fd);
	if (*err) {
		perfmap__free(pm);
		return NULL;
	}
	if (pm->n)
		ss_sort(pm->v, pm->n, sizeof(*pm->v), entry_cmp);
	strpool__shrink(&pm->names);
	return pm;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->v);
	strpool__free(&pm->names);
	free(pm);
}

const char *perfmap__find(const struct perfmap *pm, uint64_t addr, uint64_t *offset)
{
	const struct perfmap_entry *best = NULL;
	size_t lo = 0, hi = pm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, seen = 0; i > 0 && seen < OVERLAP_LOOKBACK; i--, seen++) {
		const struct perfmap_entry *e = &pm->v[i - 1];

		if (addr - e->start < e->size && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return NULL;
	*offset = addr - best->start;
	return pm->names.buf + best->name;
}

size_t perfmap__count(const struct perfmap *pm)
{
	return pm->n;
}

size_t perfmap__rejected(const struct perfmap *pm)
{
	return pm->rejected;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * One /proc/PID/maps line -> struct proc_map. The format is
 * "start-end perms offset major:minor inode   path", all numbers in hex
 * except the inode; the path may contain spaces and is absent for
 * anonymous memory. Every field is checked: a line that does not match
 * is rejected instead of half-read.
 */
#include <errno.h>
#include <string.h>
#include "proc_maps.h"

#define DELETED_SUFFIX " (deleted)"

/* Reads digits of the given base into *v; fails on no digits or overflow. */
static const char *parse_num(const char *p, int base, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = p;

	for (;; p++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return NULL;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	if (p == s)
		return NULL;
	*v = x;
	return p;
}

static const char *expect(const char *p, char c)
{
	return p && *p == c ? p + 1 : NULL;
}

int proc_map__parse(const char *line, struct proc_map *out)
{
	const char *p = line;
	uint64_t major, minor;
	size_t n;

	memset(out, 0, sizeof(*out));
	p = parse_num(p, 16, &out->start);
	p = expect(p, '-');
	p = p ? parse_num(p, 16, &out->end) : NULL;
	p = expect(p, ' ');
	if (!p || out->end < out->start)
		return -EINVAL;
	/* perms: exactly four characters, each the flag or '-' */
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 's' && p[3] != 'p'))
		return -EINVAL;
	out->readable = p[0] == 'r';
	out->writable = p[1] == 'w';
	out->executable = p[2] == 'x';
	out->shared = p[3] == 's';
	p = expect(p + 4, ' ');
	p = p ? parse_num(p, 16, &out->offset) : NULL;
	p = expect(p, ' ');
	p = p ? parse_num(p, 16, &major) : NULL;
	p = expect(p, ':');
	p = p ? parse_num(p, 16, &minor) : NULL;
	p = expect(p, ' ');
	p = p ? parse_num(p, 10, &out->inode) : NULL;
	if (!p || major > UINT32_MAX || minor > UINT32_MAX)
		return -EINVAL;
	out->dev_major = (uint32_t)major;
	out->dev_minor = (uint32_t)minor;
	if (*p != ' ' && *p != '\n' && *p != '\0')
		return -EINVAL;
	while (*p == ' ')
		p++;
	n = strcspn(p, "\n");
	out->path = p;
	out->path_len = n;
	if (n > strlen(DELETED_SUFFIX) &&
	    !memcmp(p + n - strlen(DELETED_SUFFIX), DELETED_SUFFIX, strlen(DELETED_SUFFIX))) {
		out->deleted = true;
		out->path_len = n - strlen(DELETED_SUFFIX);
	}
	return 0;
}

bool proc_map__is_file(const struct proc_map *m)
{
	return m->path_len > 0 && m->path[0] == '/';
}

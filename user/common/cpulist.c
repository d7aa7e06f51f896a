// SPDX-License-Identifier: GPL-2.0
/* Parser of the kernel's CPU list format (see cpulist.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpulist.h"

/* Reads a decimal CPU number at *p, bounded so that no overflow can occur. */
static bool parse_cpu(const char **p, unsigned int *out)
{
	unsigned int v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned int)(*s++ - '0');
		if (v > CPULIST_MAX_CPU)
			return false;
	}
	*p = s;
	*out = v;
	return true;
}

int cpulist__parse(const char *list, int *cpus, size_t max)
{
	const char *p = list;
	size_t n = 0;

	if (!list)
		return -EINVAL;
	/* An empty list is valid: no CPU (e.g. an empty "offline" file). */
	if (*p == '\0' || (*p == '\n' && p[1] == '\0'))
		return 0;
	for (;;) {
		unsigned int lo, hi;

		if (!parse_cpu(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!parse_cpu(&p, &hi) || hi < lo)
				return -EINVAL;
		}
		/* The kernel writes ranges in ascending order: anything else
		 * is not a CPU list we understand. */
		if (n && (int)lo <= cpus[n - 1])
			return -EINVAL;
		for (unsigned int c = lo; c <= hi; c++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = (int)c;
		}
		if (*p == '\n')
			p++;
		if (*p == '\0')
			return (int)n;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

int cpulist__read_into(const char *path, int *cpus, size_t max)
{
	char buf[4096];
	size_t len;
	FILE *f;

	f = fopen(path ? path : CPULIST_DEFAULT_ONLINE, "re");
	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f) || (len == sizeof(buf) - 1 && !feof(f))) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	buf[len] = '\0';
	return cpulist__parse(buf, cpus, max);
}

int cpulist__read(const char *path, int **cpus)
{
	int n, *v;

	*cpus = NULL;
	v = calloc(CPULIST_MAX_CPU + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = cpulist__read_into(path, v, CPULIST_MAX_CPU + 1);
	if (n < 0) {
		free(v);
		return n;
	}
	*cpus = v;
	return n;
}

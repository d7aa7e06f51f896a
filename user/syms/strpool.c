// SPDX-License-Identifier: GPL-2.0
/* Capped, sanitizing name pool (see strpool.h). */
#include <stdlib.h>
#include <string.h>
#include "strpool.h"
#include "common/names.h"

int64_t strpool__add(struct strpool *p, const char *s, size_t n)
{
	size_t off = p->len;

	n = strnlen(s, n);
	if (p->max_name && n >= p->max_name)
		n = p->max_name - 1;
	if (p->len + n + 1 > p->max)
		return -1;
	if (p->len + n + 1 > p->cap) {
		size_t ncap = p->cap ? p->cap : 4096;
		char *b;

		while (ncap < p->len + n + 1)
			ncap *= 2;
		b = realloc(p->buf, ncap);
		if (!b)
			return -1;
		p->buf = b;
		p->cap = ncap;
	}
	/* Clean text is never longer; a cut at max_name may leave it shorter. */
	n = ss_name_clean(p->buf + off, n + 1, s, n);
	p->len += n + 1;
	return (int64_t)off;
}

void strpool__shrink(struct strpool *p)
{
	char *b;

	if (!p->len || p->len == p->cap)
		return;
	b = realloc(p->buf, p->len);
	if (b) {
		p->buf = b;
		p->cap = p->len;
	}
}

void strpool__free(struct strpool *p)
{
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

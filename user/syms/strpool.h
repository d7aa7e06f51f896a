/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growing pool of NUL-terminated names with a size cap, referenced by
 * offset. Names come from files spinscope does not trust (symbol tables,
 * JIT maps) and end up on terminals, so they are cut to a maximum length
 * and cleaned on the way in (common/names.h: control bytes, escapes and
 * ill-formed UTF-8 become '?').
 */
#ifndef SPINSCOPE_STRPOOL_H
#define SPINSCOPE_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

struct strpool {
	char *buf;
	size_t len;
	size_t cap;
	size_t max;		/* bytes the pool may grow to */
	size_t max_name;	/* longer names are cut to max_name - 1 bytes */
};

/* Adds the first n bytes of s (up to a NUL); returns the offset, or -1
 * when the pool is full or memory ran out. */
int64_t strpool__add(struct strpool *p, const char *s, size_t n);
/* Gives back the slack after loading; the pool stays usable. */
void strpool__shrink(struct strpool *p);
void strpool__free(struct strpool *p);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Growing a heap array by doubling: one spelling for every table. */
#ifndef SPINSCOPE_GROW_H
#define SPINSCOPE_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes room for one more element in *v (n used of *cap, each size bytes),
 * starting at first elements. 0 or -ENOMEM (*v unchanged). */
static inline int ss_grow(void **v, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : first;
	if (ncap < *cap || ncap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*v, ncap * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

/* Makes *v (*cap elements of size bytes) hold at least n: for a table
 * refilled each round whose size is known before filling. 0 or -ENOMEM
 * (*v unchanged). */
static inline int ss_reserve(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap)
		return 0;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*v, n * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

#endif

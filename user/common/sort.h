/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qsort for arrays that may be empty and then NULL: C11 (7.22.5) wants a
 * valid base even for no elements, glibc declares it nonnull, and UBSan
 * (`make asan`) ends the run at qsort(NULL, 0, ...): a target with no
 * mappings read, a sample run with no registers, an interval with no
 * futexes.
 */
#ifndef SPINSCOPE_SORT_H
#define SPINSCOPE_SORT_H

#include <stdlib.h>

static inline void ss_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif

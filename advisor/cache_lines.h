/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cache lines from the samples' data addresses (struct adv_data_addrs):
 * the accesses grouped by line and each line classified. False sharing:
 * two threads write different bytes of the line, or one writes while
 * another reads other bytes; true sharing: threads write the same bytes.
 * Stacks and the runtime's own accesses are left out. A line counts when its samples are ADV_FS_LINE_SHARE of the register
 * samples and each thread named has ADV_FS_LINE_MIN_SAMPLES on it. Pure,
 * no allocation.
 */
#ifndef SPINSCOPE_ADV_CACHE_LINES_H
#define SPINSCOPE_ADV_CACHE_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include "advisor.h"

#define ADV_LINE_MAX_THREADS 16
#define ADV_LINE_MAX_BYTES 256

enum adv_line_kind { ADV_LINE_FALSE, ADV_LINE_TRUE };

/* One thread's accesses to a line: bytes written and read (bit i: byte
 * i), samples, and its heaviest store and load. */
struct adv_line_thread {
	uint32_t tid;
	uint64_t wmask[ADV_LINE_MAX_BYTES / 64], rmask[ADV_LINE_MAX_BYTES / 64];
	uint64_t write_samples, read_samples;
	const struct adv_data_access *top_write, *top_read;
};

struct adv_line {
	uint64_t addr;			/* its first byte */
	uint32_t bytes;			/* line size used */
	uint64_t samples;		/* on accesses to it, all threads */
	struct adv_line_thread t[ADV_LINE_MAX_THREADS];
	size_t nt;
	/* The pair named: t[a] writes; t[b] writes too, or (read_write)
	 * only reads bytes t[a] does not write. For true sharing, the
	 * writers of the same bytes are counted in writers. */
	size_t a, b;
	bool read_write;
	uint32_t writers;
};

/* The line size to group by: this host's measured destructive
 * interference size where usable, else ADV_FS_LINE_DEFAULT. */
uint32_t adv_lines__size(const struct adv_host *h);
/* The heaviest line of that kind that counts; false when none. */
bool adv_lines__worst(const struct adv_data_addrs *d, uint32_t bytes, enum adv_line_kind kind,
		      struct adv_line *out);

#endif

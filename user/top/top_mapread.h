/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads every entry of a BPF hash map into a growing array of key-value
 * records: in batches (BPF_MAP_LOOKUP_BATCH, Linux 5.6+) where the kernel
 * has them, else key by key. Used by top_collect.c for its two maps.
 */
#ifndef SPINSCOPE_TOP_MAPREAD_H
#define SPINSCOPE_TOP_MAPREAD_H

#include <stdbool.h>
#include <stddef.h>

/* Which entries to keep (an array's unused slots are not): NULL keeps all. */
typedef bool (*top_map_keep_fn)(const void *val);

/* A table of n records of rec_size bytes, each the key (key_size bytes)
 * then the value at val_off. */
struct top_map_table {
	void *recs;
	size_t n, cap, rec_size;
	top_map_keep_fn keep;		/* the read's filter */
};

/* Appends fd's entries that keep takes to t. 0 or -errno. */
int top_map_read_all(int fd, size_t key_size, size_t val_size, size_t val_off, top_map_keep_fn keep,
		     struct top_map_table *t);

#endif

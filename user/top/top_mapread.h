/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads every entry of a BPF hash map into a growing array of key-value
 * records: in batches (BPF_MAP_LOOKUP_BATCH, Linux 5.6+) where the kernel
 * has them, else key by key. Used by top_collect.c for its two maps.
 */
#ifndef SPINSCOPE_TOP_MAPREAD_H
#define SPINSCOPE_TOP_MAPREAD_H

#include <stddef.h>

/* A table of n records of rec_size bytes, each the key (key_size bytes)
 * then the value at val_off. */
struct top_map_table {
	void *recs;
	size_t n, cap, rec_size;
};

/* Empties t and fills it with fd's entries. 0 or -errno. */
int top_map_read_all(int fd, size_t key_size, size_t val_size, size_t val_off, struct top_map_table *t);

#endif

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

/* Makes table record rec from a map entry (key, val): false skips the
 * entry (an array's unused slot). Keeps the table to what is used. */
typedef bool (*top_map_take_fn)(void *ctx, void *rec, const void *key, const void *val);

/* A table of n records of rec_size bytes: by default each the key
 * (key_size bytes) then the value at val_off, else what take makes. */
struct top_map_table {
	void *recs;
	size_t n, cap, rec_size;
	top_map_take_fn take;		/* the read's, with its ctx */
	void *ctx;
};

/* Appends fd's entries to t (through take, with ctx, unless NULL). 0 or
 * -errno. */
int top_map_read_all(int fd, size_t key_size, size_t val_size, size_t val_off, top_map_take_fn take,
		     void *ctx, struct top_map_table *t);
/* Makes room for n records at once (a table about as large as the last
 * read's): growth by doubling alone would overshoot by up to half. 0 or
 * -ENOMEM. */
int top_map_reserve(struct top_map_table *t, size_t n);
/* The same for any array *v of elements of size bytes, *cap its room. */
int top_reserve(void **v, size_t *cap, size_t n, size_t size);

#endif

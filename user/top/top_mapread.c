// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "common/grow.h"
#include "top_mapread.h"

#define BATCH 256	/* entries per batch: bounded scratch, few system calls */

static void *rec_at(struct top_map_table *t, size_t i)
{
	return (char *)t->recs + i * t->rec_size;
}

static int push(struct top_map_table *t, const void *key, size_t key_size, const void *val,
		size_t val_size, size_t val_off)
{
	void *r;

	if (ss_grow(&t->recs, t->n, &t->cap, t->rec_size, 1024))
		return -ENOMEM;
	r = rec_at(t, t->n);
	if (t->take) {
		t->n += t->take(t->ctx, r, key, val);
		return 0;
	}
	memcpy(r, key, key_size);
	memcpy((char *)r + val_off, val, val_size);
	t->n++;
	return 0;
}

/* Key by key (kernels before 5.6): an entry deleted between the two
 * calls is skipped. */
static int read_each(int fd, size_t key_size, size_t val_size, size_t val_off, struct top_map_table *t,
		     void *key, void *next, void *val)
{
	int err = bpf_map_get_next_key(fd, NULL, next);

	while (!err) {
		memcpy(key, next, key_size);
		if (!bpf_map_lookup_elem(fd, key, val) && push(t, key, key_size, val, val_size, val_off))
			return -ENOMEM;
		err = bpf_map_get_next_key(fd, key, next);
	}
	return errno == ENOENT ? 0 : -errno;
}

/* In batches: -EINVAL or -ENOTSUPP before any entry where the kernel has
 * no batch operations for the map. */
static int read_batches(int fd, size_t key_size, size_t val_size, size_t val_off, struct top_map_table *t,
			void *keys, void *vals)
{
	char in[64], out[64];	/* the kernel's cursor: a key of the map */
	bool first = true;

	for (;;) {
		__u32 count = BATCH;
		int err = bpf_map_lookup_batch(fd, first ? NULL : in, out, keys, vals, &count, NULL);
		int e = err ? errno : 0;

		for (__u32 i = 0; i < count; i++)
			if (push(t, (char *)keys + i * key_size, key_size, (char *)vals + i * val_size,
				 val_size, val_off))
				return -ENOMEM;
		if (err)
			return e == ENOENT ? 0 : -e;
		memcpy(in, out, sizeof(in));
		first = false;
	}
}

int top_reserve(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap)
		return 0;
	p = realloc(*v, n * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

int top_map_reserve(struct top_map_table *t, size_t n)
{
	return top_reserve(&t->recs, &t->cap, n, t->rec_size);
}

int top_map_read_all(int fd, size_t key_size, size_t val_size, size_t val_off, top_map_take_fn take,
		     void *ctx, struct top_map_table *t)
{
	void *keys = malloc(BATCH * key_size), *vals = malloc(BATCH * val_size);
	size_t before = t->n;
	int err = -ENOMEM;

	t->take = take;
	t->ctx = ctx;
	if (keys && vals && key_size <= 64) {
		err = read_batches(fd, key_size, val_size, val_off, t, keys, vals);
		if ((err == -EINVAL || err == -ENOTSUP || err == -524 /* ENOTSUPP */) && t->n == before)
			err = read_each(fd, key_size, val_size, val_off, t, keys, (char *)keys + key_size,
					vals);
	}
	free(keys);
	free(vals);
	return err;
}

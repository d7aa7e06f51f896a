// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "exited_sites.h"
#include "trace.h"

/* Both keys end in the thread's tid, at one offset. */
_Static_assert(offsetof(struct ss_waiter_key, tid) == offsetof(struct ss_release_key, tid) &&
		       sizeof(struct ss_waiter_key) == sizeof(struct ss_release_key),
	       "waiter and release keys share a layout");
#define KEY_SIZE sizeof(struct ss_waiter_key)
#define TID_OFFSET offsetof(struct ss_waiter_key, tid)

/* Thread tid of the process in proc_dir has gone: past its exit, and past
 * the sched_process_exit program that flushed its last batches (the
 * kernel unhashes a task after that). */
static bool thread_gone(int proc_dir, __u32 tid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "task/%u", tid);
	return tid && fstatat(proc_dir, path, &st, 0) && errno == ENOENT;
}

/* Room for one more entry of value size vsz in m. */
static int reserve(struct moved_entries *m, size_t vsz)
{
	size_t cap = m->cap ? 2 * m->cap : 256;
	void *k, *v;

	if (m->n < m->cap)
		return 0;
	k = realloc(m->keys, cap * KEY_SIZE);
	if (!k)
		return -ENOMEM;
	m->keys = k;
	v = realloc(m->vals, cap * vsz);
	if (!v)
		return -ENOMEM;
	m->vals = v;
	m->cap = cap;
	return 0;
}

/* The gone threads' entries of map fd (values of vsz bytes) into m, then
 * out of the map: deleted after the walk, which a deletion would restart. */
static long drain_map(struct moved_entries *m, int fd, size_t vsz, int proc_dir)
{
	unsigned char key[KEY_SIZE], next[KEY_SIZE], *prev = NULL;
	size_t first = m->n;
	long err = 0;

	while (!err && bpf_map_get_next_key(fd, prev, next) == 0) {
		__u32 tid;

		memcpy(&tid, next + TID_OFFSET, sizeof(tid));
		if (thread_gone(proc_dir, tid) && !(err = reserve(m, vsz)) &&
		    bpf_map_lookup_elem(fd, next, (char *)m->vals + m->n * vsz) == 0)
			memcpy((char *)m->keys + m->n++ * KEY_SIZE, next, KEY_SIZE);
		memcpy(key, next, KEY_SIZE);
		prev = key;
	}
	for (size_t i = first; i < m->n; i++)
		bpf_map_delete_elem(fd, (char *)m->keys + i * KEY_SIZE);
	return err ? err : (long)(m->n - first);
}

long exited_sites_drain(struct exited_sites *x, int wfd, int rfd, int proc_dir)
{
	long w, r;

	if (proc_dir < 0)
		return 0;
	w = drain_map(&x->waiters, wfd, sizeof(struct ss_waiter_val), proc_dir);
	r = drain_map(&x->releases, rfd, sizeof(struct ss_release_val), proc_dir);
	return w < 0 ? w : r < 0 ? r : w + r;
}

void exited_sites_free(struct exited_sites *x)
{
	free(x->waiters.keys);
	free(x->waiters.vals);
	free(x->releases.keys);
	free(x->releases.vals);
	memset(x, 0, sizeof(*x));
}

// SPDX-License-Identifier: GPL-2.0
/* A small table of stacks by id (see stacks.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stacks.h"
#include "trace.h"

const struct ss_stack *stacks__find(const struct ss_stacks *s, __s32 id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].id == id)
			return &s->v[i];
	return NULL;
}

int stacks__add(struct ss_stacks *s, __s32 id,
		int (*read)(void *arg, __s32 id, __u64 *ips, int max), void *arg)
{
	__u64 ips[SS_MAX_STACK_DEPTH];
	struct ss_stack *st;
	int depth;

	if (id < 0 || stacks__find(s, id))
		return 0;
	depth = read(arg, id, ips, SS_MAX_STACK_DEPTH);
	if (depth < 0)
		return depth;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct ss_stack *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	st = &s->v[s->n];
	memset(st, 0, sizeof(*st));
	st->id = id;
	st->depth = depth;
	st->ips = malloc((depth ? depth : 1) * sizeof(*st->ips));
	if (!st->ips)
		return -ENOMEM;
	memcpy(st->ips, ips, depth * sizeof(*ips));
	s->n++;
	return 0;
}

int stacks__symbolize(struct ss_stacks *s,
		      const char *(*fmt)(void *arg, __u64 ip, int depth, char *buf, size_t len),
		      void *arg)
{
	char buf[512];

	for (size_t i = 0; i < s->n; i++) {
		struct ss_stack *st = &s->v[i];

		if (st->frames)
			continue;
		st->frames = calloc(st->depth ? st->depth : 1, sizeof(char *));
		if (!st->frames)
			return -ENOMEM;
		for (int d = 0; d < st->depth; d++) {
			st->frames[d] = strdup(fmt(arg, st->ips[d], d, buf, sizeof(buf)));
			if (!st->frames[d])
				return -ENOMEM;
		}
	}
	return 0;
}

void stacks__free(struct ss_stacks *s)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].frames)
			for (int d = 0; d < s->v[i].depth; d++)
				free(s->v[i].frames[d]);
		free(s->v[i].frames);
		if (s->v[i].where)
			for (int d = 0; d < s->v[i].depth; d++)
				free(s->v[i].where[d].module);
		free(s->v[i].where);
		free(s->v[i].ips);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

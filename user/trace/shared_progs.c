// SPDX-License-Identifier: GPL-2.0
/* One load for syscall tracepoint programs with one body (shared_progs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "shared_progs.h"

#define TP_SYSCALLS "tracepoint/syscalls/"

/* The second of each pair runs the first's body (bpf/trace.bpf.c: both
 * are futex_exit() of one call class); each comes as NAME and NAME_unw
 * where it takes stacks. */
static const struct {
	const char *keep, *drop;
} pairs[] = {
	{ "futex_exit_wake2", "futex_exit_requeue2" },
	{ "futex_exit_waitv", "futex_exit_wait2" },
};

static struct bpf_program *loading_tracepoint(struct bpf_object *obj, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);

	if (!p || !bpf_program__autoload(p) ||
	    strncmp(bpf_program__section_name(p), TP_SYSCALLS, strlen(TP_SYSCALLS)))
		return NULL;
	return p;
}

void shared_progs__choose(struct shared_progs *s, struct bpf_object *obj)
{
	static const char *const suffixes[] = { "", "_unw" };

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (size_t j = 0; j < sizeof(suffixes) / sizeof(suffixes[0]); j++) {
			char keep[64], drop[64];
			struct bpf_program *k, *d;

			snprintf(keep, sizeof(keep), "%s%s", pairs[i].keep, suffixes[j]);
			snprintf(drop, sizeof(drop), "%s%s", pairs[i].drop, suffixes[j]);
			k = loading_tracepoint(obj, keep);
			d = loading_tracepoint(obj, drop);
			if (!k || !d || s->n == SHARED_PROGS_MAX)
				continue;
			bpf_program__set_autoload(d, false);
			s->extra[s->n].prog = k;
			/* Its section stays valid as long as obj. */
			s->extra[s->n].tracepoint = bpf_program__section_name(d) + strlen(TP_SYSCALLS);
			s->n++;
		}
}

int shared_progs__attach(const struct shared_progs *s, struct bpf_link **links, int *n, int max,
			 int *failed)
{
	for (int i = 0; i < s->n; i++) {
		struct bpf_link *l;

		if (*n == max)
			return -E2BIG;
		l = bpf_program__attach_tracepoint(s->extra[i].prog, "syscalls", s->extra[i].tracepoint);
		if (!l) {
			*failed = i;
			return -errno;
		}
		links[(*n)++] = l;
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user stacks a report shows, copied out of the BPF stack map before
 * detaching and turned into frame strings afterwards, so the report code
 * needs neither libbpf nor the live process.
 */
#ifndef SPINSCOPE_STACKS_H
#define SPINSCOPE_STACKS_H

#include <stddef.h>
#include <linux/types.h>

/* Where a frame's code lives, independent of the process's address space:
 * what a recording keeps so that another machine can name it. */
#define SS_BUILD_ID_HEX 129	/* 64 bytes as hex, and the NUL */
struct ss_frame_where {
	char *module;			/* mapping's path; NULL: unknown */
	char build_id[SS_BUILD_ID_HEX];	/* "": none read */
	__u64 offset;			/* file offset of the (call) address */
	__u64 vaddr;			/* ... as a link-time address; 0: unknown */
};

struct ss_stack {
	__s32 id;
	int depth;
	__u64 *ips;		/* innermost first */
	char **frames;		/* depth strings once symbolized */
	struct ss_frame_where *where;	/* depth entries, or NULL */
};

struct ss_stacks {
	struct ss_stack *v;
	size_t n, cap;
};

/* Reads stack id's IPs through read(arg, id, ips, max) unless already held. */
int stacks__add(struct ss_stacks *s, __s32 id,
		int (*read)(void *arg, __s32 id, __u64 *ips, int max), void *arg);
/* Turns every IP into a frame string with fmt(arg, ip, depth, buf, len);
 * depth 0 is the innermost frame, the others hold return addresses. */
int stacks__symbolize(struct ss_stacks *s,
		      const char *(*fmt)(void *arg, __u64 ip, int depth, char *buf, size_t len),
		      void *arg);
const struct ss_stack *stacks__find(const struct ss_stacks *s, __s32 id);
void stacks__free(struct ss_stacks *s);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Per-CPU sums and stacks out of BPF maps (see map_read.h). */
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "map_read.h"

int map_sum_percpu(int fd, __u32 nkeys, __u64 *sums)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 *vals;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	/* The kernel copies a slot's value for every possible CPU. */
	vals = calloc((size_t)ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (__u32 k = 0; k < nkeys; k++) {
		sums[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, vals)) {
			int err = -errno;

			free(vals);
			return err;
		}
		for (int c = 0; c < ncpus; c++)
			sums[k] += vals[c];
	}
	free(vals);
	return 0;
}

int map_read_stack(int fd, __s32 id, __u64 *ips, int max)
{
	/* The map's values are SS_MAX_STACK_DEPTH IPs, zero after the last. */
	__u64 buf[SS_MAX_STACK_DEPTH] = { 0 };
	int n = 0;

	if (id < 0 || bpf_map_lookup_elem(fd, &id, buf))
		return 0;
	while (n < max && n < SS_MAX_STACK_DEPTH && buf[n]) {
		ips[n] = buf[n];
		n++;
	}
	return n;
}

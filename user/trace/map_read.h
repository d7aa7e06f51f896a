/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the maps that both BPF objects share the shape of
 * (bpf/shared_maps.bpf.h): per-CPU arrays of __u64 counters, summed over
 * the CPUs, and user stacks out of a stack map. Used by the tracer and the
 * sampler alike.
 */
#ifndef SPINSCOPE_MAP_READ_H
#define SPINSCOPE_MAP_READ_H

#include <linux/types.h>

/* sums[k] = slot k of the BPF_MAP_TYPE_PERCPU_ARRAY of __u64 at fd, summed
 * over every possible CPU, for k < nkeys. 0, or -errno. */
int map_sum_percpu(int fd, __u32 nkeys, __u64 *sums);

/* Copies stack id's IPs, innermost first, into ips (at most max, and at
 * most SS_MAX_STACK_DEPTH); returns how many. 0 when id < 0 or the stack is
 * not in the map (it was never stored, or it was overwritten). */
int map_read_stack(int fd, __s32 id, __u64 *ips, int max);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile's maps, one definition for trace.bpf.c (which owns them:
 * user space sizes them from --max-threads/--max-futexes/--max-stacks
 * before load) and light.bpf.c (which is handed trace's maps with
 * bpf_map__reuse_fd, so the sizes here are only defaults). Include after
 * trace.h.
 */
#ifndef SPINSCOPE_PROFILE_MAPS_BPF_H
#define SPINSCOPE_PROFILE_MAPS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ss_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct ss_futex);
} futexes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct ss_waiter_key);
	__type(value, struct ss_waiter_val);
} waiters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __s32);
	__type(value, __u64);
} yield_sites SEC(".maps");

/* A futex word's record, created on first use; a full map is a counted
 * drop. Needs maps.bpf.h and shared_maps.bpf.h first. */
static const struct ss_futex ss_zero_futex;

static __always_inline struct ss_futex *ss_futex_get(__u64 uaddr)
{
	struct ss_futex *f = bpf_map_lookup_or_try_init(&futexes, &uaddr, &ss_zero_futex);

	if (!f)
		count_drop(SS_DROP_FUTEXES_FULL);
	return f;
}

#endif

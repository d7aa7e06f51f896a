/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Map helpers every spinscope BPF program uses, in the style of
 * libbpf-tools' maps.bpf.h: the one lookup-or-create of a hash map entry,
 * and the bumps of a per-CPU array of __u64 counters. Include after
 * bpf_helpers.h.
 */
#ifndef SPINSCOPE_MAPS_BPF_H
#define SPINSCOPE_MAPS_BPF_H

#ifndef EEXIST
#define EEXIST 17
#endif

/*
 * The entry of key, created from init when missing. NULL only when the map
 * is full (the caller counts that as a drop). BPF_NOEXIST: when another CPU
 * creates the same key in between, both end up with its one entry.
 *
 * err is an int, not the helper's long (as in libbpf-tools' maps.bpf.h):
 * before Linux 6.5 the verifier turns the helper into a direct call of the
 * map's update function, which returned int, so -EEXIST reaches the
 * program zero-extended (0x00000000ffffffef) and a long never equals it.
 * Two CPUs creating one key at once then made the loser count a drop (the
 * kernel matrix's 5.10 and 6.1 guests: yield_sites_map_full, stack_failed).
 */
static __always_inline void *bpf_map_lookup_or_try_init(void *map, const void *key,
							const void *init)
{
	void *val = bpf_map_lookup_elem(map, key);
	int err;

	if (val)
		return val;
	err = (int)bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -EEXIST)
		return NULL;
	return bpf_map_lookup_elem(map, key);
}

/* Adds n to slot idx of a BPF_MAP_TYPE_PERCPU_ARRAY of __u64. */
static __always_inline void percpu_add(void *map, __u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(map, &idx);

	if (c)
		*c += n;
}

/* Adds one to slot idx of a BPF_MAP_TYPE_PERCPU_ARRAY of __u64. */
static __always_inline void percpu_inc(void *map, __u32 idx)
{
	percpu_add(map, idx, 1);
}

#endif

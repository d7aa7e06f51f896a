/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A target thread's exit (sched_process_exit): its counters are folded
 * into the exited map's record of its name (thread_exit.h) and its record
 * in the threads map or its slot is freed, so that any number of threads
 * may come and go over any trace length with exact totals (user space adds
 * the exited map to the totals, tracer.c). The record's batches waiting
 * for other maps (yields, waits, wakes) must have gone there first: the
 * caller's (trace.bpf.c, whose exit program also runs under --light).
 * Include after profile_maps.bpf.h and sched_account.bpf.h.
 */
#ifndef SPINSCOPE_THREAD_EXIT_BPF_H
#define SPINSCOPE_THREAD_EXIT_BPF_H

#include "thread_exit.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, SS_EXITED_NAMES);
	__type(key, struct ss_exited_key);
	__type(value, struct ss_exited);
} exited SEC(".maps");

static const struct ss_exited ss_zero_exited;

/* Threads folded so far: user space moves the exited threads' waiter and
 * release entries out of their maps when it changes (exited_sites.c). */
__u64 threads_folded = 0;

/*
 * This CPU's record of the threads named as the current one; where the
 * names are all taken, the empty name's (made by user space before
 * attach), counted. The name is read straight into the zeroed key: 6.1's
 * bpf_get_current_comm() is a strscpy() that leaves the bytes after the
 * NUL as they were (5.10's strncpy and 6.12's strscpy_pad zero them), so a
 * name read into an uninitialised buffer made a key with a stack-garbage
 * tail, a new key per exit, which user space took for one name (the
 * kernel matrix's 6.1 guests kept one thread's counts in four).
 */
static __always_inline struct ss_exited *exited_group(void)
{
	struct ss_exited_key k = {};
	struct ss_exited *x;

	bpf_get_current_comm(k.comm, sizeof(k.comm));
	x = bpf_map_lookup_or_try_init(&exited, &k, &ss_zero_exited);
	if (x)
		return x;
	count_drop(SS_DROP_EXITED_NAMES_FULL);
	__builtin_memset(k.comm, 0, sizeof(k.comm));
	return bpf_map_lookup_elem(&exited, &k);
}

/* dst += src over the thread counter list: sums add, maxima keep the larger. */
#define SS_FOLD_SUM(d, s) ((d) += (s))
#define SS_FOLD_MAX(d, s) ((d) = (d) > (s) ? (d) : (s))
#define SS_FOLD_C(name, kind, unit, json) SS_FOLD_##kind(x->name, t->name);
#define SS_FOLD_A(name, slots, kind, unit, json)				\
	for (int i = 0; i < (slots); i++)					\
		SS_FOLD_##kind(x->name[i], t->name[i]);

/*
 * The exiting thread tid (current, on its CPU since its last switch in)
 * with record t: its time closed at now, its counters folded into its
 * name's record, its record freed. false where no record of the name
 * could be had (the caller keeps the thread's record then).
 */
static __always_inline bool ss_thread_fold(struct ss_thread *t, __u32 tid, __u64 now)
{
	__u32 slot = tid % SS_THREAD_SLOTS;
	struct ss_thread *s;
	struct ss_exited *x;

	x = exited_group();
	if (!x)
		return false;
	add_oncpu_since_in(t, now);
	/* Its last switch out finds no record (thread_get() makes none for
	 * an exiting task): it leaves the running count here. */
	ss_conc_change(t, false, now);
	x->threads++;
	__sync_fetch_and_add(&threads_folded, 1);
	SS_THREAD_COUNTERS(SS_FOLD_C, SS_FOLD_A)
	/* A slot is freed by clearing its record (tid 0) before its owner:
	 * in between, a thread_get() for another tid finds the owner still
	 * there and makes that thread's record in the hash. */
	s = bpf_map_lookup_elem(&thread_slots, &slot);
	if (s && s->tid == tid) {
		bpf_map_update_elem(&thread_slots, &slot, &zero_thread, BPF_ANY);
		bpf_map_delete_elem(&thread_slot_owners, &slot);
	} else {
		bpf_map_delete_elem(&threads, &tid);
	}
	return true;
}

#endif

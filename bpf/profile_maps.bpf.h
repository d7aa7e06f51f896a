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

/*
 * Thread records by slot (tid % SS_THREAD_SLOTS, bpf/trace.h), ahead of
 * the threads hash: an array lookup is a few inlined instructions, a hash
 * lookup a call (hashing the key, walking a bucket: about 25 ns on a CPU
 * that returns from each call through an SRSO thunk), and every event
 * looks up one thread or two (docs/BENCHMARKS.md). A slot belongs for the
 * whole trace to the first tid that takes it; a tid whose slot another
 * holds has its record in the threads hash. User space seeds and reads
 * both by the same rule (tracer.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SS_THREAD_SLOTS);
	__type(key, __u32);
	__type(value, struct ss_thread);
} thread_slots SEC(".maps");

/* The tid that took each slot: a slot is taken by creating its entry here
 * (BPF_NOEXIST), which is atomic on every kernel, where a compare-and-swap
 * of the record's tid needs Linux 5.12 and BPF ISA v3. Once per thread. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SS_THREAD_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} thread_slot_owners SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct ss_futex);
} futexes SEC(".maps");

/* The target's runnable threads over time (struct ss_concurrency): one
 * record, sched_account.bpf.h's ss_conc_change() keeps it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ss_concurrency);
} concurrency SEC(".maps");

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

/* n events whose user stack walk gave id < 0 (ss_stack_collided()). */
static __always_inline void count_stack_drops(__s32 id, __u64 n)
{
	count_drops(ss_stack_collided(id) ? SS_DROP_STACK_COLLISION : SS_DROP_STACK_FAIL, n);
}

/* tid's record, NULL where it has none yet: its slot's, else the hash's
 * (a slot whose record shows no tid may have been taken by another tid
 * that is writing it, thread_get(): the hash is asked then too). */
static __always_inline struct ss_thread *ss_thread_find(__u32 tid)
{
	__u32 slot = tid % SS_THREAD_SLOTS;
	struct ss_thread *t = bpf_map_lookup_elem(&thread_slots, &slot);

	if (t && t->tid == tid)
		return t;
	return bpf_map_lookup_elem(&threads, &tid);
}

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

/*
 * Thread tid's pending waits (struct ss_word_pending) into their word's
 * record, made when the word became the pending one. A global function:
 * the verifier checks it once, apart from its callers' paths; inlined in
 * every futex exit, its 37 conditional adds multiplied those programs'
 * verification, 15 -> 56 ms for the futex exit (spinscope's attach time,
 * docs/BENCHMARKS.md). It takes the tid and finds the record again: a
 * global function's pointer arguments need Linux 5.12. It runs only when
 * a thread's word changes, after its caller saw pending waits.
 */
__noinline int ss_word_flush_waits(__u32 tid)
{
	struct ss_thread *t = ss_thread_find(tid);
	struct ss_word_pending *wp;
	struct ss_futex *f;

	if (!t)
		return 0;
	wp = &t->word_pending;
	f = bpf_map_lookup_elem(&futexes, &wp->wait_uaddr);
	if (f) {
		__sync_fetch_and_add(&f->waits, wp->waits);
		if (wp->wait_blocked) {
			__sync_fetch_and_add(&f->blocked, wp->wait_blocked);
			__sync_fetch_and_add(&f->wait_ns, wp->wait_ns);
		}
		if (wp->wait_at_once) {
			__sync_fetch_and_add(&f->returned_at_once, wp->wait_at_once);
			__sync_fetch_and_add(&f->at_once_ns, wp->wait_at_once_ns);
		}
		if (wp->wait_bitset)
			__sync_fetch_and_add(&f->bitset_waits, wp->wait_bitset);
		if (wp->reblocked)
			__sync_fetch_and_add(&f->reblocked, wp->reblocked);
		for (int i = 0; i < SS_FUTEX_OUTCOMES; i++)
			if (wp->wait_outcome[i])
				__sync_fetch_and_add(&f->outcome[i], wp->wait_outcome[i]);
		for (int i = 0; i < SS_HIST_SLOTS; i++)
			if (wp->wait_hist[i])
				__sync_fetch_and_add(&f->hist[i], wp->wait_hist[i]);
	} else {
		count_drops(SS_DROP_FUTEXES_FULL, wp->waits);
	}
	wp->waits = 0;
	wp->wait_blocked = 0;
	wp->wait_ns = 0;
	wp->wait_at_once = 0;
	wp->wait_at_once_ns = 0;
	wp->wait_bitset = 0;
	wp->reblocked = 0;
	__builtin_memset(wp->wait_outcome, 0, sizeof(wp->wait_outcome));
	__builtin_memset(wp->wait_hist, 0, sizeof(wp->wait_hist));
	return 0;
}

/* --light's pending wakes (each woke one waiter) into their word's
 * record; also at the thread's exit (thread_exit.bpf.h). */
static __always_inline void ss_word_flush_wakes(struct ss_word_pending *wp)
{
	struct ss_futex *f;

	if (!wp->wakes)
		return;
	f = bpf_map_lookup_elem(&futexes, &wp->wake_uaddr);
	if (f) {
		__sync_fetch_and_add(&f->wakes, wp->wakes);
		__sync_fetch_and_add(&f->woken, wp->wakes);
	} else {
		count_drops(SS_DROP_FUTEXES_FULL, wp->wakes);
	}
	wp->wakes = 0;
}

/* Thread t's (tid's) pending waits, ready for one more on uaddr: moved to their
 * word first if that was another (or word 0, never kept pending); NULL
 * where uaddr has no record (the futexes map is full: counted). */
static __always_inline struct ss_word_pending *ss_word_wait(struct ss_thread *t, __u32 tid,
							     __u64 uaddr)
{
	struct ss_word_pending *wp = &t->word_pending;

	if (wp->wait_uaddr != uaddr || !uaddr) {
		if (wp->waits)
			ss_word_flush_waits(tid);
		if (!ss_futex_get(uaddr))
			return NULL;
		wp->wait_uaddr = uaddr;
	}
	return wp;
}

/*
 * The thread's pending waiter record (struct ss_thread's wait_pending)
 * goes into waiters[word, stack, tid]: once per change of the thread's
 * word or waiter stack. Only the key's thread writes it, so plain adds
 * are exact. A full map drops the pending waits (counted as such, and
 * their longest kept on the word's record, as user space reads it).
 */
static const struct ss_waiter_val ss_zero_waiter;

static __always_inline void ss_waiter_flush(struct ss_thread *t, __u32 tid)
{
	struct ss_waiter_key wk = { .uaddr = t->wait_pending_uaddr,
				    .stack_id = t->wait_pending_stack, .tid = tid };
	struct ss_waiter_val *p = &t->wait_pending, *wv;
	struct ss_futex *f;

	if (!p->count)
		return;
	wv = bpf_map_lookup_or_try_init(&waiters, &wk, &ss_zero_waiter);
	if (wv) {
		wv->count += p->count;
		wv->wait_ns += p->wait_ns;
		wv->at_once += p->at_once;
		if (p->wait_ns_max > wv->wait_ns_max)
			wv->wait_ns_max = p->wait_ns_max;
	} else {
		count_drops(SS_DROP_WAITERS_FULL, p->count);
		/* Racy but rare (and counted): only a wait ending at the
		 * same instant on another thread can be lost. */
		f = bpf_map_lookup_elem(&futexes, &wk.uaddr);
		if (f && p->wait_ns_max > f->wait_ns_max)
			f->wait_ns_max = p->wait_ns_max;
	}
	__builtin_memset(p, 0, sizeof(*p));
}

/*
 * A wait of thread t (tid) on in's word from in's stack ended, after dur
 * ns if it blocked, or at once: added to the thread's pending waiter
 * record, which goes into the waiters map only when the word or stack
 * changes (stacks are taken once per interval: at most that often). User
 * space adds what is still pending when it reads the maps (tracer.c).
 */
static __always_inline void ss_waiter_add(struct ss_thread *t, __u32 tid,
					  const struct ss_inflight *in, __u64 dur, bool blocked,
					  bool at_once)
{
	struct ss_waiter_val *p = &t->wait_pending;

	if (t->wait_pending_uaddr != in->uaddr || t->wait_pending_stack != in->stack_id) {
		ss_waiter_flush(t, tid);
		t->wait_pending_uaddr = in->uaddr;
		t->wait_pending_stack = in->stack_id;
	}
	p->count++;
	if (blocked) {
		p->wait_ns += dur;
		if (dur > p->wait_ns_max)
			p->wait_ns_max = dur;
	} else if (at_once) {
		p->at_once++;
	}
}

#endif

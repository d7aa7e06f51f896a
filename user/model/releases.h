/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who holds a contended lock: a futex word's release records (struct
 * ss_release_rec, one per waker stack and thread) summed by release site
 * (stack) and by holder (thread), and whether the word is used as a lock
 * at all, so that a condition variable's signallers are not called its
 * holders. Plain C over the model, for the renderers and the advice bridge.
 */
#ifndef SPINSCOPE_RELEASES_H
#define SPINSCOPE_RELEASES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "profile.h"

/* One release site: a stack's records summed over its threads. */
struct ss_release_site {
	__s32 stack_id;
	__u32 threads;			/* distinct threads that released here */
	struct ss_release_val v;
};

/* One holder: a thread's releases of the word that found waiters. */
struct ss_holder {
	__u32 tid;
	__u64 releases;			/* wakes that found waiters */
	__u64 woken;
	__u64 held_contended_ns;	/* its held-while-contended lower bounds */
	bool also_waits;		/* it waited on the word too (a convoy) */
};

/*
 * Whether r is used as a lock, so that its wakers are its holders: when
 * at least a fifth of its wakes that found waiters were made by threads that
 * also waited on it (they hand it on), whatever call they wait with (a
 * pthread rwlock's waits are FUTEX_WAIT_BITSET); else as follows. A lock
 * has at least two threads that wait to take it (one waiter has nothing
 * to contend with, as the advisor's ADV_FUTEX_MIN_WAITERS). glibc waits
 * for a mutex with FUTEX_WAIT and for an event (condition variable,
 * semaphore, join) with FUTEX_WAIT_BITSET; an event is signalled by
 * threads that do not wait on it, where a lock is released by the threads
 * that waited to take it (holder_wakes, bpf/trace.h). So a word most of
 * whose waits are BITSET is a lock only when at least a quarter of its
 * blocked waits were followed by a wake from the same thread (as the
 * advisor's ADV_LOCK_WAKE_SHARE; other runtimes' mutexes wait with BITSET
 * too); its other wakers are signallers, not holders.
 */
bool releases_word_is_lock(const struct ss_futex_rec *r);

/* A site's usual hold: the lower quartile of its held-while-contended
 * bounds (the middle of that log2 slot); 0 when none was measured. A
 * holder preempted under the lock stretches its hold, never shortens it,
 * and a stretched hold is the likeliest to have a waiter arrive and be
 * measured, so on a loaded host the upper part of the distribution is the
 * scheduler's; the lower quartile is the section's own length. */
double releases_usual_held_ns(const struct ss_release_val *v);

/* r's release sites, the one that kept the lock held longest while others
 * waited first: by usual hold times holds measured, so that holds
 * stretched by preemption do not outweigh a section that is long every
 * time (then by wakes). *out is NULL when there are none. Returns how
 * many, or -ENOMEM. */
long releases_sites(const struct ss_futex_rec *r, struct ss_release_site **out);

/* r's holders, most releases first. Returns how many, or -ENOMEM. */
long releases_holders(const struct ss_futex_rec *r, struct ss_holder **out);

/* Wakes of r that found waiters, summed over its records. */
__u64 releases_wakes(const struct ss_futex_rec *r);

#endif

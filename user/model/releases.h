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
 * glibc waits for a lock with FUTEX_WAIT and for an event (condition
 * variable, semaphore, join) with FUTEX_WAIT_BITSET. A word most of whose
 * waits are BITSET and whose wakes seldom come from a thread that had
 * waited on it is signalled, not held: its wakers are not holders.
 */
bool releases_word_is_lock(const struct ss_futex_rec *r);

/* r's release sites, most time held while contended first (then most
 * wakes). *out is NULL when there are none. Returns how many, or -ENOMEM. */
long releases_sites(const struct ss_futex_rec *r, struct ss_release_site **out);

/* r's holders, most releases first. Returns how many, or -ENOMEM. */
long releases_holders(const struct ss_futex_rec *r, struct ss_holder **out);

/* Wakes of r that found waiters, summed over its records. */
__u64 releases_wakes(const struct ss_futex_rec *r);

#endif

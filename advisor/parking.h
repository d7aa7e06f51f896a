/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks whose waiters park each on a word of its own: a JVM's
 * java.util.concurrent locks (each thread's Parker), Go's sync.Mutex (a
 * goroutine parks, and its thread sleeps on its own note), queued locks
 * (MCS). No one word has two waiters, so no one word looks handed on; the
 * words waited on from one place, each by one thread and woken by the
 * threads that wait there too, are handed on together: one lock, by
 * behaviour. The place (the waiters' stack as named: the user's frame and
 * the runtime's) only groups them.
 */
#ifndef SPINSCOPE_ADV_PARKING_H
#define SPINSCOPE_ADV_PARKING_H

#include <stdbool.h>
#include "advisor.h"

struct adv_parking {
	const struct adv_futex *word;	/* its words' longest waited on: names it */
	uint32_t words;			/* single-waiter words waited on there */
	uint32_t threads;		/* their waiters, one each */
	double wait_ns;			/* their blocked waits' time, summed */
	/* their time on a CPU at the place they park from, taking it
	 * without parking (struct adv_futex's acquire_samples of their
	 * samples, times their time on a CPU): 0 unsampled */
	double acquire_ns;
	double acquire_samples;		/* those samples */
	double blocked;			/* their blocked waits */
	double wakes;			/* wakes that found a waiter */
	double by_waiters;		/* of them, made by the group's own waiters */
};

/* The group of single-waiter words handed on among their own waiters
 * (ADV_LOCK_WAKER_SHARE of its wakes or more, ADV_FUTEX_MIN_WAITERS
 * threads or more) with the most blocked time. false when none is. */
bool adv_parking_lock(const struct adv_profile *p, struct adv_parking *out);

#endif

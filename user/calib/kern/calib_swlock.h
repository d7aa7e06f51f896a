/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock kernel behind the spin_threshold calibration family: one lock
 * word with five acquire strategies (how long to spin before yielding or
 * parking), and a bench that runs a pinned team of threads on it and can
 * stop them all at a safe point, timing how long that takes (the analogue
 * of a JVM's time to safepoint). Kept apart from the family's JSON so that
 * the tests can prove mutual exclusion and the stop-all protocol without
 * timing anything, and the AArch64 driver can build it without json-c.
 */
#ifndef SPINSCOPE_CALIB_SWLOCK_H
#define SPINSCOPE_CALIB_SWLOCK_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

enum swlock_strategy {
	SWLOCK_SPIN,			/* spin with the CPU's hint until free */
	SWLOCK_SPIN_THEN_YIELD,		/* N spins, then a sched_yield loop */
	SWLOCK_SPIN_YIELD_REPEAT,	/* (N spins + sched_yield) repeated */
	SWLOCK_SPIN_THEN_PARK,		/* N spins, then futex park (waiter bit) */
	SWLOCK_PTHREAD_MUTEX,		/* plain pthread_mutex_lock */
	SWLOCK__COUNT
};

/* A spin-wait lock: a futex word (0 free, 1 held, 2 held with parked
 * waiters) used by every strategy but the pthread one. */
struct swlock {
	_Alignas(64) _Atomic uint32_t word;
	enum swlock_strategy strategy;
	uint32_t spins;			/* N: failed tries before yield/park */
	pthread_mutex_t mutex;
};

void swlock__init(struct swlock *l, enum swlock_strategy s, uint32_t spins);
void swlock__acquire(struct swlock *l);
void swlock__release(struct swlock *l);
void swlock__destroy(struct swlock *l);

/* "spin", "spin_then_yield", ...: the JSON names. */
const char *swlock_strategy__name(enum swlock_strategy s);
/* Whether N (spins) means anything for this strategy. */
bool swlock_strategy__has_spins(enum swlock_strategy s);
/* Words a person reads: "spin 31 (0x1F) then futex park". */
void swlock_strategy__describe(enum swlock_strategy s, uint32_t spins, char *buf, size_t size);
/* The same for a range of counts: "spin 0-31 (0x1F) then yield loop". */
void swlock_strategy__describe_range(enum swlock_strategy s, uint32_t lo, uint32_t hi,
				     char *buf, size_t size);

/* Acquisition latency histogram: log-linear buckets, 8 per power of two
 * (about 12% resolution), exact maximum. */
#define SWHIST_BUCKETS 512
struct swhist {
	uint64_t count;
	uint64_t max;
	uint32_t bucket[SWHIST_BUCKETS];
};
void swhist__add(struct swhist *h, uint64_t ns);
void swhist__merge(struct swhist *into, const struct swhist *from);
/* The value below which a fraction q (0..1) of the samples lie. */
uint64_t swhist__quantile(const struct swhist *h, double q);

/* spin_threshold's work inside and between critical sections, in units of
 * burn() (a few ns each): a short section and a little more work outside,
 * so that light contention hands the lock over often but not on every
 * instruction. bench/cpu_distance.c runs the same. */
#define SWBENCH_CS_WORK		20
#define SWBENCH_OUTSIDE_WORK	60

struct swbench_cfg {
	int nthreads;
	cpu_set_t cpus;			/* threads are pinned round-robin here */
	uint32_t cs_work;		/* work units inside the critical section */
	uint32_t outside_work;		/* work units between acquisitions */
};

/* What one run measured, read while every thread stood at its safe point. */
struct swbench_sample {
	uint64_t run_ns;		/* release to stop request, summed */
	uint64_t stop_all_ns;		/* stop request to last ack: median */
	uint64_t stop_all_max_ns;	/* ... and the slowest of the stops */
	int stops;			/* stop-all cycles in the run */
	uint64_t total_acq;
	uint64_t min_acq, max_acq;	/* per thread: fairness */
	uint64_t counter;		/* non-atomic counter the lock protects */
	uint64_t violations;		/* a second owner seen in the section */
	uint32_t acks;			/* threads that acknowledged the stop */
	struct swhist lat;		/* acquisition latency, all threads */
};

struct swbench;

/* Creates the team; the threads wait, parked, for the first run. */
int swbench__create(struct swbench **out, const struct swbench_cfg *cfg);
/* Changes the strategy; only between runs (all threads parked). */
void swbench__set_lock(struct swbench *b, enum swlock_strategy s, uint32_t spins);
/* Releases the team and stops it all at a safe point, stops times (at most
 * SWBENCH_MAX_STOPS) over run_ns, each stop timed, the statistics kept
 * across them. With iters != 0 it stops once, after every thread made
 * exactly iters acquisitions (how the tests prove exclusion). Returns 0,
 * -EINVAL, or -ETIMEDOUT when the team did not stop within 30 s (then
 * only swbench__destroy may follow). */
#define SWBENCH_MAX_STOPS 16
int swbench__run(struct swbench *b, uint64_t run_ns, uint64_t iters, int stops,
		 struct swbench_sample *out);
void swbench__destroy(struct swbench *b);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Memory-ordering kernels: the cost of a store or CAS at each ordering,
 * alone on a line and with threads sharing the line. Each op gets its own
 * loop so the compiler emits exactly that instruction sequence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calib_kern.h"
#include "calib_util.h"

static const char *const mo_names[CALIB_MO__COUNT] = {
	[CALIB_MO_STORE_RELAXED] = "store_relaxed",
	[CALIB_MO_STORE_RELEASE] = "store_release",
	[CALIB_MO_STORE_SEQ_CST] = "store_seq_cst",
	[CALIB_MO_STORE_FENCE] = "store_fence",
	[CALIB_MO_CAS_SEQ_CST] = "cas_seq_cst",
	[CALIB_MO_CAS_ACQ_REL] = "cas_acq_rel",
	[CALIB_MO_CAS_RELEASE] = "cas_release",
	[CALIB_MO_CAS_RELAXED] = "cas_relaxed",
};

const char *calib_mo__name(enum calib_mo_op op)
{
	return op < CALIB_MO__COUNT ? mo_names[op] : "?";
}

bool calib_mo__is_cas(enum calib_mo_op op)
{
	return op >= CALIB_MO_CAS_SEQ_CST && op < CALIB_MO__COUNT;
}

/* n successful CAS increments of *w; returns the failed attempts. */
#define CAS_LOOP(w, n, succ, fail) ({					\
		uint64_t fails_ = 0, seen_ = __atomic_load_n(w, __ATOMIC_RELAXED); \
		for (uint64_t i_ = 0; i_ < (n);) {			\
			if (__atomic_compare_exchange_n(w, &seen_, seen_ + 1, false, \
							succ, fail)) {	\
				seen_++;				\
				i_++;					\
			} else {					\
				fails_++;				\
			}						\
		}							\
		fails_;							\
	})

/* Runs n ops of kind op on *w; returns failed CAS attempts (0 for stores). */
static uint64_t mo_ops(enum calib_mo_op op, uint64_t *w, uint64_t n)
{
	switch (op) {
	case CALIB_MO_STORE_RELAXED:
		for (uint64_t i = 1; i <= n; i++)
			__atomic_store_n(w, i, __ATOMIC_RELAXED);
		return 0;
	case CALIB_MO_STORE_RELEASE:
		for (uint64_t i = 1; i <= n; i++)
			__atomic_store_n(w, i, __ATOMIC_RELEASE);
		return 0;
	case CALIB_MO_STORE_SEQ_CST:
		for (uint64_t i = 1; i <= n; i++)
			__atomic_store_n(w, i, __ATOMIC_SEQ_CST);
		return 0;
	case CALIB_MO_STORE_FENCE:
		for (uint64_t i = 1; i <= n; i++) {
			__atomic_store_n(w, i, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		}
		return 0;
	case CALIB_MO_CAS_SEQ_CST:
		return CAS_LOOP(w, n, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	case CALIB_MO_CAS_ACQ_REL:
		return CAS_LOOP(w, n, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	case CALIB_MO_CAS_RELEASE:
		return CAS_LOOP(w, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	case CALIB_MO_CAS_RELAXED:
		return CAS_LOOP(w, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	default:
		return 0;
	}
}

struct mo_line {
	uint64_t word __attribute__((aligned(128)));
	char pad[120];
};

double calib_mo__uncontended(enum calib_mo_op op, uint64_t n, uint64_t *final)
{
	static __thread struct mo_line line;
	uint64_t t0;

	line.word = 0;
	t0 = calib__now_ns();
	mo_ops(op, &line.word, n);
	t0 = calib__now_ns() - t0;
	if (final)
		*final = line.word;
	return n ? (double)t0 / (double)n : 0;
}

struct mo_arg {
	struct mo_line line;
	enum calib_mo_op op;
	uint64_t n;
	uint64_t failures;	/* summed atomically by the threads */
};

static void mo_thread(int idx, void *p)
{
	struct mo_arg *a = p;
	uint64_t fails = mo_ops(a->op, &a->line.word, a->n);

	__atomic_fetch_add(&a->failures, fails, __ATOMIC_RELAXED);
}

int calib_mo__contended(const cpu_set_t *cpus, int nthreads, enum calib_mo_op op,
			uint64_t n, struct calib_mo_result *out)
{
	struct calib_team_result team;
	struct mo_arg *a;
	double sum = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (nthreads <= 0 || op >= CALIB_MO__COUNT)
		return -EINVAL;
	a = aligned_alloc(128, sizeof(*a));
	if (!a)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	a->op = op;
	a->n = n;
	err = calib_team__run(cpus, nthreads, mo_thread, a, &team);
	if (!err) {
		for (int i = 0; i < nthreads; i++)
			sum += (double)(team.members[i].end_ns - team.members[i].start_ns) /
			       (double)(n ? n : 1);
		out->ns_per_op = sum / nthreads;
		out->final = a->line.word;
		out->cas_failures = a->failures;
		out->overlap = team.overlap;
		calib_team__free(&team);
	}
	free(a);
	return err;
}

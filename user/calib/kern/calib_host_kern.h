/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels of the host_costs family, in plain C (no json-c, no libbpf)
 * so that the AArch64 driver builds them too: futex wake-to-running
 * handoff, sched_yield with and without a runnable peer, and the
 * cache-line round trip between two CPUs. Each returns what it counted so
 * that tests check the books without asserting a time.
 */
#ifndef SPINSCOPE_CALIB_HOST_KERN_H
#define SPINSCOPE_CALIB_HOST_KERN_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

/* --- futex handoff ---------------------------------------------------------- */

struct calib_hc_handoff {
	double median_ns;	/* waker's stamp before FUTEX_WAKE -> wakee running */
	double p90_ns;
	int valid;		/* handoffs where the wakee had really slept */
	int raced;		/* the wakee saw the word before it slept: dropped */
	int cpu_waker, cpu_wakee;
};

/* Two threads ping-pong through two futex words for rounds round trips,
 * each timing the handoff to the other (both directions count). With
 * same_cpu both run on cpu_a; else on cpu_a and cpu_b. Returns 0, -EINVAL,
 * -errno from thread creation, or -EAGAIN when no handoff slept at all. */
int calib_hc__futex_handoff(int cpu_a, int cpu_b, bool same_cpu, int rounds,
			    struct calib_hc_handoff *out);

/* --- sched_yield -------------------------------------------------------------- */

struct calib_hc_yield {
	double ns_per_yield;	/* wall time / all yields made */
	double switches_per_yield; /* context switches (rusage) per yield */
	uint64_t yields;	/* calls made, all threads */
};

/* n sched_yield calls per thread on one CPU, alone or with a second thread
 * pinned to the same CPU doing the same (then each yield can hand the CPU
 * over), or fewer when CALIB_HC_YIELD_MAX_NS is up first (a loaded host
 * can make each call a time slice): out->yields says how many. Returns 0
 * or -errno. */
#define CALIB_HC_YIELD_MAX_NS 200000000ULL
int calib_hc__yield(int cpu, bool with_peer, uint64_t n, struct calib_hc_yield *out);

/* --- core-to-core cache-line round trip --------------------------------------- */

/* Two threads on cpu_a and cpu_b take turns advancing one counter with CAS
 * (a even->odd, b odd->even), round_trips times each; *ns gets the time per
 * round trip (two line transfers). *final gets the counter, which must be
 * 2 * round_trips. Returns 0 or -errno. */
int calib_hc__c2c(int cpu_a, int cpu_b, uint64_t round_trips, double *ns, uint64_t *final);

struct calib_hc_pair {
	int a, b;
};

/* The CPU pairs to measure among the allowed cpus, most telling first:
 * the first CPU against each other one, then neighbours (i, i+1), then
 * pairs further apart; every pair once (a < b), cut at max_pairs and cap.
 * Returns how many were written to out. */
int calib_hc__pairs(const cpu_set_t *cpus, int max_pairs, struct calib_hc_pair *out, int cap);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The host_costs kernels (calib_host_kern.h): futex handoff ping-pong,
 * sched_yield loops and the CAS ping-pong between two CPUs, each run on
 * calib_team__run's pinned threads.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "common/sort.h"
#include "calib_host_kern.h"
#include "calib_util.h"

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* --- futex handoff -------------------------------------------------------------- */

struct handoff_side {
	_Alignas(64) _Atomic uint32_t word;	/* 1: your turn; futex */
	_Atomic uint64_t stamp;			/* peer's clock before its wake */
	double *samples;
	int valid, raced;
};

struct handoff {
	struct handoff_side side[2];
	int rounds;
};

/* Sleeps until the peer hands over; records the handoff if this thread
 * really slept in the kernel (a FUTEX_WAIT that returned 0 right before it
 * saw the word set), else counts a race: no sleep, no handoff to time. */
static void handoff_wait(struct handoff_side *me)
{
	bool slept = false;
	uint64_t now;

	while (!atomic_load_explicit(&me->word, memory_order_acquire))
		slept = futex(&me->word, FUTEX_WAIT_PRIVATE, 0) == 0;
	now = calib__now_ns();
	atomic_store_explicit(&me->word, 0, memory_order_relaxed);
	if (slept)
		me->samples[me->valid++] = (double)(now - atomic_load(&me->stamp));
	else
		me->raced++;
}

static void handoff_give(struct handoff_side *peer)
{
	atomic_store(&peer->stamp, calib__now_ns());
	atomic_store_explicit(&peer->word, 1, memory_order_release);
	futex(&peer->word, FUTEX_WAKE_PRIVATE, 1);
}

static void handoff_member(int idx, void *arg)
{
	struct handoff *h = arg;
	struct handoff_side *me = &h->side[idx], *peer = &h->side[!idx];

	if (idx == 0) {
		/* Let the peer fall asleep before the first handoff. */
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
	for (int r = 0; r < h->rounds; r++) {
		if (idx == 0) {
			handoff_give(peer);
			handoff_wait(me);
		} else {
			handoff_wait(me);
			handoff_give(peer);
		}
	}
}

int calib_hc__futex_handoff(int cpu_a, int cpu_b, bool same_cpu, int rounds,
			    struct calib_hc_handoff *out)
{
	struct calib_team_result res;
	struct handoff *h;
	cpu_set_t set;
	double *all;
	int err, n;

	memset(out, 0, sizeof(*out));
	if (rounds < 1 || cpu_a < 0 || cpu_a >= CPU_SETSIZE ||
	    (!same_cpu && (cpu_b < 0 || cpu_b >= CPU_SETSIZE || cpu_b == cpu_a)))
		return -EINVAL;
	h = aligned_alloc(64, sizeof(*h));
	all = malloc(sizeof(double) * 2 * (size_t)rounds);
	if (!h || !all) {
		free(h);
		free(all);
		return -ENOMEM;
	}
	memset(h, 0, sizeof(*h));
	h->rounds = rounds;
	h->side[0].samples = all;
	h->side[1].samples = all + rounds;
	CPU_ZERO(&set);
	CPU_SET(cpu_a, &set);
	if (!same_cpu)
		CPU_SET(cpu_b, &set);
	err = calib_team__run(&set, 2, handoff_member, h, &res);
	if (!err) {
		out->cpu_waker = res.members[0].cpu;
		out->cpu_wakee = res.members[1].cpu;
		calib_team__free(&res);
		/* Pack both directions' samples together. */
		memmove(all + h->side[0].valid, h->side[1].samples,
			sizeof(double) * (size_t)h->side[1].valid);
		n = h->side[0].valid + h->side[1].valid;
		out->valid = n;
		out->raced = h->side[0].raced + h->side[1].raced;
		if (!n) {
			err = -EAGAIN;
		} else {
			ss_sort(all, (size_t)n, sizeof(double), cmp_double);
			out->median_ns = all[n / 2];
			out->p90_ns = all[(n * 9) / 10];
		}
	}
	free(h);
	free(all);
	return err;
}

/* --- sched_yield ---------------------------------------------------------------- */

struct yield_run {
	uint64_t n;
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC: stop here even short of n */
	_Atomic uint64_t switches;
	_Atomic uint64_t calls;
};

static uint64_t my_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
}

static void yield_member(int idx, void *arg)
{
	struct yield_run *y = arg;
	uint64_t before = my_switches(), i;

	/* With another task runnable here each call can cost a whole time
	 * slice: the clock is checked every 16 calls. */
	for (i = 0; i < y->n; i++) {
		if (!(i & 15) && i && calib__now_ns() > y->deadline_ns)
			break;
		sched_yield();
	}
	atomic_fetch_add(&y->calls, i);
	atomic_fetch_add(&y->switches, my_switches() - before);
}

int calib_hc__yield(int cpu, bool with_peer, uint64_t n, struct calib_hc_yield *out)
{
	struct yield_run y = { .n = n, .deadline_ns = calib__now_ns() + CALIB_HC_YIELD_MAX_NS };
	struct calib_team_result res;
	int threads = with_peer ? 2 : 1, err;
	cpu_set_t set;

	memset(out, 0, sizeof(*out));
	if (!n || cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = calib_team__run(&set, threads, yield_member, &y, &res);
	if (err)
		return err;
	out->yields = atomic_load(&y.calls) ? atomic_load(&y.calls) : 1;
	out->ns_per_yield = (double)res.wall_ns / (double)out->yields;
	out->switches_per_yield = (double)atomic_load(&y.switches) / (double)out->yields;
	calib_team__free(&res);
	return 0;
}

/* --- core-to-core round trip ------------------------------------------------------ */

struct c2c_run {
	_Alignas(64) _Atomic uint64_t line;
	_Alignas(64) uint64_t round_trips;
	uint64_t t0, t1;
};

static void c2c_member(int idx, void *arg)
{
	struct c2c_run *c = arg;
	uint64_t want = (uint64_t)idx;	/* a moves even values, b odd ones */

	if (idx == 0)
		c->t0 = calib__now_ns();
	for (uint64_t i = 0; i < c->round_trips; i++, want += 2) {
		uint64_t expect = want;

		/* Plain loads until it is our turn: a hint would add its own
		 * latency to the transfer being measured. */
		while (atomic_load_explicit(&c->line, memory_order_acquire) != want)
			;
		atomic_compare_exchange_strong_explicit(&c->line, &expect, want + 1,
							memory_order_acq_rel,
							memory_order_relaxed);
	}
	if (idx == 0) {
		/* Done when b made its last move too. */
		while (atomic_load_explicit(&c->line, memory_order_acquire) != 2 * c->round_trips)
			;
		c->t1 = calib__now_ns();
	}
}

int calib_hc__c2c(int cpu_a, int cpu_b, uint64_t round_trips, double *ns, uint64_t *final)
{
	struct calib_team_result res;
	struct c2c_run *c;
	cpu_set_t set;
	int err;

	if (!round_trips || cpu_a == cpu_b || cpu_a < 0 || cpu_b < 0 ||
	    cpu_a >= CPU_SETSIZE || cpu_b >= CPU_SETSIZE)
		return -EINVAL;
	c = aligned_alloc(64, sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->round_trips = round_trips;
	CPU_ZERO(&set);
	CPU_SET(cpu_a, &set);
	CPU_SET(cpu_b, &set);
	err = calib_team__run(&set, 2, c2c_member, c, &res);
	if (!err) {
		calib_team__free(&res);
		*ns = (double)(c->t1 - c->t0) / (double)round_trips;
		*final = atomic_load(&c->line);
	}
	free(c);
	return err;
}

int calib_hc__pairs(const cpu_set_t *cpus, int max_pairs, struct calib_hc_pair *out, int cap)
{
	int c[CPU_SETSIZE], n = 0, k = 0;

	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, cpus))
			c[n++] = i;
	if (max_pairs > cap)
		max_pairs = cap;
	/* The first CPU against every other one, then distance 1, 2, ...
	 * among the rest: all pairs exactly once, most telling first. */
	for (int j = 1; j < n && k < max_pairs; j++)
		out[k++] = (struct calib_hc_pair){ c[0], c[j] };
	for (int d = 1; d < n && k < max_pairs; d++)
		for (int i = 1; i + d < n && k < max_pairs; i++)
			out[k++] = (struct calib_hc_pair){ c[i], c[i + d] };
	return k;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The lock kernel of the spin_threshold family (calib_swlock.h): a futex
 * word with five acquire strategies, and a bench of parked, pinned threads
 * that is released per run and stopped at a safe point. Free of json-c so
 * that the AArch64 driver can build it too.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "calib_swlock.h"
#include "calib_util.h"

/* ---- the lock ------------------------------------------------------------ */

static inline void spin_hint(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	/* ISB stalls about as long as x86's PAUSE; YIELD is a NOP on most
	 * cores (what Rust's spin_loop and the JDK's onSpinWait chose). */
	__asm__ __volatile__("isb" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

static const char *const strategy_names[SWLOCK__COUNT] = {
	[SWLOCK_SPIN] = "spin",
	[SWLOCK_SPIN_THEN_YIELD] = "spin_then_yield",
	[SWLOCK_SPIN_YIELD_REPEAT] = "spin_yield_repeat",
	[SWLOCK_SPIN_THEN_PARK] = "spin_then_park",
	[SWLOCK_PTHREAD_MUTEX] = "pthread_mutex",
};

const char *swlock_strategy__name(enum swlock_strategy s)
{
	return s < SWLOCK__COUNT ? strategy_names[s] : "?";
}

bool swlock_strategy__has_spins(enum swlock_strategy s)
{
	return s == SWLOCK_SPIN_THEN_YIELD || s == SWLOCK_SPIN_YIELD_REPEAT ||
	       s == SWLOCK_SPIN_THEN_PARK;
}

/* "31 (0x1F)": a person reads the decimal; the sweep's counts are the
 * JDK's 2^k - 1 masks, written in hex there, so the hex stands beside it
 * where it differs. */
static void spins_text(uint32_t spins, char *buf, size_t size)
{
	if (spins < 10)
		snprintf(buf, size, "%u", spins);
	else
		snprintf(buf, size, "%u (0x%X)", spins, spins);
}

void swlock_strategy__describe_range(enum swlock_strategy s, uint32_t lo, uint32_t hi,
				     char *buf, size_t size)
{
	char n[64], h[32];

	spins_text(hi, h, sizeof(h));
	if (lo == hi)
		snprintf(n, sizeof(n), "%s", h);
	else
		snprintf(n, sizeof(n), "%u-%s", lo, h);
	switch (s) {
	case SWLOCK_SPIN:
		snprintf(buf, size, "pure spin");
		break;
	case SWLOCK_SPIN_THEN_YIELD:
		snprintf(buf, size, "spin %s then yield loop", n);
		break;
	case SWLOCK_SPIN_YIELD_REPEAT:
		snprintf(buf, size, "(spin %s + yield) repeated", n);
		break;
	case SWLOCK_SPIN_THEN_PARK:
		snprintf(buf, size, "spin %s then futex park", n);
		break;
	default:
		snprintf(buf, size, "pthread_mutex");
		break;
	}
}

void swlock_strategy__describe(enum swlock_strategy s, uint32_t spins, char *buf, size_t size)
{
	swlock_strategy__describe_range(s, spins, spins, buf, size);
}

void swlock__init(struct swlock *l, enum swlock_strategy s, uint32_t spins)
{
	atomic_init(&l->word, 0);
	l->strategy = s;
	l->spins = spins;
	pthread_mutex_init(&l->mutex, NULL);
}

void swlock__destroy(struct swlock *l)
{
	pthread_mutex_destroy(&l->mutex);
}

/* Test and test-and-set: read first so that waiters share the line. */
static inline bool swlock_try(struct swlock *l)
{
	uint32_t free_word = 0;

	return atomic_load_explicit(&l->word, memory_order_relaxed) == 0 &&
	       atomic_compare_exchange_strong_explicit(&l->word, &free_word, 1,
						       memory_order_acquire,
						       memory_order_relaxed);
}

/* Up to n failed tries with the hint between them. */
static inline bool swlock_spin(struct swlock *l, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (swlock_try(l))
			return true;
		spin_hint();
	}
	return false;
}

/* The futex mutex with a waiter bit ("Futexes Are Tricky", mutex 3): a
 * waiter marks the word 2 before sleeping so that only an unlock that saw
 * waiters pays for FUTEX_WAKE. */
static void swlock_park(struct swlock *l)
{
	uint32_t c = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);

	while (c != 0) {
		futex(&l->word, FUTEX_WAIT_PRIVATE, 2, NULL);
		c = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	}
}

void swlock__acquire(struct swlock *l)
{
	switch (l->strategy) {
	case SWLOCK_SPIN:
		while (!swlock_try(l))
			spin_hint();
		return;
	case SWLOCK_SPIN_THEN_YIELD:
		if (swlock_spin(l, l->spins))
			return;
		while (!swlock_try(l))
			sched_yield();
		return;
	case SWLOCK_SPIN_YIELD_REPEAT:
		while (!swlock_spin(l, l->spins) && !swlock_try(l))
			sched_yield();
		return;
	case SWLOCK_SPIN_THEN_PARK:
		if (swlock_spin(l, l->spins) || swlock_try(l))
			return;
		swlock_park(l);
		return;
	default:
		pthread_mutex_lock(&l->mutex);
		return;
	}
}

void swlock__release(struct swlock *l)
{
	switch (l->strategy) {
	case SWLOCK_SPIN_THEN_PARK:
		if (atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2)
			futex(&l->word, FUTEX_WAKE_PRIVATE, 1, NULL);
		return;
	case SWLOCK_PTHREAD_MUTEX:
		pthread_mutex_unlock(&l->mutex);
		return;
	default:
		atomic_store_explicit(&l->word, 0, memory_order_release);
		return;
	}
}

/* ---- latency histogram ---------------------------------------------------- */

/* Values below 16 have a bucket each; above, 8 sub-buckets per power of 2. */
static unsigned swhist_index(uint64_t v)
{
	unsigned e, idx;

	if (v < 16)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);
	idx = 16 + (e - 4) * 8 + (unsigned)((v >> (e - 3)) & 7);
	return idx < SWHIST_BUCKETS ? idx : SWHIST_BUCKETS - 1;
}

/* The smallest value that falls in bucket idx. */
static uint64_t swhist_floor(unsigned idx)
{
	unsigned e;

	if (idx < 16)
		return idx;
	e = (idx - 16) / 8 + 4;
	return (1ULL << e) | ((uint64_t)((idx - 16) % 8) << (e - 3));
}

void swhist__add(struct swhist *h, uint64_t ns)
{
	h->bucket[swhist_index(ns)]++;
	h->count++;
	if (ns > h->max)
		h->max = ns;
}

void swhist__merge(struct swhist *into, const struct swhist *from)
{
	for (unsigned i = 0; i < SWHIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
	into->count += from->count;
	if (from->max > into->max)
		into->max = from->max;
}

uint64_t swhist__quantile(const struct swhist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = (uint64_t)(q * (double)h->count);
	if (rank >= h->count)
		rank = h->count - 1;
	for (unsigned i = 0; i < SWHIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen > rank) {
			uint64_t v = swhist_floor(i);

			return v < h->max ? v : h->max;
		}
	}
	return h->max;
}

/* ---- the bench: a parked team, released per run, stopped at a safe point -- */

struct swthread {
	_Alignas(64) struct swbench *bench;
	pthread_t tid;
	int index;
	int cpu;
	bool started;
	bool finished;			/* iteration mode: reached iters */
	uint64_t acq;
	struct swhist lat;
};

struct swbench {
	struct swlock lock;
	/* Data the lock protects, on its own line: a non-atomic counter and
	 * the owner, checked on entry and exit of every critical section. */
	_Alignas(64) volatile uint64_t counter;
	volatile int owner;
	uint64_t violations;

	/* Coordination, each word on its own line so that the workers'
	 * safe-point poll does not share a line with the lock. */
	_Alignas(64) _Atomic uint32_t go;	/* run generation; futex */
	_Alignas(64) _Atomic uint32_t stop_req;	/* futex in iteration mode */
	_Alignas(64) _Atomic uint32_t acks;	/* futex: the coordinator waits */
	_Atomic uint64_t last_ack_ns;
	_Alignas(64) _Atomic uint32_t finished;	/* iteration mode: done count */
	bool quit;
	uint64_t iters;

	struct swbench_cfg cfg;
	struct swthread *threads;
};

static uint64_t mono_ns(void)
{
	return calib__now_ns();
}

/* Work that the compiler cannot drop or fold: a dependent chain. */
static inline void burn(uint32_t units)
{
	uint64_t x = units;

	for (uint32_t i = 0; i < units; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ __volatile__("" : "+r"(x));
	}
}

static void critical_section(struct swbench *b, int self)
{
	uint64_t v;

	if (b->owner != 0)
		b->violations++;
	b->owner = self;
	/* A read-modify-write stretched over the work: without exclusion,
	 * updates are lost and the total comes out short. */
	v = b->counter;
	burn(b->cfg.cs_work);
	b->counter = v + 1;
	if (b->owner != self)
		b->violations++;
	b->owner = 0;
}

static void ack_stop(struct swbench *b)
{
	if (atomic_fetch_add(&b->acks, 1) + 1 == (uint32_t)b->cfg.nthreads) {
		atomic_store(&b->last_ack_ns, mono_ns());
		futex(&b->acks, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
}

static void *swthread_main(void *arg)
{
	struct swthread *t = arg;
	struct swbench *b = t->bench;
	uint32_t gen = 0, g;

	for (;;) {
		while ((g = atomic_load_explicit(&b->go, memory_order_acquire)) == gen)
			futex(&b->go, FUTEX_WAIT_PRIVATE, gen, NULL);
		gen = g;
		if (b->quit)
			return NULL;
		/* The safe point: between critical sections. */
		while (!atomic_load_explicit(&b->stop_req, memory_order_acquire)) {
			uint64_t t0, t1;

			if (b->iters && t->acq >= b->iters) {
				if (!t->finished) {
					t->finished = true;
					if (atomic_fetch_add(&b->finished, 1) + 1 ==
					    (uint32_t)b->cfg.nthreads)
						futex(&b->finished, FUTEX_WAKE_PRIVATE, 1, NULL);
				}
				futex(&b->stop_req, FUTEX_WAIT_PRIVATE, 0, NULL);
				continue;
			}
			t0 = mono_ns();
			swlock__acquire(&b->lock);
			t1 = mono_ns();
			critical_section(b, t->index + 1);
			swlock__release(&b->lock);
			t->acq++;
			swhist__add(&t->lat, t1 - t0);
			burn(b->cfg.outside_work);
		}
		ack_stop(b);
	}
}

/* Waits until *word reaches want; false after timeout_ns. */
static bool wait_count(_Atomic uint32_t *word, uint32_t want, uint64_t timeout_ns)
{
	uint64_t deadline = mono_ns() + timeout_ns;
	uint32_t v;

	while ((v = atomic_load(word)) < want) {
		uint64_t now = mono_ns();
		struct timespec ts;

		if (now >= deadline)
			return false;
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ULL);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ULL);
		futex(word, FUTEX_WAIT_PRIVATE, v, &ts);
	}
	return true;
}

static void release_team(struct swbench *b)
{
	atomic_fetch_add_explicit(&b->go, 1, memory_order_release);
	futex(&b->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

int swbench__create(struct swbench **out, const struct swbench_cfg *cfg)
{
	struct swbench *b;
	int err = 0;

	if (cfg->nthreads < 1 || CPU_COUNT(&cfg->cpus) == 0)
		return -EINVAL;
	b = aligned_alloc(64, (sizeof(*b) + 63) & ~(size_t)63);
	if (!b)
		return -ENOMEM;
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	swlock__init(&b->lock, SWLOCK_SPIN, 0);
	b->threads = aligned_alloc(64, sizeof(*b->threads) * (size_t)cfg->nthreads);
	if (!b->threads) {
		free(b);
		return -ENOMEM;
	}
	memset(b->threads, 0, sizeof(*b->threads) * (size_t)cfg->nthreads);
	for (int i = 0; i < cfg->nthreads; i++) {
		struct swthread *t = &b->threads[i];
		pthread_attr_t attr;
		cpu_set_t one;

		t->bench = b;
		t->index = i;
		t->cpu = calib__nth_cpu(&cfg->cpus, i);
		CPU_ZERO(&one);
		CPU_SET(t->cpu, &one);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		err = -pthread_create(&t->tid, &attr, swthread_main, t);
		pthread_attr_destroy(&attr);
		if (err)
			break;
		t->started = true;
	}
	if (err) {
		swbench__destroy(b);
		return err;
	}
	*out = b;
	return 0;
}

void swbench__set_lock(struct swbench *b, enum swlock_strategy s, uint32_t spins)
{
	swlock__destroy(&b->lock);
	swlock__init(&b->lock, s, spins);
}

/* How long the coordinator waits for acks before it calls the team stuck:
 * far beyond any scheduler's time slice times the thread count. */
#define SWBENCH_STOP_TIMEOUT_NS (30ULL * 1000000000ULL)

/* One release of the team and the stop-all that ends it. Returns the time
 * the threads ran; *stop_ns gets the stop request to the last ack. */
static int swbench_segment(struct swbench *b, uint64_t run_ns, uint64_t *ran_ns,
			   uint64_t *stop_ns)
{
	uint32_t n = (uint32_t)b->cfg.nthreads;
	uint64_t t_start, t_req;

	atomic_store(&b->stop_req, 0);
	atomic_store(&b->acks, 0);
	t_start = mono_ns();
	release_team(b);
	if (b->iters) {
		if (!wait_count(&b->finished, n, SWBENCH_STOP_TIMEOUT_NS))
			return -ETIMEDOUT;
	} else {
		struct timespec ts = {
			.tv_sec = (time_t)(run_ns / 1000000000ULL),
			.tv_nsec = (long)(run_ns % 1000000000ULL),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
	}
	t_req = mono_ns();
	atomic_store_explicit(&b->stop_req, 1, memory_order_release);
	if (b->iters)
		futex(&b->stop_req, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	if (!wait_count(&b->acks, n, SWBENCH_STOP_TIMEOUT_NS))
		return -ETIMEDOUT;
	*ran_ns = t_req - t_start;
	*stop_ns = atomic_load(&b->last_ack_ns) - t_req;
	return 0;
}

int swbench__run(struct swbench *b, uint64_t run_ns, uint64_t iters, int stops,
		 struct swbench_sample *out)
{
	double stop_ns[SWBENCH_MAX_STOPS];
	struct calib_stats st;
	int n = b->cfg.nthreads;

	if (iters)
		stops = 1;
	if (stops < 1 || stops > SWBENCH_MAX_STOPS)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		b->threads[i].acq = 0;
		b->threads[i].finished = false;
		memset(&b->threads[i].lat, 0, sizeof(b->threads[i].lat));
	}
	b->counter = 0;
	b->owner = 0;
	b->violations = 0;
	b->iters = iters;
	atomic_store(&b->finished, 0);
	memset(out, 0, sizeof(*out));

	for (int k = 0; k < stops; k++) {
		uint64_t ran, stop;
		int err = swbench_segment(b, run_ns / (uint64_t)stops, &ran, &stop);

		if (err)
			return err;
		out->run_ns += ran;
		stop_ns[k] = (double)stop;
		if (stop > out->stop_all_max_ns)
			out->stop_all_max_ns = stop;
	}
	calib_stats__compute(&st, stop_ns, stops);
	out->stop_all_ns = (uint64_t)st.median;
	out->stops = stops;
	out->acks = atomic_load(&b->acks);
	out->counter = b->counter;
	out->violations = b->violations;
	out->min_acq = UINT64_MAX;
	for (int i = 0; i < n; i++) {
		uint64_t a = b->threads[i].acq;

		out->total_acq += a;
		if (a < out->min_acq)
			out->min_acq = a;
		if (a > out->max_acq)
			out->max_acq = a;
		swhist__merge(&out->lat, &b->threads[i].lat);
	}
	return 0;
}

void swbench__destroy(struct swbench *b)
{
	if (!b)
		return;
	b->quit = true;
	release_team(b);
	for (int i = 0; i < b->cfg.nthreads; i++)
		if (b->threads[i].started)
			pthread_join(b->threads[i].tid, NULL);
	swlock__destroy(&b->lock);
	free(b->threads);
	free(b);
}

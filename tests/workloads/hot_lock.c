// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: T threads update a table under a pthread mutex, each holding it
 * ~HOLD us per update, for SECONDS seconds. With SHARDS 1 they all share one
 * mutex (a hot lock: most of their time is spent waiting for it); with
 * SHARDS = T each thread has its own and nobody waits. The before/after of
 * sharding a hot lock, for `spinscope diff`.
 *
 *   hot_lock T SHARDS HOLD_US SECONDS
 *
 * The threads take the lock in update_shard(), the frame that names the lock
 * in a report whatever the shard count, so the two runs' locks match by name.
 */
#include <stdatomic.h>
#include "workload.h"

#define MAX_THREADS 16

static struct shard {
	pthread_mutex_t lock;
	unsigned long table[8];
	char pad[64];
} shards[MAX_THREADS];
static unsigned long nshards, hold_ns;
static volatile int stop;
static atomic_ulong next_id;

static void busy_ns(unsigned long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((unsigned long)((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec)) < ns);
}

/* Not inlined: the frame that names the lock. */
static void __attribute__((noinline)) update_shard(unsigned long id, unsigned long i)
{
	struct shard *s = &shards[id % nshards];

	pthread_mutex_lock(&s->lock);
	s->table[i % 8]++;
	busy_ns(hold_ns);
	pthread_mutex_unlock(&s->lock);
}

static void *worker(void *arg)
{
	unsigned long id = atomic_fetch_add(&next_id, 1);

	for (unsigned long i = 0; !stop; i++) {
		update_shard(id, i);
		/* Work outside the lock, so a sharded run is not all lock. */
		busy_ns(hold_ns / 4);
	}
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long nthreads, seconds;

	wl_init();
	if (argc != 5)
		wl_fail("usage: hot_lock THREADS SHARDS HOLD_US SECONDS");
	nthreads = wl_arg(argv[1], "THREADS");
	nshards = wl_arg(argv[2], "SHARDS");
	hold_ns = wl_arg(argv[3], "HOLD_US") * 1000;
	seconds = wl_arg(argv[4], "SECONDS");
	if (nthreads > MAX_THREADS || nshards > MAX_THREADS)
		wl_fail("at most %d threads and shards", MAX_THREADS);
	for (unsigned long i = 0; i < nshards; i++)
		pthread_mutex_init(&shards[i].lock, NULL);
	wl_ready("threads=%lu shards=%lu", nthreads, nshards);
	for (unsigned long i = 0; i < nthreads; i++)
		wl_thread_start(worker);
	wl_sleep_ms(seconds * 1000);
	stop = 1;
	wl_sleep_ms(50);
	printf("done\n");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: blocking while holding a lock. T threads append a record to a
 * file and make it durable with fdatasync, all under one mutex ("sync"), or
 * sleep HOLD_US under it ("sleep"). Known answer: the lock is contended and
 * its holder is off CPU, not in a futex wait, for most of each hold: move
 * the I/O (or the sleep) out of the critical section.
 *
 *   io_under_lock T MODE SECONDS [PATH]
 *
 * MODE: sync (fdatasync of PATH, default ./io_under_lock.dat, removed at
 * the end) or sleep (200 us). "done writes=N" at the end.
 */
#include "workload.h"

static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static bool use_sleep;
static unsigned long writes;

static void __attribute__((noinline)) append_record(void)
{
	char rec[64];

	pthread_mutex_lock(&journal_lock);
	if (use_sleep) {
		struct timespec ts = { 0, 200000 };

		nanosleep(&ts, NULL);
	} else {
		snprintf(rec, sizeof(rec), "record %lu\n", writes);
		wl_write_all(fd, rec, strlen(rec));
		if (fdatasync(fd))
			wl_fail("fdatasync: %s", strerror(errno));
	}
	writes++;
	pthread_mutex_unlock(&journal_lock);
}

static void *journal_writer(void *arg __attribute__((unused)))
{
	for (;;)
		append_record();
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long t, seconds;
	const char *path = "io_under_lock.dat";

	wl_init();
	if (argc < 4 || argc > 5)
		wl_fail("usage: io_under_lock T sync|sleep SECONDS [PATH]");
	t = wl_arg(argv[1], "T");
	use_sleep = !strcmp(argv[2], "sleep");
	if (!use_sleep && strcmp(argv[2], "sync"))
		wl_fail("MODE: sync or sleep, got '%s'", argv[2]);
	seconds = wl_arg(argv[3], "SECONDS");
	if (argc == 5)
		path = argv[4];
	if (!use_sleep) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			wl_fail("open %s: %s", path, strerror(errno));
	}
	wl_ready("mutex=%p section_fn=%p", (void *)&journal_lock, (void *)append_record);
	for (unsigned long i = 0; i < t; i++)
		wl_thread_start(journal_writer);
	wl_sleep_ms(seconds * 1000);
	pthread_mutex_lock(&journal_lock);
	printf("done writes=%lu\n", writes);
	fflush(stdout);
	if (fd >= 0)
		unlink(path);
	_exit(0);
}

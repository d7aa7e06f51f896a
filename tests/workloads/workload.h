/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every test workload shares: the start handshake with the test, safety
 * nets so that a workload never outlives its test, and strict argument
 * parsing.
 *
 * Handshake: the workload sets itself up, prints "ready pid=N key=value ..."
 * and blocks until the test says go (SIGUSR1, or a line on stdin). The test
 * attaches spinscope in between, so that everything the workload does after
 * go is traced, and nothing it did while setting up is. Workloads do their
 * known work between go and "done" with raw syscalls and without futexes
 * except where futexes are the point, so the counts a test asserts are
 * exact.
 */
#ifndef SPINSCOPE_WORKLOAD_H
#define SPINSCOPE_WORKLOAD_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>

/* A workload the test forgot (or a test that crashed) must not linger. */
#define WL_MAX_SECONDS 120

static inline void __attribute__((noreturn, format(printf, 1, 2)))
wl_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("workload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A positive decimal argument; anything else is a bug in the calling test. */
static inline unsigned long wl_arg(const char *s, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || s[0] == '-')
		wl_fail("%s: expected a positive integer, got '%s'", what, s);
	return v;
}

static inline pid_t wl_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static inline void wl_sleep_ms(unsigned long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Computes for us microseconds of wall time (a critical section's or a
 * round's work, without system calls but the vDSO clock). */
static inline void wl_busy_us(unsigned long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < (long)us);
}

static inline void wl_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			wl_fail("write: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

static inline void wl_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			wl_fail("read: %s", n ? strerror(errno) : "end of file");
		p += n;
		len -= (size_t)n;
	}
}

/* The process's threads now (exited ones gone once the kernel has
 * finished their exit). */
static inline unsigned int wl_count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	unsigned int n = 0;
	struct dirent *e;

	if (!d)
		wl_fail("/proc/self/task: %s", strerror(errno));
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static inline void wl_thread_start(void *(*fn)(void *))
{
	pthread_t th;
	int err = pthread_create(&th, NULL, fn, NULL);

	if (err)
		wl_fail("pthread_create: %s", strerror(err));
}

/*
 * Call first in main(), before any thread exists: every thread then inherits
 * the blocked go signal, so that only wl_ready() ever receives it, and the
 * name WL_COMM gives, where set (a hostile one: tests/integration/
 * test_hostile.c), which the kernel hands every thread the process makes.
 */
static inline void wl_init(void)
{
	const char *comm = getenv("WL_COMM");
	sigset_t go;

	if (comm)
		prctl(PR_SET_NAME, comm);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(WL_MAX_SECONDS);
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	sigprocmask(SIG_BLOCK, &go, NULL);
}

/*
 * Prints "ready pid=N <fmt>" and waits for go: SIGUSR1, or a line on stdin.
 * An stdin at end of file (</dev/null) is not a go: the test did not speak.
 */
static inline void __attribute__((format(printf, 1, 2))) wl_ready(const char *fmt, ...)
{
	struct pollfd fds[2];
	bool stdin_open = true;
	sigset_t go;
	va_list ap;
	int sfd;

	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	sfd = signalfd(-1, &go, SFD_CLOEXEC);
	if (sfd < 0)
		wl_fail("signalfd: %s", strerror(errno));
	printf("ready pid=%d ", getpid());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);

	fds[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = 0, .events = POLLIN };
	for (;;) {
		if (poll(fds, stdin_open ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			wl_fail("poll: %s", strerror(errno));
		}
		if (fds[0].revents & POLLIN)
			break;
		if (stdin_open && fds[1].revents) {
			char buf[256];
			ssize_t n = read(0, buf, sizeof(buf));

			if (n <= 0)
				stdin_open = false;
			else if (memchr(buf, '\n', (size_t)n))
				break;
		}
	}
	close(sfd);
}

/*
 * Whether thread tid (of this process) is blocked in system call nr with
 * first argument arg0: its /proc syscall file gives the call's number and
 * first argument only while the thread is off CPU inside a call
 * ("running" while on CPU, -1 outside any call).
 */
static inline bool wl_blocked_in(pid_t tid, long nr, const void *arg0)
{
	char path[64], buf[256];
	unsigned long arg;
	ssize_t n;
	long got;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return sscanf(buf, "%ld %lx", &got, &arg) == 2 && got == nr &&
	       arg == (unsigned long)arg0;
}

/* Whether thread tid is blocked in futex(2) on word. */
static inline bool wl_blocked_in_futex(pid_t tid, const void *word)
{
	return wl_blocked_in(tid, SYS_futex, word);
}

static inline void wl_done(void)
{
	printf("done\n");
	fflush(stdout);
}

/* After "done": stay alive, idle, until the test kills us. */
static inline void __attribute__((noreturn)) wl_linger(void)
{
	for (;;)
		pause();
}

#endif /* SPINSCOPE_WORKLOAD_H */

// SPDX-License-Identifier: GPL-2.0
/* jvm_perfmap.c: the HotSpot attach protocol, for Compiler.perfmap
 * (jvm_perfmap.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "common/procfs.h"
#include "jvm_perfmap.h"
#include "proc_root.h"

#define REPLY_MAX	65536		/* bytes of the JVM's answer kept */
#define POLL_STEP_MS	20		/* how often the socket is looked for */

struct attach {
	const char *root;
	int pid, nspid;
	uid_t uid;			/* the target's: owner of /proc/PID */
	int root_fd;			/* /proc/PID/root, O_PATH */
	int trigger_dir;		/* where we made .attach_pid<N>; -1: none */
	char trigger[32];
	long long deadline_ms;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int left_ms(const struct attach *a)
{
	long long left = a->deadline_ms - now_ms();

	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* The PID as the target's namespace knows it (NSpid's last), and whether
 * it catches SIGQUIT (SigCgt): a JVM run with -Xrs does not. */
static void read_status(const char *root, int pid, int *nspid, bool *catches_quit)
{
	char path[256], line[512];
	FILE *f;

	*nspid = pid;
	*catches_quit = false;
	snprintf(path, sizeof(path), "%s/%d/status", root, pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "NSpid:", 6)) {
			const char *last = strrchr(line, '\t');
			long v = last ? strtol(last + 1, NULL, 10) : 0;

			if (v > 0 && v <= INT_MAX)
				*nspid = (int)v;
		} else if (!strncmp(line, "SigCgt:", 7)) {
			unsigned long long mask = strtoull(line + 7, NULL, 16);

			*catches_quit = mask & (1ull << (SIGQUIT - 1));
		}
	}
	fclose(f);
}

/* The attach socket, when it is one and belongs to the target's user or
 * root: an O_PATH fd of that inode, which is what we connect to. */
static int socket_inode(const struct attach *a)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/tmp/.java_pid%d", a->nspid);
	fd = proc_root__open(a->root_fd, path, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISSOCK(st.st_mode) || (st.st_uid != a->uid && st.st_uid != 0)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Creates .attach_pid<N> in the target's working directory, else in its
 * /tmp: O_EXCL, so no link is followed and a file someone else made is
 * never ours to remove. */
static int make_trigger(struct attach *a)
{
	char path[64];
	int dirs[2], fd = -1;

	snprintf(a->trigger, sizeof(a->trigger), ".attach_pid%d", a->nspid);
	snprintf(path, sizeof(path), "%s/%d/cwd", a->root, a->pid);
	dirs[0] = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	dirs[1] = proc_root__open(a->root_fd, "/tmp", O_PATH | O_DIRECTORY);
	for (int i = 0; i < 2 && fd < 0; i++) {
		if (dirs[i] < 0)
			continue;
		fd = openat(dirs[i], a->trigger, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			a->trigger_dir = dirs[i];
			dirs[i] = -1;
		}
	}
	for (int i = 0; i < 2; i++)
		if (dirs[i] >= 0)
			close(dirs[i]);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void remove_trigger(struct attach *a)
{
	if (a->trigger_dir < 0)
		return;
	unlinkat(a->trigger_dir, a->trigger, 0);
	close(a->trigger_dir);
	a->trigger_dir = -1;
}

/* Wakes the attach listener and waits for its socket, to the deadline. */
static int start_listener(struct attach *a)
{
	int fd = -1, err;

	err = make_trigger(a);
	if (err)
		return err;
	err = kill(a->pid, SIGQUIT) ? -errno : 0;
	while (!err && (fd = socket_inode(a)) < 0 && left_ms(a) > 0) {
		if (kill(a->pid, 0) && errno == ESRCH)
			err = -ESRCH;
		else
			poll(NULL, 0, POLL_STEP_MS);
	}
	remove_trigger(a);
	if (err)
		return err;
	return fd >= 0 ? fd : -ETIMEDOUT;
}

size_t jvm_perfmap__request_bytes(const char *cmd, char *buf, size_t len)
{
	static const char head[] = "1\0jcmd\0";	/* protocol 1, command jcmd */
	size_t n = sizeof(head) - 1, c = strlen(cmd);

	/* the jcmd line, then two empty arguments */
	if (len < n + c + 3)
		return 0;
	memcpy(buf, head, n);
	memcpy(buf + n, cmd, c);
	memset(buf + n + c, 0, 3);
	return n + c + 3;
}

/* Waits for fd to be ready for events, to the deadline. */
static int wait_fd(const struct attach *a, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n = poll(&p, 1, left_ms(a));

	return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

static int connect_to(const struct attach *a, int inode_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err = 0;

	if (s < 0)
		return -errno;
	/* through the inode checked, not the name: nothing swapped in between */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d", inode_fd);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno == EINPROGRESS || errno == EAGAIN ? wait_fd(a, s, POLLOUT) : -errno;
		if (!err) {
			socklen_t l = sizeof(err);

			if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &l) || err)
				err = -(err ? err : errno);
		}
	}
	if (err) {
		close(s);
		return err;
	}
	return s;
}

/* Sends the request and reads the answer to its end or the deadline. */
static int exchange(const struct attach *a, int inode_fd, char *reply, size_t cap, size_t *n)
{
	char req[64];
	size_t len = jvm_perfmap__request_bytes("Compiler.perfmap", req, sizeof(req));
	int s = connect_to(a, inode_fd), err = 0;
	ssize_t r;

	*n = 0;
	if (s < 0)
		return s;
	if (write(s, req, len) != (ssize_t)len)
		err = -EIO;
	while (!err && *n < cap - 1) {
		err = wait_fd(a, s, POLLIN);
		r = err ? 0 : read(s, reply + *n, cap - 1 - *n);
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			err = -errno;
		if (!err && r == 0)
			break;	/* the JVM closes the connection after its answer */
		*n += r > 0 ? (size_t)r : 0;
	}
	reply[*n] = '\0';
	close(s);
	return err;
}

static void printable_line(const char *s, size_t n, char *out, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < n && s[i] != '\n' && k + 1 < len; i++)
		out[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	out[k] = '\0';
}

int jvm_perfmap__parse_reply(const char *reply, size_t n, char *why, size_t len)
{
	const char *nl = memchr(reply, '\n', n), *body = nl ? nl + 1 : reply + n;
	size_t rest = n - (size_t)(body - reply);

	why[0] = '\0';
	/* "0" alone on the first line; a jcmd that failed inside answers "0"
	 * too on some JDKs, with the exception as its output */
	if (nl && nl - reply == 1 && reply[0] == '0' &&
	    !memmem(body, rest, "Exception", 9) && !memmem(body, rest, "Unknown diagnostic command", 26))
		return 0;
	if (rest && nl)
		printable_line(body, rest, why, len);
	else
		printable_line(reply, n, why, len);
	if (!why[0])
		snprintf(why, len, "no answer");
	return -1;
}

/* What was asked and answered, in one line for the user. */
static enum jvm_perfmap_status ask(struct attach *a, int timeout_ms, char *why, size_t len)
{
	char *reply, msg[160];
	bool catches_quit;
	size_t n;
	int fd, err;

	read_status(a->root, a->pid, &a->nspid, &catches_quit);
	fd = socket_inode(a);
	if (fd < 0 && !catches_quit) {
		snprintf(why, len, "JVM %d has no attach listener and ignores SIGQUIT (-Xrs): no perf map asked for; "
			 "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit writes one at its exit", a->pid);
		return JVM_PERFMAP_NO_LISTENER;
	}
	if (fd < 0)
		fd = start_listener(a);
	if (fd == -ETIMEDOUT) {
		snprintf(why, len, "JVM %d started no attach listener within %d ms (-XX:+DisableAttachMechanism?): no perf map",
			 a->pid, timeout_ms);
		return JVM_PERFMAP_NO_LISTENER;
	}
	if (fd < 0) {
		snprintf(why, len, "cannot reach JVM %d's attach listener: %s", a->pid, strerror(-fd));
		return JVM_PERFMAP_FAILED;
	}
	reply = malloc(REPLY_MAX);
	err = reply ? exchange(a, fd, reply, REPLY_MAX, &n) : -ENOMEM;
	close(fd);
	if (err) {
		snprintf(why, len, "JVM %d gave no full answer to Compiler.perfmap within %d ms: %s", a->pid,
			 timeout_ms, strerror(-err));
	} else if (jvm_perfmap__parse_reply(reply, n, msg, sizeof(msg))) {
		snprintf(why, len, "JVM %d refused Compiler.perfmap (JDK 17 or later writes perf maps; "
			 "before, perf-map-agent does): %s", a->pid, msg);
		err = -EPERM;
	} else {
		snprintf(why, len, "asked JVM %d for its perf map (jcmd %d Compiler.perfmap): /tmp/perf-%d.map written",
			 a->pid, a->pid, a->nspid);
	}
	free(reply);
	return !err ? JVM_PERFMAP_WRITTEN : err == -EPERM ? JVM_PERFMAP_REFUSED : JVM_PERFMAP_FAILED;
}

enum jvm_perfmap_status jvm_perfmap__request(const char *proc_root, int pid, int timeout_ms,
					     char *why, size_t len)
{
	struct attach a = {
		.root = proc_root ? proc_root : "/proc", .pid = pid, .root_fd = -1, .trigger_dir = -1,
		.deadline_ms = now_ms() + timeout_ms,
	};
	enum jvm_perfmap_status st;
	char path[256];
	struct stat sb;

	if (!proc_maps_has(a.root, pid, "/libjvm.so")) {
		snprintf(why, len, "process %d maps no libjvm.so: not a JVM, so no perf map was asked for", pid);
		return JVM_PERFMAP_NOT_JVM;
	}
	snprintf(path, sizeof(path), "%s/%d", a.root, pid);
	if (stat(path, &sb)) {
		snprintf(why, len, "JVM %d is gone: no perf map asked for", pid);
		return JVM_PERFMAP_FAILED;
	}
	a.uid = sb.st_uid;
	snprintf(path, sizeof(path), "%s/%d/root", a.root, pid);
	a.root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (a.root_fd < 0) {
		snprintf(why, len, "cannot open JVM %d's root directory: %s", pid, strerror(errno));
		return JVM_PERFMAP_FAILED;
	}
	st = ask(&a, timeout_ms, why, len);
	close(a.root_fd);
	return st;
}

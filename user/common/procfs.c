// SPDX-License-Identifier: GPL-2.0
/* /proc parsing for target checks and the report header. */
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "errors.h"
#include "names.h"
#include "procfs.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

/*
 * Reads a /proc file whole into a NUL-terminated heap buffer (*out): a
 * name there may hold any byte, a newline included, so no line-at-a-time
 * read may stand in for the file. Capped at 1 MiB (a status with 65536
 * groups is under half of it). 0 or -errno.
 */
static int read_fd_whole(int fd, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *b;
	ssize_t r;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n + 1 == cap) {
			if (cap * 2 > PROC_FILE_MAX || !(b = realloc(buf, cap * 2))) {
				free(buf);
				return cap * 2 > PROC_FILE_MAX ? -EFBIG : -ENOMEM;
			}
			buf = b;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

/* status: State, Tgid and PPid (the Name there is escaped: stat's is not). */
static int parse_status(char *text, struct proc_status *st)
{
	int fields = 0;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "State: %c", &st->state) == 1 ||
		    sscanf(line, "Tgid: %d", &st->tgid) == 1 ||
		    sscanf(line, "PPid: %d", &st->ppid) == 1)
			fields++;
	}
	return fields == 3 ? 0 : -EINVAL;
}

/* stat: "pid (comm) state ppid ..."; comm may hold any byte but NUL, ')'
 * and newlines included: it ends at the last ')'. */
static int parse_stat(char *text, size_t len, struct proc_status *st)
{
	char *open = memchr(text, '(', len), *close = memrchr(text, ')', len);

	if (!open || !close || close < open)
		return -EINVAL;
	ss_name_clean(st->name, sizeof(st->name), open + 1, (size_t)(close - open - 1));
	/* After ") ": state ppid pgrp session tty_nr tpgid flags, ... field 22 */
	if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &st->flags, &st->starttime) != 2)
		return -EINVAL;
	return 0;
}

/* The whole file name in the folder dir_fd (a /proc/PID). */
static int read_whole_at(int dir_fd, const char *name, char **out, size_t *len)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC), err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	err = read_fd_whole(fd, out, len);
	close(fd);
	return err;
}

int proc_read_status_at(int dir_fd, struct proc_status *st)
{
	char *text;
	size_t len;
	int err;

	memset(st, 0, sizeof(*st));
	err = read_whole_at(dir_fd, "status", &text, NULL);
	if (err)
		return err;
	err = parse_status(text, st);
	free(text);
	if (err)
		return err;
	err = read_whole_at(dir_fd, "stat", &text, &len);
	if (err)
		return err;
	err = parse_stat(text, len, st);
	free(text);
	return err;
}

int proc_read_status(const char *root, int pid, struct proc_status *st)
{
	int dir = proc_open_pid_dir(root, pid, 0), err;

	memset(st, 0, sizeof(*st));
	if (dir < 0)
		return dir;
	err = proc_read_status_at(dir, st);
	close(dir);
	return err;
}

int proc_open_pid_dir(const char *root, int pid, unsigned long long starttime)
{
	struct proc_status st;
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!starttime)
		return fd;
	/* Its stat through the folder: the process the folder is bound to. */
	err = proc_read_status_at(fd, &st);
	if (!err && st.starttime != starttime)
		err = -ESRCH;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int proc_read_comm_at(int dir_fd, int tid, char *name, size_t size)
{
	char path[64], buf[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "task/%d/comm", tid);
	fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? (int)n : -EINVAL;
	/* "%s\n": only the last newline is the file's; one before is the name's. */
	if (buf[n - 1] == '\n')
		n--;
	ss_name_clean(name, size, buf, (size_t)n);
	return 0;
}

bool proc_files_openable(const char *root, int pid)
{
	char path[256];
	struct dirent *de;
	bool ok = false;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/root/", root, pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	snprintf(path, sizeof(path), "%s/%d/map_files", root, pid);
	d = opendir(path);
	while (d && !ok && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		ok = fd >= 0;
		if (ok)
			close(fd);
		break;
	}
	if (d)
		closedir(d);
	return ok;
}

int proc_check_target(const char *root, int pid, int tid, struct proc_status *st,
		      char *why, size_t whylen)
{
	struct proc_status tst;
	int err = proc_read_status(root, pid, st);

	if (err == -ENOENT || err == -ESRCH) {
		snprintf(why, whylen, "pid %d: no such process (check it with ps or pgrep)", pid);
		return SS_EXIT_TARGET;
	}
	if (err) {
		snprintf(why, whylen, "pid %d: cannot read %s/%d/status: %s", pid, root, pid, strerror(-err));
		return SS_EXIT_TARGET;
	}
	if (st->flags & PF_KTHREAD) {
		snprintf(why, whylen, "pid %d (%s) is a kernel thread: spinscope traces user processes",
			 pid, st->name);
		return SS_EXIT_TARGET;
	}
	if (st->state == 'Z' || st->state == 'X') {
		snprintf(why, whylen, "pid %d (%s) is a zombie: it has exited and waits for its parent (pid %d) to reap it; nothing is left to trace",
			 pid, st->name, st->ppid);
		return SS_EXIT_TARGET;
	}
	if (st->tgid != pid) {
		snprintf(why, whylen, "pid %d is a thread of process %d: use -p %d -t %d", pid, st->tgid,
			 st->tgid, pid);
		return SS_EXIT_TARGET;
	}
	if (!tid)
		return 0;
	/* /proc/TID resolves for any thread; its Tgid says whose it is. */
	err = proc_read_status(root, tid, &tst);
	if (err || tst.tgid != pid) {
		snprintf(why, whylen, "thread %d is not a thread of process %d (list them in /proc/%d/task)",
			 tid, pid, pid);
		return SS_EXIT_TARGET;
	}
	return 0;
}

int proc_count_threads(const char *root, int pid)
{
	char path[256];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%d/task", root, pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

bool proc_maps_has(const char *root, int pid, const char *needle)
{
	char path[256], line[1024];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", root, pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

int proc_allowed_cpus(int pid)
{
	cpu_set_t set;

	if (sched_getaffinity(pid, sizeof(set), &set))
		return -errno;
	return CPU_COUNT(&set);
}

static void read_cpu_model(const char *root, char *buf, size_t len)
{
	char path[256], line[512];
	FILE *f;

	snprintf(buf, len, "unknown");
	snprintf(path, sizeof(path), "%s/cpuinfo", root);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		/* x86: "model name"; arm64 has no name, only "CPU part". */
		if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5)) {
			char *v = colon + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			v[strcspn(v, "\n")] = 0;
			snprintf(buf, len, "%s", v);
			break;
		}
	}
	fclose(f);
}

void host_info_read(const char *root, struct host_info *h)
{
	struct utsname u;

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0) {
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
		snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
	}
	read_cpu_model(root, h->cpu_model, sizeof(h->cpu_model));
	h->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

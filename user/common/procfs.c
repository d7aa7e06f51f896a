// SPDX-License-Identifier: GPL-2.0
/* /proc parsing for target checks and the report header. */
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "errors.h"
#include "procfs.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

int proc_read_status(const char *root, int pid, struct proc_status *st)
{
	char path[256], line[512], *p;
	FILE *f;
	int fields = 0;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "%s/%d/status", root, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:", 5)) {
			for (p = line + 5; *p == ' ' || *p == '\t'; p++)
				;
			p[strcspn(p, "\n")] = 0;
			snprintf(st->name, sizeof(st->name), "%s", p);
			fields++;
		} else if (sscanf(line, "State: %c", &st->state) == 1) {
			fields++;
		} else if (sscanf(line, "Tgid: %d", &st->tgid) == 1) {
			fields++;
		} else if (sscanf(line, "PPid: %d", &st->ppid) == 1) {
			fields++;
		}
	}
	fclose(f);
	if (fields < 4)
		return -EINVAL;

	/* stat: "pid (comm) state ppid ..."; comm may hold spaces and ')'. */
	snprintf(path, sizeof(path), "%s/%d/stat", root, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	if (!p || !(p = strrchr(line, ')')))
		return -EINVAL;
	/* After ") ": state ppid pgrp session tty_nr tpgid flags */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &st->flags) != 1)
		return -EINVAL;
	return 0;
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

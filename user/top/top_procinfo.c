// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/{stat,cgroup} and the affinity of a process, for `top`. The
 * cgroup parser is pure and unit-tested on real-shaped paths
 * (tests/unit/top/test_top_procinfo.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/names.h"
#include "common/procfs.h"
#include "top_procinfo.h"

#define CGROUP_READ_MAX 8192	/* a cgroup file is one line per hierarchy */

/* The container runtimes whose scope or folder names a 64-hex id. */
static const struct {
	const char *prefix;	/* "docker-<id>.scope" (systemd driver) */
	const char *label;
} runtimes[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "crio" },
	{ "libpod-", "podman" },
};

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* A 64-hex container id at s, followed by end (".scope", or "" for the
 * whole component): true and the id's first 12 in id. */
static bool hex_id(const char *s, size_t n, const char *end, char *id)
{
	size_t elen = strlen(end);

	if (n != 64 + elen || !all_hex(s, 64) || memcmp(s + 64, end, elen))
		return false;
	memcpy(id, s, 12);
	id[12] = 0;
	return true;
}

/* A pod UID: 36 characters of hex and '-' (or '_', systemd's escape of
 * '-'), written with '-' into uid. */
static bool pod_uid(const char *s, size_t n, char *uid)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i] == '_' ? '-' : s[i];

		if (c != '-' && (!isxdigit((unsigned char)c) || isupper((unsigned char)c)))
			return false;
		uid[i] = c;
	}
	uid[n] = 0;
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t l = strlen(suffix);

	return n >= l && !memcmp(s + n - l, suffix, l);
}

/* Reads one path component (s, n bytes) into what it names. */
static void component(const char *s, size_t n, char *container, size_t csize, char *unit, size_t usize,
		      bool *unit_is_service)
{
	char id[13], uid[37];
	const char *pod;

	/* kubepods-burstable-pod<uid>.slice (the systemd driver), or the
	 * cgroupfs driver's pod<uid> */
	pod = NULL;
	for (const char *at = s; at + 4 <= s + n && (at = memmem(at, (size_t)(s + n - at), "-pod", 4));
	     at++)
		pod = at + 4;	/* the last "-pod": "kubepods" holds "pod" too */
	if ((pod && ends_with(s, n, ".slice") && pod_uid(pod, (size_t)(s + n - 6 - pod), uid)) ||
	    (n > 3 && !memcmp(s, "pod", 3) && pod_uid(s + 3, n - 3, uid))) {
		snprintf(container, csize, "k8s:pod/%s", uid);
		return;
	}
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		size_t pl = strlen(runtimes[i].prefix);

		if (n > pl && !memcmp(s, runtimes[i].prefix, pl) && hex_id(s + pl, n - pl, ".scope", id)) {
			/* In a pod the pod names the workload; the container's id
			 * adds nothing a label can keep small. */
			if (strncmp(container, "k8s:", 4))
				snprintf(container, csize, "%s:%s", runtimes[i].label, id);
			return;
		}
	}
	/* The cgroupfs driver: /docker/<id>, /kubepods/.../pod<uid>/<id> */
	if (hex_id(s, n, "", id)) {
		if (!container[0])
			snprintf(container, csize, "docker:%s", id);
		return;
	}
	if (ends_with(s, n, ".service") || (!*unit_is_service && ends_with(s, n, ".scope"))) {
		snprintf(unit, usize, "%.*s", (int)n, s);
		*unit_is_service = ends_with(s, n, ".service");
	}
}

/* The path of the hierarchy top names a process by: v2's "0::", else
 * v1's name=systemd or cpu line. *len its length; NULL when none. */
static const char *cgroup_path(const char *text, size_t len, size_t *plen)
{
	const char *best = NULL, *end = text + len;
	int best_rank = 0;

	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line)), *eol = nl ? nl : end;
		const char *c1 = memchr(line, ':', (size_t)(eol - line));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		int rank = 0;

		if (c2) {
			size_t cl = (size_t)(c2 - c1 - 1);

			if (c1 - line == 1 && line[0] == '0' && cl == 0)
				rank = 3;
			else if (cl == 12 && !memcmp(c1 + 1, "name=systemd", 12))
				rank = 2;
			else if (memmem(c1 + 1, cl, "cpu", 3))
				rank = 1;
		}
		if (rank > best_rank) {
			best_rank = rank;
			best = c2 + 1;
			*plen = (size_t)(eol - best);
		}
		line = eol + 1;
	}
	return best;
}

void top_cgroup_names(const char *text, size_t len, char *container, size_t csize, char *unit,
		      size_t usize)
{
	bool unit_is_service = false;
	size_t plen = 0;
	const char *path = cgroup_path(text, len, &plen), *end;

	container[0] = 0;
	unit[0] = 0;
	if (!path)
		return;
	end = path + plen;
	for (const char *s = path; s < end;) {
		const char *slash = memchr(s, '/', (size_t)(end - s)), *e = slash ? slash : end;

		if (e > s)
			component(s, (size_t)(e - s), container, csize, unit, usize, &unit_is_service);
		s = e + 1;
	}
	ss_name_clean(container, csize, container, csize);
	ss_name_clean(unit, usize, unit, usize);
}

/* Reads root/PID/name whole (at most max - 1 bytes) into buf: its length,
 * or -errno. */
static ssize_t read_small(const char *root, int pid, const char *name, char *buf, size_t max)
{
	char path[128];
	ssize_t n, got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/%s", root, pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)got < max - 1 && (n = read(fd, buf + got, max - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return got;
}

uint64_t top_proc_start_time(const char *root, int pid)
{
	char buf[1024], *p;
	unsigned long long start = 0;

	if (read_small(root, pid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	/* comm may hold ')' and spaces: the fields follow its last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &start) != 1)
		return 0;
	return start;
}

int top_proc_comm(const char *root, int pid, char *comm, size_t size)
{
	char buf[64];
	ssize_t n = read_small(root, pid, "comm", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (n > 0 && buf[n - 1] == '\n')	/* the file's own newline, not the name's */
		buf[--n] = 0;
	ss_name_clean(comm, size, buf, (size_t)n);
	return 0;
}

int top_procinfo_read(const char *root, int pid, struct top_procinfo *pi)
{
	struct proc_status st;
	char *cg;
	ssize_t n;
	int err, cpus;

	memset(pi, 0, sizeof(*pi));
	err = proc_read_status(root, pid, &st);
	if (err)
		return err;
	pi->start_time = st.starttime;
	ss_name_clean(pi->comm, sizeof(pi->comm), st.name, sizeof(st.name));
	cpus = proc_allowed_cpus(pid);
	pi->cpus_allowed = cpus > 0 ? (uint32_t)cpus : 0;
	cg = malloc(CGROUP_READ_MAX);
	if (!cg)
		return -ENOMEM;
	n = read_small(root, pid, "cgroup", cg, CGROUP_READ_MAX);
	if (n > 0)
		top_cgroup_names(cg, (size_t)n, pi->container, sizeof(pi->container), pi->unit,
				 sizeof(pi->unit));
	free(cg);
	return 0;
}

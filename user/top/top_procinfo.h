/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `spinscope top` names a process by, from /proc: its comm, its
 * start time (stat field 22: a reused pid is another process), the CPUs
 * its affinity allows, and its container and systemd unit from its
 * cgroup path. Every name is sanitised (common/names.h): a container's
 * cgroup path is written by whoever runs it.
 */
#ifndef SPINSCOPE_TOP_PROCINFO_H
#define SPINSCOPE_TOP_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include "top/top_model.h"

struct top_procinfo {
	uint64_t start_time;		/* clock ticks since boot */
	char comm[TOP_COMM_LEN];
	char container[TOP_CONTAINER_LEN];
	char unit[TOP_UNIT_LEN];
	uint32_t cpus_allowed;
};

/*
 * Names the container and unit of a process from the text of its
 * /proc/PID/cgroup (len bytes, not necessarily NUL-terminated): the
 * cgroup v2 line ("0::/path"), else the v1 line of name=systemd or of the
 * cpu controller. container: "k8s:pod/<uid>" (a Kubernetes pod, from
 * kubepods-...-pod<uid>.slice or /kubepods/.../pod<uid>/),
 * "docker:<12 hex>", "containerd:<12 hex>", "crio:<12 hex>",
 * "podman:<12 hex>", else "" (the host). unit: the innermost systemd
 * ".service" (else ".scope" that is no container's), "" when none. Both
 * sanitised, cut to their sizes.
 */
void top_cgroup_names(const char *text, size_t len, char *container, size_t csize, char *unit,
		      size_t usize);

/* Reads pid's figures under root ("/proc" or a fake tree): 0, or -errno
 * (-ENOENT, -ESRCH: it is gone). */
int top_procinfo_read(const char *root, int pid, struct top_procinfo *pi);

/* Just its name, sanitised (an exec renames a process): 0 or -errno. */
int top_proc_comm(const char *root, int pid, char *comm, size_t size);

/* Just its start time (stat field 22), or 0 when it is gone. */
uint64_t top_proc_start_time(const char *root, int pid);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading /proc: is the target traceable, its name and threads, and the
 * host's basic facts for the report header. Every function takes the proc
 * root ("/proc" or a fake tree in tests).
 */
#ifndef SPINSCOPE_PROCFS_H
#define SPINSCOPE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>

struct proc_status {
	char name[64];
	char state;		/* R, S, D, Z, ... */
	int tgid;
	int ppid;
	unsigned long flags;	/* /proc/PID/stat field 9 */
};

/* Parses /proc/PID/status and the flags of /proc/PID/stat. 0 or -errno. */
int proc_read_status(const char *root, int pid, struct proc_status *st);

/* Checks that pid (and tid, when non-zero) can be traced: exists, is a user
 * process, not a zombie, and pid is a process, not one of its threads.
 * Returns 0, or SS_EXIT_TARGET with a one-line reason in why. */
int proc_check_target(const char *root, int pid, int tid, struct proc_status *st,
		      char *why, size_t whylen);

/* Number of threads in /proc/PID/task, or -errno. */
int proc_count_threads(const char *root, int pid);

/* Does any mapping of the process have a path containing needle? (Used to
 * recognise a JVM by libjvm.so.) */
bool proc_maps_has(const char *root, int pid, const char *needle);

/* How many CPUs the process may run on (its affinity), or -errno. */
int proc_allowed_cpus(int pid);

/* Host facts for the report header. */
struct host_info {
	char hostname[256];
	char kernel[128];	/* uname -r */
	char machine[32];	/* uname -m */
	char cpu_model[128];
	int cpus;		/* online */
};

void host_info_read(const char *root, struct host_info *h);

#endif

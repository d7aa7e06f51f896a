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
	char name[64];		/* stat's comm, cleaned (names.h): "ab\ncd" is "ab?cd" */
	char state;		/* R, S, D, Z, ... */
	int tgid;
	int ppid;
	unsigned long flags;	/* /proc/PID/stat field 9 */
	unsigned long long starttime;	/* field 22: with the pid, says which process */
};

/* The most a /proc file is read to: each is read whole (a name in it may
 * hold a newline), and a status with 65536 groups is under half of this. */
#define PROC_FILE_MAX (1u << 20)

/* Parses /proc/PID/status and stat, each read whole. 0 or -errno. */
int proc_read_status(const char *root, int pid, struct proc_status *st);
/* The same through a folder of proc_open_pid_dir: fails (-ESRCH, -ENOENT)
 * once that process is gone, whoever has its pid now. */
int proc_read_status_at(int dir_fd, struct proc_status *st);

/* Opens the folder /proc/PID (O_DIRECTORY): it stays bound to that process,
 * and reads through it fail once the process is gone, even when its pid is
 * reused. With a starttime (proc_status), a folder of another process than
 * the one checked is refused (-ESRCH; in clock ticks, so a process started
 * in the same tick is not told apart: keep the folder instead). A fd, or
 * -errno. */
int proc_open_pid_dir(const char *root, int pid, unsigned long long starttime);

/* The name (comm) of thread tid of the process dir_fd (proc_open_pid_dir)
 * is, cleaned (names.h); a newline inside the name kept as '?'. 0 or
 * -errno (the process or the thread is gone). */
int proc_read_comm_at(int dir_fd, int tid, char *name, size_t size);

/* Can the target's mapped files be opened, to name its frames: through
 * /proc/PID/root (ptrace access: CAP_SYS_PTRACE for a target with more
 * capabilities than ours) or /proc/PID/map_files (CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE)? */
bool proc_files_openable(const char *root, int pid);

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

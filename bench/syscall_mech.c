// SPDX-License-Identifier: GPL-2.0
/*
 * What the syscall attach mechanism costs, apart from any work: loads the
 * do-nothing futex programs of syscall_mech.bpf.c on the per-syscall
 * tracepoints (tp) or the raw sys_enter/sys_exit ones (raw) and stays
 * attached until SIGINT or SIGTERM. It stands in for spinscope in the
 * benchmark harnesses (bench/overhead.sh -s, bench/light_host_cost.sh -m
 * LABEL=PATH): it takes their "-p PID" (other options ignored), says
 * ": tracing" on stderr once attached and prints {"totals": ...} at the end.
 *
 *   syscall_mech tp|raw -p PID [ignored...]
 *
 * The tracepoints need tracefs: it mounts one in a mount namespace of its
 * own, so the host's mounts stay as they were.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include "syscall_mech.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int private_tracefs(void)
{
	if (access("/sys/kernel/tracing/events", F_OK) == 0)
		return 0;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct syscall_mech *obj;
	bool raw;
	long pid = 0;
	int err;

	for (int i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-p"))
			pid = strtol(argv[i + 1], NULL, 10);
	if (argc < 2 || (strcmp(argv[1], "tp") && strcmp(argv[1], "raw")) || pid <= 0) {
		fprintf(stderr, "usage: syscall_mech tp|raw -p PID\n");
		return 2;
	}
	raw = !strcmp(argv[1], "raw");
	if (!raw && (err = private_tracefs())) {
		fprintf(stderr, "syscall_mech: cannot mount tracefs: %s\n", strerror(-err));
		return 1;
	}
	obj = syscall_mech__open();
	if (!obj) {
		fprintf(stderr, "syscall_mech: open failed\n");
		return 1;
	}
	obj->rodata->targ_tgid = (__u32)pid;
	bpf_program__set_autoload(raw ? obj->progs.tp_enter : obj->progs.raw_enter, false);
	bpf_program__set_autoload(raw ? obj->progs.tp_exit : obj->progs.raw_exit, false);
	err = syscall_mech__load(obj);
	if (!err)
		err = syscall_mech__attach(obj);
	if (err) {
		fprintf(stderr, "syscall_mech: load or attach failed: %s\n", strerror(-err));
		syscall_mech__destroy(obj);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "syscall_mech: tracing pid %ld with %s programs\n", pid, argv[1]);
	while (!stop)
		pause();
	printf("{\"totals\": {\"mechanism\": \"%s\", \"target_futex_events\": %llu}}\n", argv[1],
	       (unsigned long long)obj->bss->target_events);
	syscall_mech__destroy(obj);
	return 0;
}

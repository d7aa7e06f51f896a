/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists in the kernel's format ("0-3,6,8-9", as in
 * /sys/devices/system/cpu/online): which CPUs to open per-CPU perf events on.
 */
#ifndef SPINSCOPE_CPULIST_H
#define SPINSCOPE_CPULIST_H

#include <stddef.h>

#define CPULIST_DEFAULT_ONLINE "/sys/devices/system/cpu/online"
/* Largest CPU number accepted: a bound against hostile or corrupt input. */
#define CPULIST_MAX_CPU 65535

/* Parses list into cpus[] in ascending order, without duplicates. One
 * trailing newline is allowed. Returns the number of CPUs, -EINVAL on a
 * malformed list, -E2BIG when it names more than max CPUs. */
int cpulist__parse(const char *list, int *cpus, size_t max);

/* Reads and parses a CPU list file (path NULL: the online CPUs). Returns the
 * number of CPUs stored in *cpus (malloc'd, the caller frees) or -errno. */
int cpulist__read(const char *path, int **cpus);

/* The same into cpus[] (max entries, no allocation): for rereading the
 * online list during a trace. -E2BIG when it names more than max. */
int cpulist__read_into(const char *path, int *cpus, size_t max);

#endif

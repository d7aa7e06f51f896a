/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the whole host's CPUs did during a trace, from /proc/stat's "cpu"
 * line read at its start and at its end: how many CPUs' worth were busy,
 * and, less the target's own on-CPU time, how much other processes took.
 * The advice says that load instead of blaming the target for it.
 */
#ifndef SPINSCOPE_HOSTLOAD_H
#define SPINSCOPE_HOSTLOAD_H

#include <stdbool.h>

/* Cumulative ticks of all CPUs. */
struct host_ticks {
	unsigned long long busy;	/* user nice system irq softirq steal */
	unsigned long long total;	/* those, idle and iowait */
	bool ok;
};

struct host_load {
	bool measured;
	int cpus;			/* online CPUs */
	double busy_cpus;		/* CPUs' worth busy, all processes */
	double busy_other_cpus;		/* of that, not the target's */
};

/* Reads root/proc/stat ("" or NULL for /); t->ok false when unreadable. */
void host_ticks_read(const char *root, struct host_ticks *t);
/* The load between two reads, target_cpus being the target's own on-CPU
 * time over the same span (CPUs' worth). measured false when a read failed
 * or no time passed. */
void host_load_between(const struct host_ticks *a, const struct host_ticks *b, int cpus,
		       double target_cpus, struct host_load *out);

#endif

// SPDX-License-Identifier: GPL-2.0
/* hostload.c: the host's CPU load during a trace (hostload.h). */
#include <stdio.h>
#include <string.h>
#include "hostload.h"

void host_ticks_read(const char *root, struct host_ticks *t)
{
	unsigned long long v[8] = { 0 };
	char path[512];
	FILE *f;
	int n;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/proc/stat", root ? root : "");
	f = fopen(path, "re");
	if (!f)
		return;
	/* cpu  user nice system idle iowait irq softirq steal [guest ...]:
	 * guest time is inside user already. */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return;
	t->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	t->total = t->busy + v[3] + v[4];
	t->ok = true;
}

void host_load_between(const struct host_ticks *a, const struct host_ticks *b, int cpus,
		       double target_cpus, struct host_load *out)
{
	double share;

	memset(out, 0, sizeof(*out));
	if (!a->ok || !b->ok || b->total <= a->total || b->busy < a->busy || cpus <= 0)
		return;
	/* A share of all ticks, so that USER_HZ does not matter. */
	share = (double)(b->busy - a->busy) / (double)(b->total - a->total);
	out->measured = true;
	out->cpus = cpus;
	out->busy_cpus = share * cpus;
	out->busy_other_cpus = out->busy_cpus - target_cpus;
	if (out->busy_other_cpus < 0)	/* tick granularity */
		out->busy_other_cpus = 0;
}

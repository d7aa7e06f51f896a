// SPDX-License-Identifier: GPL-2.0
/*
 * The header of a refresh: the host's load and CPUs, how many processes
 * and threads it runs, and what tracing cost in the interval (the BPF
 * programs' run time, spinscope's own CPU and memory, drops).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "top_bpf.h"
#include "top_collect_priv.h"

static double self_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void top_hostinfo_start(struct top_host_state *h)
{
	memset(h, 0, sizeof(*h));
	host_ticks_read(NULL, &h->ticks);
	h->self_cpu_s = self_cpu_seconds();
	h->last_ns = top_mono_ns();
}

/* /proc/loadavg: the three loads and, after the slash, the host's threads. */
static void read_loadavg(struct top_host *out)
{
	FILE *f = fopen("/proc/loadavg", "re");
	unsigned running = 0, total = 0;

	if (!f)
		return;
	if (fscanf(f, "%lf %lf %lf %u/%u", &out->load1, &out->load5, &out->load15, &running, &total) == 5)
		out->threads = total;
	fclose(f);
}

static uint32_t count_processes(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint32_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] >= '1' && e->d_name[0] <= '9';
	closedir(d);
	return n;
}

static uint64_t self_rss_kib(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
}

void top_hostinfo_read(struct top_host_state *h, struct top_bpf *bpf, struct top_snapshot *snap)
{
	struct top_host *out = &snap->host;
	struct host_ticks ticks;
	struct host_load load;
	struct top_bpf_cost cost = top_bpf__cost(bpf);
	uint64_t drops, now = top_mono_ns();
	double cpu = self_cpu_seconds(), span = now > h->last_ns ? (double)(now - h->last_ns) / 1e9 : 0;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	out->ncpus = ncpus > 0 ? (uint32_t)ncpus : 1;
	read_loadavg(out);
	host_ticks_read(NULL, &ticks);
	host_load_between(&h->ticks, &ticks, (int)out->ncpus, 0, &load);
	out->busy_cpus = load.measured ? load.busy_cpus : 0;
	h->ticks = ticks;
	/* The window's run time and runs, at the window's rate over the
	 * interval (top_bpf__cost_begin(): statistics cost every program run). */
	if (cost.window_ns && snap->interval_ns) {
		double scale = (double)snap->interval_ns / (double)cost.window_ns;

		out->bpf_run_ns = (uint64_t)((double)cost.run_ns * scale + 0.5);
		out->bpf_runs = (uint64_t)((double)cost.runs * scale + 0.5);
	}
	drops = top_bpf__drops(bpf);
	out->drops = drops - h->drops;
	h->drops = drops;
	out->self_cpu = span > 0 ? (cpu - h->self_cpu_s) / span : 0;
	h->self_cpu_s = cpu;
	h->last_ns = now;
	out->self_rss_kib = self_rss_kib();
	out->processes = count_processes();
}

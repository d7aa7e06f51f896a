// SPDX-License-Identifier: GPL-2.0
/*
 * Measurement conditions (see calib_conditions.h): load, other processes'
 * CPU share, steal and CPU clock over an interval.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "calib_conditions.h"
#include "calib_util.h"

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Mean clock of the CPUs: cpufreq's current frequency where the kernel
 * exposes it (kHz), else /proc/cpuinfo's "cpu MHz" (x86; static on most
 * VMs). 0 when neither says. */
static double read_mhz(const char *root, bool *cpufreq)
{
	char buf[65536], rel[96];
	double sum = 0;
	int n = 0;

	*cpufreq = false;
	for (int cpu = 0; cpu < 4096; cpu++) {
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
		if (calib__read_text(root, rel, buf, sizeof(buf)))
			break;
		sum += strtod(buf, NULL) / 1000;
		n++;
	}
	if (n) {
		*cpufreq = true;
		return sum / n;
	}
	if (calib__read_text(root, "/proc/cpuinfo", buf, sizeof(buf)))
		return 0;
	for (char *p = strstr(buf, "cpu MHz"); p; p = strstr(p + 1, "cpu MHz")) {
		char *colon = strchr(p, ':');

		if (colon) {
			sum += strtod(colon + 1, NULL);
			n++;
		}
	}
	return n ? sum / n : 0;
}

int calib_busy__read(const char *root, struct calib_busy_sample *s)
{
	unsigned long long v[8] = { 0 };
	char buf[8192], *line;
	int err;

	memset(s, 0, sizeof(*s));
	s->self_ns = process_cpu_ns();
	if ((err = calib__read_text(root, "/proc/loadavg", buf, sizeof(buf))))
		return err;
	if (sscanf(buf, "%lf", &s->load1) != 1)
		return -EINVAL;
	if ((err = calib__read_text(root, "/proc/stat", buf, sizeof(buf))))
		return err;
	/* cpu  user nice system idle iowait irq softirq steal guest guest_nice;
	 * guest time is already counted in user, so it is not added again. */
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
		return -EINVAL;
	for (int i = 0; i < 8; i++)
		s->total += v[i];
	s->idle = v[3] + v[4];
	s->steal = v[7];
	line = strstr(buf, "\nprocs_running ");
	if (line)
		s->running = (int)strtol(line + strlen("\nprocs_running "), NULL, 10);
	s->cpu_mhz = read_mhz(root, &s->mhz_cpufreq);
	return 0;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void calib_busy__judge(const struct calib_busy_sample *before,
		       const struct calib_busy_sample *after, int ncpus_online,
		       struct calib_busy *out)
{
	uint64_t dt = delta(before->total, after->total);
	uint64_t busy_ticks = delta(before->total - before->idle - before->steal,
				    after->total - after->idle - after->steal);
	long hz = sysconf(_SC_CLK_TCK);
	double tick_ns = 1e9 / (double)(hz > 0 ? hz : 100), others;
	size_t len = 0;

	memset(out, 0, sizeof(*out));
	out->load1 = before->load1;
	out->load1_end = after->load1;
	out->steal_frac = dt ? (double)delta(before->steal, after->steal) / (double)dt : 0;
	out->cpu_mhz = after->cpu_mhz;
	out->mhz_source = after->cpu_mhz <= 0 ? "" : after->mhz_cpufreq ? "cpufreq" : "cpuinfo";
	if (ncpus_online < 1)
		ncpus_online = 1;
	/* Ticks are coarse (10 ms): below a tick per CPU there is no share. */
	if (dt < (uint64_t)ncpus_online) {
		out->others_share = -1;
	} else {
		others = ((double)busy_ticks * tick_ns -
			  (double)delta(before->self_ns, after->self_ns)) / ((double)dt * tick_ns);
		out->others_share = others < 0 ? 0 : others > 1 ? 1 : others;
	}
	if (out->others_share > CALIB_BUSY_OTHERS) {
		out->busy = true;
		len += (size_t)snprintf(out->why, sizeof(out->why),
				"other processes used %.0f%% of the %d CPUs (load average %.2f)",
				out->others_share * 100, ncpus_online, out->load1_end);
	}
	if (out->steal_frac > CALIB_BUSY_STEAL && len < sizeof(out->why)) {
		out->busy = true;
		snprintf(out->why + len, sizeof(out->why) - len, "%s%.0f%% of CPU time stolen by the hypervisor",
			 len ? ", " : "", out->steal_frac * 100);
	}
}

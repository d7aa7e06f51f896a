// SPDX-License-Identifier: GPL-2.0
/* Event names, attrs and perf_event_open() errors (see perf_events.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "common/errors.h"
#include "perf_events.h"

static const struct perf_event_spec specs[] = {
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 10007, "miss" },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 100003, "reference" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 2000003, "instruction" },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 2000003, "cycle" },
	/* Clocks count nanoseconds: 1001001 ns is a sample at about 999 Hz,
	 * off the 1000/250 Hz of the scheduler tick. */
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1001001, "ns" },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1001001, "ns" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 101, "fault" },
};

#define NR_SPECS (sizeof(specs) / sizeof(specs[0]))

const struct perf_event_spec *perf_event__lookup(const char *name)
{
	for (size_t i = 0; name && i < NR_SPECS; i++)
		if (!strcmp(name, specs[i].name))
			return &specs[i];
	return NULL;
}

const char *perf_event__names(char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < NR_SPECS && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", specs[i].name);

		if (n < 0)
			break;
		len += (size_t)n;
	}
	return buf;
}

int perf_event__parse_arg(const char *name, const struct perf_event_spec **out)
{
	char names[256];

	*out = perf_event__lookup(name);
	if (*out)
		return SS_EXIT_OK;
	return ss_error(SS_EXIT_USAGE, "unknown event '%s' for --event: use one of %s",
			name ? name : "", perf_event__names(names, sizeof(names)));
}

void perf_event__sampling_attr(const struct perf_event_spec *spec, __u64 period,
			       __u32 freq, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = spec->type;
	attr->config = spec->config;
	if (freq) {
		attr->freq = 1;
		attr->sample_freq = freq;
	} else {
		attr->sample_period = period ? period : spec->default_period;
	}
	attr->disabled = 1;
}

void perf_event__counting_attr(const struct perf_event_spec *spec,
			       struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = spec->type;
	attr->config = spec->config;
}

int perf_event__open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

bool perf_event__err_unsupported(int err)
{
	return err == ENOENT || err == EOPNOTSUPP;
}

static void read_paranoid(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	snprintf(buf, size, "unknown");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

const char *perf_event__explain(const struct perf_event_spec *spec, int err, int cpu,
				char *buf, size_t size)
{
	char paranoid[32];

	if (perf_event__err_unsupported(err) && spec->type == PERF_TYPE_HARDWARE) {
		snprintf(buf, size, "hardware event %s not supported on this host (no PMU, "
			 "e.g. in a VM): use --event cpu-clock for an on-CPU profile", spec->name);
	} else if (perf_event__err_unsupported(err)) {
		snprintf(buf, size, "event %s not supported by this kernel (%s)",
			 spec->name, strerror(err));
	} else if (err == EACCES || err == EPERM) {
		read_paranoid(paranoid, sizeof(paranoid));
		snprintf(buf, size, "no permission to open perf event %s: run as root or "
			 "with CAP_PERFMON (kernel.perf_event_paranoid is %s)", spec->name, paranoid);
	} else if (err == EMFILE || err == ENFILE) {
		snprintf(buf, size, "too many open files to open perf event %s on CPU %d: "
			 "raise the limit (ulimit -n)", spec->name, cpu);
	} else if (err == EBUSY) {
		snprintf(buf, size, "perf event %s is busy on CPU %d: another tool holds "
			 "the PMU exclusively", spec->name, cpu);
	} else {
		snprintf(buf, size, "cannot open perf event %s on CPU %d: %s",
			 spec->name, cpu, strerror(err));
	}
	return buf;
}

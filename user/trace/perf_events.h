/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf events spinscope can sample or count, by the names perf uses
 * (`--event cache-misses`), their perf_event_attr, and one sentence for
 * each way perf_event_open() refuses them (no PMU in a VM, permissions).
 */
#ifndef SPINSCOPE_PERF_EVENTS_H
#define SPINSCOPE_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct perf_event_spec {
	const char *name;		/* "cache-misses" */
	__u32 type;			/* PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE */
	__u64 config;			/* PERF_COUNT_HW_* / PERF_COUNT_SW_* */
	/* Events per sample when the user gives none: prime, so that the
	 * samples do not fall in step with a loop of the target. */
	__u64 default_period;
	const char *unit;		/* what one event is: "miss", "ns", ... */
};

#define PERF_EVENT_DEFAULT "cache-misses"

/* The spec of a name, or NULL when spinscope does not know it. */
const struct perf_event_spec *perf_event__lookup(const char *name);

/* Writes the known names, ", "-separated, into buf (for usage errors). */
const char *perf_event__names(char *buf, size_t size);

/* For the CLI: *out = the spec of name, or a usage error (SS_EXIT_USAGE,
 * printed through ss_error) that lists the valid names. */
int perf_event__parse_arg(const char *name, const struct perf_event_spec **out);

/* A sampling attr (freq > 0: samples per second, else one sample every
 * period events, 0 meaning the default), opened disabled: attaching the BPF
 * program enables it. */
void perf_event__sampling_attr(const struct perf_event_spec *spec, __u64 period,
			       __u32 freq, struct perf_event_attr *attr);
/* A counting attr, enabled at once. */
void perf_event__counting_attr(const struct perf_event_spec *spec,
			       struct perf_event_attr *attr);

/* perf_event_open(2), close-on-exec. Returns an fd or -errno. */
int perf_event__open(struct perf_event_attr *attr, pid_t pid, int cpu);

/* True when err (positive errno) from perf_event__open means the host has
 * no such event (no PMU, as in most VMs) rather than a failure. */
bool perf_event__err_unsupported(int err);

/* One sentence on why spec could not be opened on cpu (err: positive
 * errno), saying what to do; written into buf, which is returned. */
const char *perf_event__explain(const struct perf_event_spec *spec, int err, int cpu,
				char *buf, size_t size);

#endif

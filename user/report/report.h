/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything a trace report shows, gathered by the trace command, printed as
 * text (report_text.c) or JSON (report_json.c). The renderers take the model
 * (profile, stacks, samples) and the advisor's report and build every
 * section themselves. No libbpf here.
 */
#ifndef SPINSCOPE_REPORT_H
#define SPINSCOPE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "common/procfs.h"
#include "advisor/advisor.h"
#include "model/kernel_features.h"
#include "common/hostload.h"
#include "model/profile.h"
#include "model/samples_result.h"
#include "model/stacks.h"
#include "unwind.h"

#define SS_JSON_SCHEMA 1
#define SS_REPORT_TOP_FUTEXES 5
#define SS_REPORT_TOP_STACKS 3
#define SS_REPORT_TOP_YIELDS 5
#define SS_REPORT_TOP_SAMPLES 10

/* What symbolization could not do, so that the reader can trust the stacks
 * as far as they go. */
#define SS_REPORT_MAX_NOFP 8
struct ss_report_symbols {
	const char *no_fp[SS_REPORT_MAX_NOFP];	/* modules without frame pointers */
	bool no_fp_partial[SS_REPORT_MAX_NOFP];	/* ... only some functions */
	size_t nno_fp;
	__u64 stacks, stacks_truncated, stacks_unnamed_end;
	__u64 resolved, module_only, unknown;
	bool unwind_on;				/* stacks unwound through .eh_frame */
	__u64 unwind[SS_UNWIND_NSTATS];		/* what the unwinder did */
};

struct ss_report {
	const struct host_info *host;
	int pid;
	int tid;			/* -t, 0 if all */
	char comm[64];
	bool exited;			/* target exited during the trace */
	__u64 duration_ns;
	__u64 end_unix_ns;		/* wall clock at the trace's end; 0: unknown */
	const struct ss_profile *profile;
	const struct ss_stacks *stacks;
	/* The samples' stacks by their own ids (recordings keep them so that
	 * their folded lines and pprof come back whole); NULL: not kept. */
	const struct ss_stacks *sample_stacks;
	bool futex_waitv_traced;	/* optional tracepoints found */
	bool futex2_traced;
	bool sched_btf;			/* scheduler traced through tp_btf */
	bool light;			/* --light: scheduler events only */
	bool brief;			/* text: the header and the verdict only */
	bool fentry;			/* futex/yield through fentry/fexit */
	struct ss_report_symbols symbols;
	/* What the sampler saw (NULL: no samples section) and how to name
	 * its addresses (name NULL: as hex). */
	const struct samples_result *samples;
	samples_symbolize_fn name;
	void *name_arg;
	const struct adv_report *advice;	/* NULL: no advice (JSON: "advice": []) */
	const struct kernel_features *kernel_features;	/* NULL: not probed */
	/* What a recording keeps besides (report/recording_json.c); each may
	 * be NULL. The advisor's input holds what the model does not: the
	 * target's CPUs, whether it is a JVM, the samples' hot code. */
	const struct adv_profile *advisor_input;
	json_object *calibration;	/* {present, matches, ..., results} */
	json_object *fingerprint;	/* the host's, as calibrate stores it */
	json_object *intervals;		/* the -i series, oldest first */
	struct host_load host_load;	/* the host's CPUs during the trace */
	/* The target's language runtime, as syms/runtime_detect.h names it
	 * ("rust", "jvm", ...) while it ran; NULL: not detected. */
	const char *runtime;
	/* What asking a JVM for its perf map did, one line (syms/jvm_perfmap.h);
	 * NULL: not asked (no JVM, --no-jvm-map). */
	const char *jvm_map;
	/* CPython's threads' Python functions as polled from its frames
	 * (syms/pyframes.h), or why not read; NULL: not tried. python_read:
	 * the line names functions. */
	const char *python_functions;
	bool python_read;
};

/* "light" (--light), "fentry" or "syscall_tracepoints": JSON
 * traced.mechanism. */
const char *report_mechanism(const struct ss_report *r);
/* What that mechanism costs the host's other processes while attached:
 * JSON traced.mechanism_cost and the text header. */
const char *report_mechanism_cost(const struct ss_report *r);
/* What --light cannot see, NULL-terminated: stated in both reports. */
extern const char *const ss_light_blind_spots[];

/* Text report: the trace's sections, then the samples' and the advice's
 * when the report has them. */
void report_print_text(const struct ss_report *r, FILE *out);
/* One interval's summary line block; p is a profile_diff() result. */
void report_print_interval_text(const struct ss_profile *p, double t_s, FILE *out);

/* Full JSON document (caller puts it). */
json_object *report_to_json(const struct ss_report *r);
/* One interval as a JSON object; with_threads false leaves out its
 * "threads" array (the recording's series keeps the totals only). */
json_object *report_interval_json(const struct ss_profile *p, double t_s, bool with_threads);

/* A log2 histogram of nanoseconds in the style of bcc's print_log2_hist. */
void print_log2_hist_ns(const __u64 *slots, int nslots, const char *indent, FILE *out);
/* "1.23 ms", "456 us", ... */
const char *fmt_ns(__u64 ns, char *buf, size_t len);

/* {"fentry": false, "tp_btf": true, ...}: one key per probed feature. */
json_object *report_kernel_features_json(const struct kernel_features *f);

#endif

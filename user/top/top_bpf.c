// SPDX-License-Identifier: GPL-2.0
/*
 * Open -> configure -> load -> attach of bpf/top.bpf.c, each checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/cpulist.h"
#include "common/errors.h"
#include "trace/map_read.h"
#include "trace/perf_events.h"
#include "trace/kfeatures.h"
#include "trace/trace_object.h"
#include "top.h"
#include "top_bpf.h"

#define TOP_SCHED_LINKS 4	/* sched_switch, sched_waking, sched_wakeup_new, sched_process_exit */

struct top_bpf {
	struct top *skel;
	struct bpf_link *links[TOP_SCHED_LINKS];
	int nlinks;
	struct bpf_link **sample_links;	/* one per sampled CPU */
	int *sample_fds;
	int nsample;
	int stats_fd;			/* BPF_ENABLE_STATS: run time kept while open */
	uint64_t stats_t0_ns, stats_run0, stats_runs0;	/* when it opened, and the totals then */
	struct top_bpf_cost cost;	/* the last window's */
	bool sampling;
	int verbose;
};

/* top reads its threads' user registers: bpf_task_pt_regs (5.15+). */
static int check_kernel(char *why, size_t whylen)
{
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_task_pt_regs, NULL) > 0 &&
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_get_current_task_btf,
				    NULL) > 0)
		return 0;
	snprintf(why, whylen, "spinscope top needs BPF's bpf_task_pt_regs (Linux 5.15 or later), which this kernel lacks: trace one process with spinscope -p PID instead");
	return SS_EXIT_KERNEL;
}

/* tp_btf where the running kernel has its own BTF (plain loads of the
 * task's fields), else raw_tp; the kfunc build where it has the kfunc;
 * prev's state from sched_switch's argument where it has one. */
static void configure(struct top_bpf *t, bool btf, bool switch_state)
{
	struct top *s = t->skel;

	bpf_program__set_autoload(btf ? s->progs.top_switch_raw : s->progs.top_switch_btf, false);
	bpf_program__set_autoload(btf ? s->progs.top_waking_raw : s->progs.top_waking_btf, false);
	bpf_program__set_autoload(btf ? s->progs.top_wakeup_new_raw : s->progs.top_wakeup_new_btf, false);
	bpf_program__set_autoload(s->progs.top_sample, t->sampling);
	s->rodata->targ_sampling = t->sampling;
	s->rodata->targ_switch_state = switch_state;
}

struct top_bpf *top_bpf__open(const struct top_bpf_opts *o, int *code, char *why, size_t whylen)
{
	struct top_bpf *t = calloc(1, sizeof(*t));
	struct btf *kernel;
	bool kfuncs, btf, switch_state;
	int err;

	*code = SS_EXIT_RESOURCES;
	if (!t) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	t->stats_fd = -1;
	t->sampling = o->sampling;
	t->verbose = o->verbose;
	*code = check_kernel(why, whylen);
	if (*code)
		goto fail;
	kernel = btf__load_vmlinux_btf();
	kfuncs = trace_object_kfuncs(kernel);
	switch_state = kernel_switch_passes_state(kernel);
	btf = kernel != NULL;
	btf__free(kernel);
	t->skel = top_object_open(NULL, kfuncs);
	if (!t->skel) {
		*code = SS_EXIT_BPF;
		snprintf(why, whylen, "cannot open the top BPF object: %s", strerror(errno));
		goto fail;
	}
	configure(t, btf, switch_state);
	err = top__load(t->skel);
	if (err) {
		*code = -err == EPERM ? SS_EXIT_PERM : SS_EXIT_BPF;
		snprintf(why, whylen, "cannot load the top BPF programs: %s%s", strerror(-err),
			 -err == EPERM ? ": run as root (or with CAP_BPF and CAP_PERFMON)"
			 : t->verbose ? "" : " (run with -v for libbpf's log)");
		goto fail;
	}
	*code = 0;
	return t;
fail:
	top_bpf__free(t);
	return NULL;
}

/* The cpu-clock events of every online CPU, the sample program on each. */
static int attach_sampling(struct top_bpf *t, uint32_t hz, char *why, size_t whylen)
{
	const struct perf_event_spec *spec = perf_event__lookup("cpu-clock");
	struct perf_event_attr attr;
	int *cpus = NULL, n = cpulist__read(CPULIST_DEFAULT_ONLINE, &cpus);

	if (n <= 0 || !spec) {
		free(cpus);
		snprintf(why, whylen, "cannot read the online CPUs (%s) for --sample", CPULIST_DEFAULT_ONLINE);
		return SS_EXIT_ERROR;
	}
	t->sample_links = calloc((size_t)n, sizeof(*t->sample_links));
	t->sample_fds = calloc((size_t)n, sizeof(*t->sample_fds));
	if (!t->sample_links || !t->sample_fds) {
		free(cpus);
		snprintf(why, whylen, "out of memory");
		return SS_EXIT_RESOURCES;
	}
	perf_event__sampling_attr(spec, 0, hz ? hz : TOP_SAMPLE_HZ, &attr);
	for (int i = 0; i < n; i++) {
		int fd = perf_event__open(&attr, -1, cpus[i]);
		char buf[256];

		if (fd < 0) {
			snprintf(why, whylen, "--sample: %s",
				 perf_event__explain(spec, -fd, cpus[i], buf, sizeof(buf)));
			free(cpus);
			return -fd == EACCES || -fd == EPERM ? SS_EXIT_PERM : SS_EXIT_ERROR;
		}
		t->sample_fds[t->nsample] = fd;
		t->sample_links[t->nsample] = bpf_program__attach_perf_event(t->skel->progs.top_sample, fd);
		if (!t->sample_links[t->nsample]) {
			close(fd);
			snprintf(why, whylen, "cannot attach the sampling program to CPU %d's cpu-clock event: %s",
				 cpus[i], strerror(errno));
			free(cpus);
			return SS_EXIT_BPF;
		}
		t->nsample++;
	}
	free(cpus);
	return 0;
}

int top_bpf__attach(struct top_bpf *t, char *why, size_t whylen)
{
	struct bpf_program *prog;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns()'s clock */
	t->skel->bss->start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog) || prog == t->skel->progs.top_sample)
			continue;
		if (t->nlinks == TOP_SCHED_LINKS) {
			snprintf(why, whylen, "internal error: more than %d top programs", TOP_SCHED_LINKS);
			return SS_EXIT_ERROR;
		}
		link = bpf_program__attach(prog);
		if (!link) {
			snprintf(why, whylen, "the kernel refused to attach BPF program %s (%s): %s",
				 bpf_program__name(prog), bpf_program__section_name(prog), strerror(errno));
			return errno == EPERM ? SS_EXIT_PERM : SS_EXIT_BPF;
		}
		t->links[t->nlinks++] = link;
	}
	return t->sampling ? attach_sampling(t, 0, why, whylen) : 0;
}

int top_bpf__slots_fd(const struct top_bpf *t)
{
	return bpf_map__fd(t->skel->maps.top_slots);
}

int top_bpf__spill_fd(const struct top_bpf *t)
{
	return bpf_map__fd(t->skel->maps.top_spill);
}

int top_bpf__words_fd(const struct top_bpf *t)
{
	return bpf_map__fd(t->skel->maps.top_words);
}

uint64_t top_bpf__drops(const struct top_bpf *t)
{
	__u64 sums[TOP_DROPS], total = 0;

	if (map_sum_percpu(bpf_map__fd(t->skel->maps.top_drops), TOP_DROPS, sums))
		return 0;
	for (int k = 0; k < TOP_DROPS; k++)
		total += sums[k];
	return total;
}

static void run_stats(const struct top_bpf *t, uint64_t *run_ns, uint64_t *runs)
{
	struct bpf_program *prog;

	*run_ns = *runs = 0;
	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_program__autoload(prog) ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		*run_ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
}

/*
 * The tracing cost is measured over a window, not the whole run: while
 * the kernel keeps BPF run-time statistics it reads the clock before and
 * after every run of every BPF program on the host, its own and other
 * tools', and on a guest whose clock is kvm-clock one read costs about
 * 170 ns, more than top's programs themselves (docs/BENCHMARKS.md). The
 * statistics fd stays open for the window only (Linux 5.8+, CAP_SYS_ADMIN;
 * without it, or where kernel.bpf_stats_enabled is already on, the totals
 * are read all the same and the window's difference is what they say).
 */
void top_bpf__cost_begin(struct top_bpf *t, uint64_t now_ns)
{
	if (t->stats_fd < 0)
		t->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	run_stats(t, &t->stats_run0, &t->stats_runs0);
	t->stats_t0_ns = now_ns;
}

void top_bpf__cost_end(struct top_bpf *t, uint64_t now_ns)
{
	uint64_t run_ns, runs;

	run_stats(t, &run_ns, &runs);
	if (t->stats_fd >= 0)
		close(t->stats_fd);
	t->stats_fd = -1;
	t->cost.window_ns = now_ns > t->stats_t0_ns ? now_ns - t->stats_t0_ns : 0;
	t->cost.run_ns = run_ns - t->stats_run0;
	t->cost.runs = runs - t->stats_runs0;
}

struct top_bpf_cost top_bpf__cost(const struct top_bpf *t)
{
	return t->cost;
}

bool top_bpf__sampling(const struct top_bpf *t)
{
	return t->sampling;
}

void top_bpf__detach(struct top_bpf *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	t->nlinks = 0;
	for (int i = 0; i < t->nsample; i++) {
		bpf_link__destroy(t->sample_links[i]);
		close(t->sample_fds[i]);
	}
	t->nsample = 0;
}

void top_bpf__free(struct top_bpf *t)
{
	if (!t)
		return;
	top_bpf__detach(t);
	if (t->stats_fd >= 0)
		close(t->stats_fd);
	top__destroy(t->skel);
	free(t->sample_links);
	free(t->sample_fds);
	free(t);
}

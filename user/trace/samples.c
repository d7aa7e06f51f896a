// SPDX-License-Identifier: GPL-2.0
/*
 * Life cycle of the sampling BPF programs (see samples.h): perf events per
 * online CPU, the skeleton, attach, read back into plain arrays, detach.
 * The per-CPU arrays are indexed by CPU number, so that a CPU coming online
 * during the trace (samples__update_cpus) gets its events in place.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/sort.h"
#include "common/cpulist.h"
#include "map_read.h"
#include "perf_events.h"
#include "samples.h"
#include "unwind_maps.h"
#include "sampling.skel.h"

#define DEFAULT_MAX_ENTRIES 4096
#define DEFAULT_MAX_STACKS 2048
#define DEFAULT_MAX_THREADS 4096
#define DEFAULT_REGS_RING (4u << 20)
#define DEFAULT_MAX_REGS (1u << 20)

static const char *const default_counters[SS_SAMPLE_COUNTERS] = {
	"cache-misses", "cache-references", "instructions",
};

struct samples {
	struct sampling *skel;
	struct unwind_maps unwind;
	const struct perf_event_spec *spec;
	const struct perf_event_spec *counter_spec[SS_SAMPLE_COUNTERS];
	pid_t pid, tid;
	__u64 period;
	__u32 freq;
	bool available;
	char reason[256];
	bool counters_available;
	char counters_reason[256];
	int ncpus_possible;
	int *sample_fds;		/* per possible CPU, -1 when none */
	struct bpf_link **links;	/* per possible CPU */
	int *counter_fds;		/* ncpus_possible * SS_SAMPLE_COUNTERS */
	__u8 *cpu_seen;			/* per possible CPU: enum cpu_seen bits */
	int *online;			/* the online list, reread by updates */
	struct bpf_link *switch_link;
	bool started;
	char online_path[256];
	/* Register samples taken from the ring so far (opts.regs). */
	struct ring_buffer *ring;
	struct ss_regs_sample *regs;
	size_t nr_regs, cap_regs, max_regs;
	__u64 regs_lost;
};

/* What the online list said of a CPU at open and at each update. */
enum cpu_seen {
	CPU_SEEN_ONLINE = 1,
	CPU_SEEN_OFFLINE = 2,
	CPU_SAMPLED = 4,		/* had a sampling event */
};

static void close_fds(int *fds, int n)
{
	for (int i = 0; fds && i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

static int *new_fds(int n)
{
	int *fds = malloc(sizeof(*fds) * (size_t)(n ? n : 1));

	for (int i = 0; fds && i < n; i++)
		fds[i] = -1;
	return fds;
}

static int open_sampling_cpu(struct samples *s, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	perf_event__sampling_attr(s->spec, s->period, s->freq, &attr);
	fd = perf_event__open(&attr, -1, cpu);
	if (fd >= 0) {
		s->sample_fds[cpu] = fd;
		s->cpu_seen[cpu] |= CPU_SAMPLED;
	}
	return fd < 0 ? fd : 0;
}

/* Opens the sampling event on every online CPU. A CPU that went offline
 * since the list was read (ENODEV) is skipped; any other failure makes
 * sampling unavailable, with the reason. */
static int open_sampling(struct samples *s, const int *cpus, int n)
{
	int opened = 0;

	for (int i = 0; i < n; i++) {
		int err = open_sampling_cpu(s, cpus[i]);

		if (err == -ENODEV)
			continue;
		if (err) {
			perf_event__explain(s->spec, -err, cpus[i], s->reason, sizeof(s->reason));
			close_fds(s->sample_fds, s->ncpus_possible);
			return 0;
		}
		opened++;
	}
	if (!opened) {
		snprintf(s->reason, sizeof(s->reason), "no online CPU could be sampled");
		return 0;
	}
	s->available = true;
	return opened;
}

static void explain_counter(struct samples *s, const struct perf_event_spec *spec, int cpu,
			    int err)
{
	/* Not the sampling advice (--event cpu-clock): no event gives a miss
	 * ratio on such a host. */
	if (perf_event__err_unsupported(err) && spec->type == PERF_TYPE_HARDWARE)
		snprintf(s->counters_reason, sizeof(s->counters_reason),
			 "hardware event %s not supported on this host (no PMU, e.g. in a VM)",
			 spec->name);
	else
		perf_event__explain(spec, err, cpu, s->counters_reason, sizeof(s->counters_reason));
}

/* The counting events of one CPU, all or none: 0 or -errno (*failed: the
 * spec that failed). */
static int open_counters_cpu(struct samples *s, int cpu, int *failed)
{
	for (int k = 0; k < SS_SAMPLE_COUNTERS; k++) {
		struct perf_event_attr attr;
		int fd;

		perf_event__counting_attr(s->counter_spec[k], &attr);
		fd = perf_event__open(&attr, -1, cpu);
		if (fd < 0) {
			*failed = k;
			close_fds(s->counter_fds + cpu * SS_SAMPLE_COUNTERS, SS_SAMPLE_COUNTERS);
			return fd;
		}
		s->counter_fds[cpu * SS_SAMPLE_COUNTERS + k] = fd;
	}
	return 0;
}

/* Opens the counting events; all of them or none. */
static void open_counters(struct samples *s, const struct samples_opts *o, const int *cpus,
			  int n)
{
	for (int k = 0; k < SS_SAMPLE_COUNTERS; k++) {
		const char *name = o->counter_events[k] ? o->counter_events[k] : default_counters[k];

		s->counter_spec[k] = perf_event__lookup(name);
		if (!s->counter_spec[k]) {
			snprintf(s->counters_reason, sizeof(s->counters_reason),
				 "unknown counter event '%s'", name);
			return;
		}
	}
	if (o->no_counters) {
		snprintf(s->counters_reason, sizeof(s->counters_reason), "not requested");
		return;
	}
	for (int i = 0; i < n; i++) {
		int k = 0, err = open_counters_cpu(s, cpus[i], &k);

		if (err == -ENODEV)
			continue;
		if (err) {
			explain_counter(s, s->counter_spec[k], cpus[i], -err);
			close_fds(s->counter_fds, s->ncpus_possible * SS_SAMPLE_COUNTERS);
			return;
		}
	}
	s->counters_available = true;
}

/* Frees s and explains the failure in why: "<what>: <strerror>". */
__attribute__((format(printf, 5, 6)))
static struct samples *fail(struct samples *s, int err, char *why, size_t whylen,
			    const char *fmt, ...)
{
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	len = strlen(why);
	if (len < whylen)
		snprintf(why + len, whylen - len, ": %s", strerror(err));
	samples__free(s);
	errno = err;
	return NULL;
}

/* Puts a CPU's counting events where the BPF program reads them. */
static int publish_counters(struct samples *s, int cpu)
{
	for (int k = 0; k < SS_SAMPLE_COUNTERS; k++) {
		__u32 slot = (__u32)(cpu * SS_SAMPLE_COUNTERS + k);
		int fd = s->counter_fds[slot];

		if (fd >= 0 && bpf_map__update_elem(s->skel->maps.counters, &slot, sizeof(slot),
						    &fd, sizeof(fd), BPF_ANY))
			return -errno;
	}
	return 0;
}

/* The sampling program loaded: the one that unwinds, or the plain one. */
static struct bpf_program *sample_prog(const struct samples *s)
{
	return s->unwind.on ? s->skel->progs.ss_sample_unw : s->skel->progs.ss_sample;
}

/* A timer's samples interrupt where the thread is: their registers are
 * those of the instruction sampled. */
static bool clock_event(const struct perf_event_spec *spec)
{
	return spec->type == PERF_TYPE_SOFTWARE &&
	       (spec->config == PERF_COUNT_SW_CPU_CLOCK || spec->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* One register sample from the ring; beyond max_regs only counted. */
static int take_regs(void *ctx, void *data, size_t size)
{
	struct samples *s = ctx;

	if (size < sizeof(struct ss_regs_sample))
		return 0;	/* cannot happen: one record type */
	if (s->nr_regs == s->cap_regs) {
		size_t ncap = s->cap_regs ? s->cap_regs * 2 : 4096;
		struct ss_regs_sample *t;

		if (s->nr_regs >= s->max_regs ||
		    !(t = realloc(s->regs, ncap * sizeof(*t)))) {
			s->regs_lost++;
			return 0;
		}
		s->regs = t;
		s->cap_regs = ncap;
	}
	memcpy(&s->regs[s->nr_regs++], data, sizeof(*s->regs));
	return 0;
}

long samples__drain(struct samples *s)
{
	size_t before;
	int n;

	if (!s || !s->ring)
		return 0;
	before = s->nr_regs;
	n = ring_buffer__consume(s->ring);
	if (n < 0)
		return n;
	return (long)(s->nr_regs - before);
}

static int load(struct samples *s, const struct samples_opts *o)
{
	struct sampling *skel;
	int err;

	skel = s->skel = sampling__open();
	if (!skel)
		return -errno;
	skel->rodata->targ_tgid = (__u32)s->pid;
	skel->rodata->targ_tid = (__u32)s->tid;
	bpf_map__set_max_entries(skel->maps.counts, o->max_entries ? o->max_entries : DEFAULT_MAX_ENTRIES);
	bpf_map__set_max_entries(skel->maps.stacks, o->max_stacks ? o->max_stacks : DEFAULT_MAX_STACKS);
	bpf_map__set_max_entries(skel->maps.thread_counters,
				 o->max_threads ? o->max_threads : DEFAULT_MAX_THREADS);
	bpf_map__set_max_entries(skel->maps.counters,
				 (__u32)s->ncpus_possible * SS_SAMPLE_COUNTERS);
	/* Load only what has events to run on. */
	bpf_program__set_autoload(skel->progs.ss_sample, s->available);
	bpf_program__set_autoload(skel->progs.ss_count_switch, s->counters_available);
	bpf_program__set_autoload(skel->progs.ss_sample_unw, false);
	skel->rodata->targ_regs = o->regs && s->available && clock_event(s->spec);
	if (skel->rodata->targ_regs)
		bpf_map__set_max_entries(skel->maps.regs_ring,
					 o->regs_ring_bytes ? o->regs_ring_bytes : DEFAULT_REGS_RING);
	if (s->available)
		unwind_maps__prepare(&s->unwind, skel->obj, skel->maps.stacks,
				     (__u32 *)&skel->rodata->targ_unwind_rows, o->unwind,
				     o->max_stacks ? o->max_stacks : DEFAULT_MAX_STACKS, 0);
	err = sampling__load(skel);
	if (err)
		return err;
	/* A table not loaded leaves frame-pointer stacks, as without one. */
	unwind_maps__fill(&s->unwind);
	for (int cpu = 0; s->counters_available && cpu < s->ncpus_possible; cpu++)
		if ((err = publish_counters(s, cpu)))
			return err;
	if (skel->rodata->targ_regs) {
		s->max_regs = o->max_regs ? o->max_regs : DEFAULT_MAX_REGS;
		s->ring = ring_buffer__new(bpf_map__fd(skel->maps.regs_ring), take_regs, s, NULL);
		if (!s->ring)
			return -errno;
	}
	return 0;
}

/* Notes which possible CPUs the online list names now, and which not. */
static void mark_online(struct samples *s, const int *cpus, int n)
{
	for (int cpu = 0, i = 0; cpu < s->ncpus_possible; cpu++) {
		bool online = i < n && cpus[i] == cpu;

		s->cpu_seen[cpu] |= online ? CPU_SEEN_ONLINE : CPU_SEEN_OFFLINE;
		i += online;
	}
}

/* A CPU that went offline: its events would not come back with it. */
static void cpu_down(struct samples *s, int cpu)
{
	int *counters = s->counter_fds + cpu * SS_SAMPLE_COUNTERS;

	bpf_link__destroy(s->links[cpu]);
	s->links[cpu] = NULL;
	close_fds(s->sample_fds + cpu, 1);
	for (int k = 0; k < SS_SAMPLE_COUNTERS && s->skel; k++) {
		__u32 slot = (__u32)(cpu * SS_SAMPLE_COUNTERS + k);

		if (counters[k] >= 0)
			bpf_map__delete_elem(s->skel->maps.counters, &slot, sizeof(slot), 0);
	}
	close_fds(counters, SS_SAMPLE_COUNTERS);
}

/* A CPU that came online: the events the others have, attached when the
 * trace has started. A failure leaves it for the next update. */
static void cpu_up(struct samples *s, int cpu)
{
	__u8 seen = s->cpu_seen[cpu];
	int k;

	if (s->available && s->sample_fds[cpu] < 0 && !open_sampling_cpu(s, cpu) && s->started) {
		s->links[cpu] = bpf_program__attach_perf_event(sample_prog(s),
							       s->sample_fds[cpu]);
		if (!s->links[cpu]) {
			close_fds(s->sample_fds + cpu, 1);
			s->cpu_seen[cpu] = seen;	/* not sampled after all */
		}
	}
	if (s->counters_available && s->counter_fds[cpu * SS_SAMPLE_COUNTERS] < 0 &&
	    !open_counters_cpu(s, cpu, &k) && publish_counters(s, cpu))
		close_fds(s->counter_fds + cpu * SS_SAMPLE_COUNTERS, SS_SAMPLE_COUNTERS);
}

struct samples *samples__open(const struct samples_opts *o, char *why, size_t whylen)
{
	const char *online = o && o->online_path ? o->online_path : CPULIST_DEFAULT_ONLINE;
	struct samples *s;
	int n, err, *cpus = NULL;

	if (!o || o->pid <= 0 || o->tid < 0) {
		snprintf(why, whylen, "sampling needs a target pid");
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	s->pid = o->pid;
	s->tid = o->tid;
	snprintf(s->online_path, sizeof(s->online_path), "%s", online);
	s->period = o->period;
	s->freq = o->freq;
	s->spec = perf_event__lookup(o->event ? o->event : PERF_EVENT_DEFAULT);
	if (!s->spec) {
		char names[256];

		snprintf(why, whylen, "unknown event '%s': use one of %s", o->event,
			 perf_event__names(names, sizeof(names)));
		samples__free(s);
		errno = EINVAL;
		return NULL;
	}
	if (!s->period && !s->freq)
		s->period = s->spec->default_period;
	s->ncpus_possible = libbpf_num_possible_cpus();
	if (s->ncpus_possible <= 0)
		return fail(s, -s->ncpus_possible, why, whylen, "cannot count the possible CPUs");
	n = cpulist__read(o->online_path, &cpus);
	if (n < 0)
		return fail(s, -n, why, whylen, "cannot read the online CPUs from %s", online);
	s->sample_fds = new_fds(s->ncpus_possible);
	s->counter_fds = new_fds(s->ncpus_possible * SS_SAMPLE_COUNTERS);
	s->links = calloc((size_t)s->ncpus_possible, sizeof(*s->links));
	s->cpu_seen = calloc((size_t)s->ncpus_possible, sizeof(*s->cpu_seen));
	s->online = calloc((size_t)s->ncpus_possible, sizeof(*s->online));
	if (!s->sample_fds || !s->counter_fds || !s->links || !s->cpu_seen || !s->online) {
		free(cpus);
		return fail(s, ENOMEM, why, whylen, "cannot prepare sampling");
	}
	for (int i = 0; i < n; i++)
		if (cpus[i] >= s->ncpus_possible) {
			int cpu = cpus[i];

			free(cpus);
			return fail(s, EINVAL, why, whylen, "%s names CPU %d, which is not possible",
				    online, cpu);
		}
	mark_online(s, cpus, n);
	open_sampling(s, cpus, n);
	open_counters(s, o, cpus, n);
	free(cpus);
	if (!s->available && !s->counters_available)
		return s;	/* nothing to load: reported as unavailable */
	err = load(s, o);
	if (err)
		return fail(s, -err, why, whylen, "cannot load the BPF program sampling %s",
			    s->spec->name);
	return s;
}

int samples__update_cpus(struct samples *s)
{
	int n, *cpus, changed = 0;

	if (!s || !s->skel)
		return 0;
	cpus = s->online;
	n = cpulist__read_into(s->online_path, cpus, (size_t)s->ncpus_possible);
	if (n < 0)
		return n;
	mark_online(s, cpus, n);
	for (int cpu = 0, i = 0; cpu < s->ncpus_possible; cpu++) {
		bool online = i < n && cpus[i] == cpu;
		bool has = s->sample_fds[cpu] >= 0 || s->counter_fds[cpu * SS_SAMPLE_COUNTERS] >= 0;

		i += online;
		if (online && !has) {
			cpu_up(s, cpu);
			changed += s->sample_fds[cpu] >= 0 || s->counter_fds[cpu * SS_SAMPLE_COUNTERS] >= 0;
		} else if (!online && has) {
			cpu_down(s, cpu);
			changed++;
		}
	}
	return changed;
}

int samples__start(struct samples *s)
{
	int err;

	if (!s || !s->skel)
		return 0;	/* unavailable: nothing to attach */
	s->started = true;
	for (int i = 0; s->available && i < s->ncpus_possible; i++) {
		if (s->sample_fds[i] < 0 || s->links[i])
			continue;
		/* Attaching also enables the (disabled) event. */
		s->links[i] = bpf_program__attach_perf_event(sample_prog(s), s->sample_fds[i]);
		if (!s->links[i]) {
			err = -errno;
			samples__stop(s);
			return err;
		}
	}
	if (s->counters_available && !s->switch_link) {
		s->switch_link = bpf_program__attach(s->skel->progs.ss_count_switch);
		if (!s->switch_link) {
			err = -errno;
			samples__stop(s);
			return err;
		}
	}
	return 0;
}

void samples__stop(struct samples *s)
{
	if (!s)
		return;
	s->started = false;
	for (int i = 0; s->links && i < s->ncpus_possible; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
		/* Without its program, an enabled event would still interrupt
		 * the CPU at every period for nothing. */
		if (s->sample_fds[i] >= 0)
			ioctl(s->sample_fds[i], PERF_EVENT_IOC_DISABLE, 0);
	}
	bpf_link__destroy(s->switch_link);
	s->switch_link = NULL;
}

bool samples__add_unwind_stats(const struct samples *s, __u64 sums[SS_UNWIND_NSTATS])
{
	__u64 mine[SS_UNWIND_NSTATS];

	if (!s || unwind_maps__stats(&s->unwind, mine) <= 0)
		return false;
	for (int k = 0; k < SS_UNWIND_NSTATS; k++)
		sums[k] += mine[k];
	return true;
}

bool samples__available(const struct samples *s)
{
	return s && s->available;
}

void samples__free(struct samples *s)
{
	if (!s)
		return;
	samples__stop(s);
	close_fds(s->sample_fds, s->ncpus_possible);
	close_fds(s->counter_fds, s->ncpus_possible * SS_SAMPLE_COUNTERS);
	ring_buffer__free(s->ring);
	sampling__destroy(s->skel);
	unwind_maps__free(&s->unwind);
	free(s->regs);
	free(s->links);
	free(s->sample_fds);
	free(s->counter_fds);
	free(s->cpu_seen);
	free(s->online);
	free(s);
}

static int cmp_stack_id(const void *a, const void *b)
{
	const struct samples_stack *x = a, *y = b;

	return (x->stack_id > y->stack_id) - (x->stack_id < y->stack_id);
}

static int cmp_stack_count(const void *a, const void *b)
{
	const struct samples_stack *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return cmp_stack_id(a, b);
}

/* Reads the (tid, stack) counts into r->stacks (not yet with their ips). */
static int read_counts(struct samples *s, struct samples_result *r)
{
	struct bpf_map *map = s->skel->maps.counts;
	struct ss_sample_key key, next, *prev = NULL;
	size_t cap = 0;
	int err;

	while (!(err = bpf_map__get_next_key(map, prev, &next, sizeof(next)))) {
		__u64 count;

		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), &count, sizeof(count), 0))
			continue;	/* cannot happen: entries are never deleted */
		if (r->nr_stacks == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct samples_stack *t = realloc(r->stacks, ncap * sizeof(*t));

			if (!t)
				return -ENOMEM;
			r->stacks = t;
			cap = ncap;
		}
		r->stacks[r->nr_stacks++] = (struct samples_stack){
			.tid = key.tid, .stack_id = key.user_stack_id, .count = count,
		};
		r->total += count;
	}
	return err == -ENOENT ? 0 : err;
}

/* Looks up each distinct stack id once into r->ip_pool, then points every
 * entry with that id at its frames. */
static int read_stacks(struct samples *s, struct samples_result *r)
{
	__u64 frames[SS_MAX_STACK_DEPTH];
	int fd = bpf_map__fd(s->skel->maps.stacks);
	size_t used = 0, cap = 0, *start;
	__u32 *depth;
	int err = 0;

	if (!r->nr_stacks)
		return 0;
	start = calloc(r->nr_stacks, sizeof(*start));
	depth = calloc(r->nr_stacks, sizeof(*depth));
	if (!start || !depth) {
		err = -ENOMEM;
		goto out;
	}
	ss_sort(r->stacks, r->nr_stacks, sizeof(*r->stacks), cmp_stack_id);
	for (size_t i = 0; i < r->nr_stacks; i++) {
		__u32 d;

		if (r->stacks[i].stack_id < 0)
			continue;
		if (i && r->stacks[i - 1].stack_id == r->stacks[i].stack_id) {
			start[i] = start[i - 1];
			depth[i] = depth[i - 1];
			continue;
		}
		d = map_read_stack(unwind_maps__stack_fd(&s->unwind, r->stacks[i].stack_id, fd),
				   r->stacks[i].stack_id, frames, SS_MAX_STACK_DEPTH);
		if (!d)
			continue;	/* no frames: reported with depth 0 */
		if (used + d > cap) {
			size_t ncap = (used + d) * 2;
			__u64 *t = realloc(r->ip_pool, ncap * sizeof(*t));

			if (!t) {
				err = -ENOMEM;
				goto out;
			}
			r->ip_pool = t;
			cap = ncap;
		}
		memcpy(r->ip_pool + used, frames, d * sizeof(*frames));
		start[i] = used;
		depth[i] = d;
		used += d;
	}
	/* Pointers only now: the pool moved while it grew. */
	for (size_t i = 0; i < r->nr_stacks; i++) {
		r->stacks[i].depth = depth[i];
		r->stacks[i].ips = depth[i] ? r->ip_pool + start[i] : NULL;
	}
	ss_sort(r->stacks, r->nr_stacks, sizeof(*r->stacks), cmp_stack_count);
out:
	free(start);
	free(depth);
	return err;
}

static struct samples_thread *thread_slot(struct samples_result *r, __u32 tid, size_t *cap)
{
	for (size_t i = 0; i < r->nr_threads; i++)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	if (r->nr_threads == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct samples_thread *t = realloc(r->threads, ncap * sizeof(*t));

		if (!t)
			return NULL;
		r->threads = t;
		*cap = ncap;
	}
	r->threads[r->nr_threads] = (struct samples_thread){ .tid = tid };
	return &r->threads[r->nr_threads++];
}

static int cmp_thread(const void *a, const void *b)
{
	const struct samples_thread *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Per-thread sample totals and, where counted, the scaled counters. */
static int read_threads(struct samples *s, struct samples_result *r)
{
	struct bpf_map *map = s->skel->maps.thread_counters;
	__u32 key, next, *prev = NULL;
	size_t cap = 0;
	int err = -ENOENT;

	for (size_t i = 0; i < r->nr_stacks; i++) {
		struct samples_thread *t = thread_slot(r, r->stacks[i].tid, &cap);

		if (!t)
			return -ENOMEM;
		t->samples += r->stacks[i].count;
	}
	while (s->counters_available &&
	       !(err = bpf_map__get_next_key(map, prev, &next, sizeof(next)))) {
		struct ss_sample_thread v;
		struct samples_thread *t;

		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), &v, sizeof(v), 0))
			continue;
		t = thread_slot(r, key, &cap);
		if (!t)
			return -ENOMEM;
		t->has_counters = true;
		t->slices = v.slices;
		for (int k = 0; k < SS_SAMPLE_COUNTERS; k++) {
			/* Multiplexed: the counter ran for part of the time only. */
			double scale = v.running[k] && v.running[k] < v.enabled[k]
				       ? (double)v.enabled[k] / (double)v.running[k] : 1.0;

			t->counter[k] = (double)v.value[k] * scale;
		}
	}
	if (r->nr_threads > 1)
		ss_sort(r->threads, r->nr_threads, sizeof(*r->threads), cmp_thread);
	return err == -ENOENT ? 0 : err;
}

/* CPUs sampled at some time, and those online only part of the trace. */
static int cpus_offline(struct samples *s, struct samples_result *r)
{
	const __u8 both = CPU_SEEN_ONLINE | CPU_SEEN_OFFLINE;

	for (int cpu = 0; s->cpu_seen && cpu < s->ncpus_possible; cpu++) {
		r->cpus += !!(s->cpu_seen[cpu] & CPU_SAMPLED);
		r->nr_cpus_offline += (s->cpu_seen[cpu] & both) == both;
	}
	if (!r->nr_cpus_offline)
		return 0;
	r->cpus_offline = calloc(r->nr_cpus_offline, sizeof(*r->cpus_offline));
	if (!r->cpus_offline)
		return -ENOMEM;
	r->nr_cpus_offline = 0;
	for (int cpu = 0; cpu < s->ncpus_possible; cpu++)
		if ((s->cpu_seen[cpu] & both) == both)
			r->cpus_offline[r->nr_cpus_offline++] = cpu;
	return 0;
}

/* What the ring held, emptied first, copied: the result is the caller's. */
static int read_regs(struct samples *s, struct samples_result *r)
{
	long n;

	if (!s->ring)
		return 0;
	r->regs_on = true;
	n = samples__drain(s);
	if (n < 0)
		return (int)n;
	r->regs_lost = s->regs_lost;
	if (!s->nr_regs)
		return 0;
	r->regs = malloc(s->nr_regs * sizeof(*r->regs));
	if (!r->regs)
		return -ENOMEM;
	memcpy(r->regs, s->regs, s->nr_regs * sizeof(*r->regs));
	r->nr_regs = s->nr_regs;
	return 0;
}

int samples__read(struct samples *s, struct samples_result *r)
{
	int err;

	memset(r, 0, sizeof(*r));
	if (!s)
		return -EINVAL;
	r->event = s->spec->name;
	r->available = s->available;
	snprintf(r->reason, sizeof(r->reason), "%s", s->reason);
	r->period = s->freq ? 0 : s->period;
	r->freq = s->freq;
	err = cpus_offline(s, r);
	if (err)
		return err;
	r->counters_available = s->counters_available;
	snprintf(r->counters_reason, sizeof(r->counters_reason), "%s", s->counters_reason);
	for (int k = 0; k < SS_SAMPLE_COUNTERS; k++)
		r->counter_names[k] = s->counter_spec[k] ? s->counter_spec[k]->name : NULL;
	if (!s->skel)
		return 0;

	err = map_sum_percpu(bpf_map__fd(s->skel->maps.drops), SS_SAMPLE_DROPS, r->drops);
	if (!err && s->available)
		err = read_counts(s, r);
	if (!err)
		err = read_stacks(s, r);
	if (!err)
		err = read_threads(s, r);
	if (!err)
		err = read_regs(s, r);
	if (err) {
		samples_result__free(r);
		return err;
	}
	r->total += r->drops[SS_SAMPLE_DROP_COUNTS_FULL];
	return 0;
}

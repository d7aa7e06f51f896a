// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling of one process (skeleton `sampling`, driven by user/trace/samples.c):
 * a perf_event program, attached to one sampling perf event per online CPU
 * (cache-misses, cpu-clock, ...), counts the target's samples per (thread,
 * user stack). A sched_switch program, loaded only where the counting events
 * could be opened, reads three per-CPU counters (cache misses, references,
 * instructions by default) when a target thread goes on and off CPU and adds
 * the difference to that thread: a miss ratio per thread, threads created
 * after attach included. Aggregated in maps. With targ_regs, each sample
 * in user mode also sends the interrupted registers through a ring buffer
 * (bounded: a full ring is a counted drop), from which user space computes
 * the data addresses of the sampled instructions.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sampling.h"
#include "target.bpf.h"
#include "maps.bpf.h"
#define SS_DROP_SLOTS SS_SAMPLE_DROPS
#include "shared_maps.bpf.h"
#include "unwind.bpf.h"

/* Sizes are set by user space before load (samples_opts). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ss_sample_key);
	__type(value, __u64);
} counts SEC(".maps");

/* Counting events: slot cpu * SS_SAMPLE_COUNTERS + k holds counter k of cpu. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, SS_SAMPLE_COUNTERS);
	__type(key, __u32);
	__type(value, __u32);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ss_sample_thread);
} thread_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ss_sample_cpu);
} cpu_start SEC(".maps");

/* Sized by user space (samples_opts.regs_ring_bytes); 0 entries would not
 * load, so it stays one page when register capture is off. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} regs_ring SEC(".maps");

const volatile bool targ_regs = false;

static const struct ss_sample_thread zero_thread;

/* The registers of a sample in user mode into the ring; a sample in the
 * kernel (a syscall, a fault) has no user instruction to decode. */
static __always_inline void send_regs(struct bpf_perf_event_data *ctx, __u32 tid)
{
	const __u64 *regs = (const __u64 *)&ctx->regs;
	struct ss_regs_sample *r;

	if ((__s64)PT_REGS_IP(&ctx->regs) < 0) {	/* kernel half of the address space */
		count_drop(SS_SAMPLE_DROP_REGS_KERNEL);
		return;
	}
	r = bpf_ringbuf_reserve(&regs_ring, sizeof(*r), 0);
	if (!r) {
		count_drop(SS_SAMPLE_DROP_REGS_FULL);
		return;
	}
	r->tid = tid;
	r->pad = 0;
	/* Constant offsets: the only context loads the verifier takes. */
#pragma unroll
	for (int i = 0; i < SS_REGS_WORDS; i++)
		r->regs[i] = i < (int)(sizeof(ctx->regs) / 8) ? regs[i] : 0;
	bpf_ringbuf_submit(r, 0);
}

/* unwind: a constant, see ss_user_stackid(). */
static __always_inline int sample(struct bpf_perf_event_data *ctx, bool unwind)
{
	struct ss_sample_key key;
	__u64 *n, zero = 0;

	/* Every CPU's event fires for every process: one comparison first. */
	if (!current_is_target(&key.tid))
		return 0;

	key.user_stack_id = ss_user_stackid(ctx, &stacks, unwind);
	if (key.user_stack_id < 0)
		count_drop(ss_stack_collided(key.user_stack_id) ? SS_SAMPLE_DROP_STACK_COLLISION
								: SS_SAMPLE_DROP_STACK_FAIL);

	n = bpf_map_lookup_or_try_init(&counts, &key, &zero);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		count_drop(SS_SAMPLE_DROP_COUNTS_FULL);
	if (targ_regs)
		send_regs(ctx, key.tid);
	return 0;
}

SEC("perf_event")
int ss_sample(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, false);
}

SEC("perf_event")
int ss_sample_unw(struct bpf_perf_event_data *ctx)
{
	return sample(ctx, true);
}

/* Reads this CPU's counters into c; false (and counted) if one fails. */
static __always_inline bool read_counters(__u32 cpu, struct ss_sample_cpu *c)
{
	for (__u32 k = 0; k < SS_SAMPLE_COUNTERS; k++) {
		struct bpf_perf_event_value v;

		if (bpf_perf_event_read_value(&counters, cpu * SS_SAMPLE_COUNTERS + k,
					      &v, sizeof(v))) {
			count_drop(SS_SAMPLE_DROP_COUNTER_READ);
			return false;
		}
		c->value[k] = v.counter;
		c->enabled[k] = v.enabled;
		c->running[k] = v.running;
	}
	return true;
}

static __always_inline void add_slice(__u32 tid, const struct ss_sample_cpu *start,
				      const struct ss_sample_cpu *now)
{
	struct ss_sample_thread *t;

	t = bpf_map_lookup_or_try_init(&thread_counters, &tid, &zero_thread);
	if (!t) {
		count_drop(SS_SAMPLE_DROP_THREADS_FULL);
		return;
	}
	/* A thread goes off CPU on one CPU at a time: plain adds suffice. */
	for (__u32 k = 0; k < SS_SAMPLE_COUNTERS; k++) {
		t->value[k] += now->value[k] - start->value[k];
		t->enabled[k] += now->enabled[k] - start->enabled[k];
		t->running[k] += now->running[k] - start->running[k];
	}
	t->slices++;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(ss_count_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 prev_tid = BPF_CORE_READ(prev, pid), next_tid = BPF_CORE_READ(next, pid);
	bool prev_is = is_target(BPF_CORE_READ(prev, tgid), prev_tid);
	bool next_is = is_target(BPF_CORE_READ(next, tgid), next_tid);
	struct ss_sample_cpu now = {}, *start;
	__u32 zero = 0, cpu;

	if (!prev_is && !next_is)
		return 0;
	start = bpf_map_lookup_elem(&cpu_start, &zero);
	if (!start)
		return 0;
	cpu = bpf_get_smp_processor_id();
	if (!read_counters(cpu, &now)) {
		start->tid = 0;
		return 0;
	}
	/* Only slices whose start was seen are added: the slice a thread was
	 * in at attach time is not counted. */
	if (prev_is && start->tid == prev_tid)
		add_slice(prev_tid, start, &now);
	start->tid = 0;
	if (next_is) {
		*start = now;
		start->tid = next_tid;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

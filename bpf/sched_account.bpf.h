/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's accounting of a target thread (on/off-CPU time,
 * voluntary and involuntary switches, run-queue delay) and its record in
 * the threads map, shared by trace.bpf.c and light.bpf.c. Under --light,
 * light.bpf.c's programs on sched_switch and sched_waking do this and
 * their own work in one program each, where trace.bpf.c's and theirs ran
 * one after the other: each program run on these host-wide events costs
 * its dispatch and its own pid check (docs/BENCHMARKS.md, issue 12).
 * Include after profile_maps.bpf.h, hist.bpf.h and core_fixes.bpf.h (which
 * defines the task states).
 */
#ifndef SPINSCOPE_SCHED_ACCOUNT_BPF_H
#define SPINSCOPE_SCHED_ACCOUNT_BPF_H

/* Set by user space after load, just before attach: the trace's time zero. */
__u64 start_ns = 0;

static const struct ss_thread zero_thread;

/*
 * One of the target's threads went on a CPU (running) or off it at now:
 * the time since the last change goes to the count it had. A thread is
 * counted once (SS_SCHED_RUNNING), so one that was running when the trace
 * began is counted from its first switch in. Atomic adds and one lookup
 * of an array (inlined), at the target's own switches only.
 */
static __always_inline void ss_conc_change(struct ss_thread *t, bool running, __u64 now)
{
	bool was = t->sched_flags & SS_SCHED_RUNNING;
	struct ss_concurrency *c;
	__u32 zero = 0;
	__s64 old;
	__u64 last;

	if (was == running)
		return;
	if (running)
		t->sched_flags |= SS_SCHED_RUNNING;
	else
		t->sched_flags &= ~SS_SCHED_RUNNING;
	c = bpf_map_lookup_elem(&concurrency, &zero);
	if (!c)
		return;
	old = c->running;
	__sync_fetch_and_add(&c->running, running ? 1 : -1);
	last = c->last_ns;
	c->last_ns = now;
	if (last && now > last && now - last < 60000000000ULL) {
		__u32 slot = old <= 0 ? 0 : old >= SS_CONC_SLOTS - 1 ? SS_CONC_SLOTS - 1 : (__u32)old;

		__sync_fetch_and_add(&c->time_ns[slot & (SS_CONC_SLOTS - 1)], now - last);
	}
}

/* A record just made for tid (its tid still 0): named. Two CPUs making
 * the same thread's record at once both fill in the same values. */
static __always_inline struct ss_thread *thread_made(struct ss_thread *t, __u32 tid,
						     struct task_struct *task)
{
	t->tid = tid;
	if (task)
		bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), &task->comm);
	else
		bpf_get_current_comm(t->comm, sizeof(t->comm));
	return t;
}

/*
 * Finds the thread's record, creating it on first sight: in its slot
 * (profile_maps.bpf.h) if that is free, else in the threads hash. User
 * space seeds the threads that exist at attach; a record with neither
 * last_in_ns nor last_out_ns has not switched since the trace began.
 */
/* The kernel's PF_EXITING (include/linux/sched.h): set at the start of
 * do_exit(), before sched_process_exit. */
#define SS_PF_EXITING 0x00000004

/* task is exiting: past sched_process_exit its record is folded
 * (thread_exit.bpf.h), and its last switches must not make one again.
 * Asked only where a record would be made. NULL (current, in a system
 * call the trace follows: a task in do_exit() makes none) is not: the
 * system-call programs then read no task_struct field, so they load
 * against any BTF that has their tracepoints' records (the kernel
 * matrix's fixtures, test_kernel_compat). */
static __always_inline bool task_exiting(struct task_struct *task)
{
	if (!task)
		return false;
	return BPF_CORE_READ(task, flags) & SS_PF_EXITING;
}

static __always_inline struct ss_thread *thread_get(__u32 tid, struct task_struct *task)
{
	__u32 slot = tid % SS_THREAD_SLOTS, *owner;
	struct ss_thread *t = bpf_map_lookup_elem(&thread_slots, &slot), *h;

	if (t && t->tid == tid)
		return t;
	/* The hash before a free slot: a thread placed there while its slot
	 * was another's keeps that record when the other exits and frees the
	 * slot (thread_exit.bpf.h). Taking the slot then made it a second
	 * record, and the report showed the thread twice, its counts split
	 * (issue 30 item 2). A new thread pays this lookup once. */
	h = bpf_map_lookup_elem(&threads, &tid);
	if (h)
		return h->tid ? h : thread_made(h, tid, task);
	if (task_exiting(task))
		return NULL;
	if (t && !t->tid) {
		/* Free: take it, unless another CPU took it first (for this
		 * tid too, when both make the same thread's record). No owner
		 * at all (the owners map could not make the entry): the tid
		 * gets no record, counted, rather than one in the hash behind
		 * a slot a later event could still take (two records). */
		bpf_map_update_elem(&thread_slot_owners, &slot, &tid, BPF_NOEXIST);
		owner = bpf_map_lookup_elem(&thread_slot_owners, &slot);
		if (!owner) {
			count_drop(SS_DROP_THREADS_FULL);
			return NULL;
		}
		if (*owner == tid)
			return thread_made(t, tid, task);
	}
	t = bpf_map_lookup_or_try_init(&threads, &tid, &zero_thread);
	if (!t) {
		count_drop(SS_DROP_THREADS_FULL);
		return NULL;
	}
	return t->tid ? t : thread_made(t, tid, task);
}

/*
 * A target thread becomes runnable (the woken task, not the waker): its
 * run-queue wait is timed from now; is_new: sched_wakeup_new, a new
 * thread. Returns its record (NULL: none).
 */
static __always_inline struct ss_thread *sched_runnable(struct task_struct *p, __u32 tid, bool is_new,
							 __u64 now)
{
	struct ss_thread *t = thread_get(tid, p);

	if (!t)
		return NULL;
	t->enqueue_ns = now;
	if (!is_new)
		return t;
	/* A tid reused during the trace: the new thread takes over the
	 * record (its counts add to the old one's), alive again. */
	if (t->flags & SS_THREAD_EXITED) {
		t->flags &= ~SS_THREAD_EXITED;
		t->last_in_ns = 0;
		t->last_out_ns = 0;
		/* Its registers lie on its own kernel stack: the old thread's
		 * address, cleared at its exit, may have been kept again by an
		 * event between its exit and its death (task_regs.bpf.h). */
		t->user_regs = 0;
		t->kstack_task = 0;
		bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), &p->comm);
	}
	/* A new thread's life begins off CPU, in the run queue. */
	if (!t->last_in_ns && !t->last_out_ns)
		t->last_out_ns = now;
	return t;
}

/* Adds the time t has been on CPU, since its switch in or the start, as
 * of now; false where it was off CPU as far as its record saw. */
static __always_inline bool add_oncpu_since_in(struct ss_thread *t, __u64 now)
{
	if (t->last_in_ns)
		t->oncpu_ns += now - t->last_in_ns;
	else if (!t->last_out_ns)	/* running since the start */
		t->oncpu_ns += now - start_ns;
	else
		return false;
	return true;
}

/* A target thread leaves its CPU in task state state (get_task_state());
 * returns its record (NULL: none). */
static __always_inline struct ss_thread *switch_out(struct task_struct *prev, __u32 tid, bool preempt,
						    __u32 state, __u64 now)
{
	struct ss_thread *t = thread_get(tid, prev);

	if (!t)
		return NULL;
	if (!add_oncpu_since_in(t, now))
		/* Off CPU as far as we saw: its switch-in went unseen (it
		 * happens on a loaded host, a few times in seconds). Where in
		 * the gap it began is unknown; off CPU is the side it was
		 * last seen on, and no time falls out of the accounting. */
		t->offcpu_ns += now - t->last_out_ns;
	t->last_in_ns = 0;
	t->last_out_ns = now;
	ss_conc_change(t, false, now);
	/* The kernel's own rule (nvcsw vs nivcsw in __schedule): voluntary
	 * when the task blocks rather than is preempted; a yield leaves it
	 * runnable, so it counts as involuntary. */
	if (!preempt && state != TASK_RUNNING) {
		t->switches_voluntary++;
		if (t->cur.start_ns)	/* it blocks inside a traced call */
			t->cur.flags |= SS_INFLIGHT_SLEPT;
		else			/* I/O, sleep, poll: its holds count it */
			t->sched_flags |= SS_SCHED_NF_BLOCKED;
	} else {
		t->switches_involuntary++;
		t->enqueue_ns = now;	/* still runnable: queued again */
	}
	return t;
}

/* A target thread gets a CPU; returns its record (NULL: none). */
static __always_inline struct ss_thread *switch_in(struct task_struct *next, __u32 tid, __u64 now)
{
	struct ss_thread *t = thread_get(tid, next);

	if (!t)
		return NULL;
	if (t->last_out_ns) {
		t->offcpu_ns += now - t->last_out_ns;
		/* Asleep until its wake-up; the run-queue wait after it is
		 * the scheduler's, not the I/O's or the timer's. */
		if (t->sched_flags & SS_SCHED_NF_BLOCKED)
			t->nf_block_ns += (t->enqueue_ns > t->last_out_ns && t->enqueue_ns < now ?
					   t->enqueue_ns : now) - t->last_out_ns;
	} else if (!t->last_in_ns) {	/* off CPU since the start */
		t->offcpu_ns += now - start_ns;
	}
	t->sched_flags &= ~SS_SCHED_NF_BLOCKED;
	ss_conc_change(t, true, now);
	t->last_out_ns = 0;
	t->last_in_ns = now;
	if (t->enqueue_ns) {
		__u64 delay = now - t->enqueue_ns;
		__u32 slot;

		t->runq_count++;
		t->runq_ns += delay;
		if (delay > t->runq_ns_max)
			t->runq_ns_max = delay;
		slot = ss_hist_slot(delay);
		if (slot < SS_HIST_SLOTS)
			t->runq_hist[slot]++;
		t->enqueue_ns = 0;
	}
	return t;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The numeric fields of `spinscope top`'s JSON document, by name: one
 * list each for a process, a thread, a word and the host, which the
 * writer (top_render_json.c) and the reader of recordings (top_read.c)
 * both walk, so a field added to the model is one line here.
 */
#ifndef SPINSCOPE_TOP_FIELDS_H
#define SPINSCOPE_TOP_FIELDS_H

/* The document's kind and schema, for readers to tell it from -p's. */
#define TOP_DOC_KIND "spinscope top"
#define TOP_DOC_SCHEMA 1

/* The uint64_t fields of a process, by JSON name. */
#define TOP_PROC_U64(X)                                                            \
	X(start_time) X(oncpu_ns) X(runq_ns) X(runq_count)                     \
	X(switches_voluntary) X(switches_involuntary) X(lock_wait_ns)          \
	X(event_wait_ns) X(lock_waits) X(event_waits) X(futex_waits_all)       \
	X(futex_wait_ns_all) X(wakes) X(woken) X(yields) X(samples)            \
	X(spin_samples)
#define TOP_THREAD_U64(X)                                                          \
	X(oncpu_ns) X(runq_ns) X(runq_count) X(switches_voluntary)             \
	X(switches_involuntary) X(futex_waits) X(futex_wait_ns) X(futex_wakes) \
	X(futex_woken) X(yields) X(samples) X(spin_samples)
#define TOP_WORD_U64(X) X(waits) X(wait_ns) X(woken_waits) X(wakes) X(woken) X(reblocked) X(wakes_by_waiters)
#define TOP_HOST_U64(X) X(bpf_run_ns) X(bpf_runs) X(self_rss_kib) X(drops)

#endif

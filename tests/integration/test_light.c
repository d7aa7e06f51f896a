// SPDX-License-Identifier: GPL-2.0
/*
 * spinscope --light (scheduler events only) against workloads of known
 * behaviour: futex waits that block are counted exactly and attributed to
 * their address, yields that switch are counted, what the mode cannot see
 * is stated in the JSON, and no syscall tracepoint program is attached.
 */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include "tracetest.h"

#define WORK_TIMEOUT_MS 20000
#define END_TIMEOUT_MS 10000

/* Traces w from before its go until its "done" line (copied to done,
 * done_size bytes) with --light, --btf btf unless NULL and the options in
 * extra (NULL-ended, or NULL); *no_syscall_progs: spinscope held no
 * syscall tracepoint program while attached. */
static json_object *trace_light_with(struct tt_workload *w, const char *btf, const char *const extra[],
				     bool *no_syscall_progs, char *done, size_t done_size)
{
	const char *args[16] = { "-p", tt_num(w->proc.pid), "-d", "0", "--json", "--light",
				 "--no-calibrate" };
	struct tt_trace t;
	json_object *doc;
	uint32_t ids[64];
	int n = 7;

	if (btf) {
		args[n++] = "--btf";
		args[n++] = btf;
	}
	while (extra && *extra && n < 15)
		args[n++] = *extra++;
	args[n] = NULL;
	tt_trace_start(&t, args);
	n = tt_prog_ids_of(t.proc.pid, ids, 64);
	*no_syscall_progs = n > 0;
	for (int i = 0; i < n; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		assert_true(fd >= 0);
		assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
		close(fd);
		/* Syscall tracepoints are BPF_PROG_TYPE_TRACEPOINT programs. */
		if (info.type == BPF_PROG_TYPE_TRACEPOINT)
			*no_syscall_progs = false;
	}
	tt_workload_go(w);
	tt_workload_wait_line(w, "done", done, done_size, WORK_TIMEOUT_MS);
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	if (t.rc != 0)
		fail_msg("spinscope --light exited with %d after SIGINT; stderr: %s", t.rc, t.err);
	doc = tt_parse_report(t.out);
	tt_trace_free(&t);
	return doc;
}

static json_object *trace_light(struct tt_workload *w, const char *btf, bool *no_syscall_progs,
				char *done, size_t done_size)
{
	return trace_light_with(w, btf, NULL, no_syscall_progs, done, done_size);
}

static uint64_t thread_u64(json_object *doc, long long tid, const char *key)
{
	json_object *th = tt_thread(doc, tid);

	if (!th)
		fail_msg("thread %lld is not in the report", tid);
	return tt_u64(th, key);
}

/* A word's blocked waits are in its wait-time histogram, each once (its
 * counts and histogram pend in the waiting thread's record between word
 * changes and are added at read time: both must be). */
static void assert_hist_holds_blocked(json_object *word)
{
	json_object *hist = NULL;
	uint64_t n = 0;

	if (json_object_object_get_ex(word, "hist_log2_ns", &hist))
		for (size_t i = 0; i < json_object_array_length(hist); i++)
			n += (uint64_t)json_object_get_int64(json_object_array_get_idx(hist, i));
	assert_int_equal(n, tt_u64(word, "blocked"));
	assert_int_equal(tt_u64(word, "blocked"), tt_u64(word, "waits"));
}

/* The sum of key over the array at path. */
static uint64_t sum_over(json_object *doc, const char *path, const char *key)
{
	json_object *a = tt_get(doc, path);
	uint64_t n = 0;

	for (size_t i = 0; i < json_object_array_length(a); i++)
		n += tt_u64(json_object_array_get_idx(a, i), key);
	return n;
}

/* Every wait and wake a thread's own counters hold is on some word: the
 * words' counts pend in each thread's record from its last change of word
 * until read time (struct ss_word_pending), and none may be lost or
 * counted twice there. */
static void assert_words_hold_threads(json_object *doc)
{
	uint64_t word_waits = sum_over(doc, "futexes", "waits");

	print_message("waits: %llu on words, %llu by threads\n", (unsigned long long)word_waits,
		      (unsigned long long)sum_over(doc, "threads", "futex_wait"));
	assert_int_equal(word_waits, sum_over(doc, "threads", "futex_wait"));
	assert_int_equal(sum_over(doc, "futexes", "blocked"), sum_over(doc, "threads", "futex_blocked"));
	assert_int_equal(sum_over(doc, "futexes", "wait_ns"), sum_over(doc, "threads", "futex_wait_ns"));
	assert_int_equal(sum_over(doc, "futexes", "wakes"), sum_over(doc, "threads", "futex_wake"));
	assert_int_equal(tt_u64(doc, "dropped.futexes_map_full"), 0);
}

/* The mode and each blind spot the issue names are in traced. */
static void assert_light_stated(json_object *doc)
{
	static const char *const must_say[] = { "return at once", "find nothing to switch to",
						"wake no thread", "a wake racing the wait" };
	json_object *blind = tt_get(doc, "traced.blind_spots");
	size_t n = json_object_array_length(blind);

	assert_string_equal(json_object_get_string(tt_get(doc, "traced.mechanism")), "light");
	for (size_t k = 0; k < sizeof(must_say) / sizeof(must_say[0]); k++) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			found |= strstr(json_object_get_string(json_object_array_get_idx(blind, i)),
					must_say[k]) != NULL;
		if (!found)
			fail_msg("traced.blind_spots does not say \"%s\"", must_say[k]);
	}
}

/* The waits that block, of known count and length, exactly, per address;
 * the ones that return at once (EAGAIN) and the wakes that wake nobody are
 * the blind spots, absent rather than counted. */
static void check_light_futex_waits(const char *btf, const char *sched)
{
	enum { K = 4, M = 10, T_MS = 20, A = 5, W = 7, I = 3 };
	const uint64_t t_ns = T_MS * 1000000ULL;
	json_object *doc, *timed, *intr, *woken, *again, *wake;
	struct tt_workload w;
	bool no_syscall_progs;
	long long main_tid;
	char done[256];

	tt_workload_start(&w, "futex_wait", TT_ARGS(tt_num(K), tt_num(M), tt_num(T_MS),
						    tt_num(A), tt_num(W), tt_num(I)));
	main_tid = (long long)tt_field(w.ready, "main_tid");
	doc = trace_light(&w, btf, &no_syscall_progs, done, sizeof(done));
	assert_true(no_syscall_progs);
	assert_light_stated(doc);
	assert_string_equal(json_object_get_string(tt_get(doc, "traced.sched")), sched);

	timed = tt_futex(doc, tt_field(w.ready, "timed"));
	intr = tt_futex(doc, tt_field(w.ready, "intr"));
	woken = tt_futex(doc, tt_field(w.ready, "woken"));
	assert_non_null(timed);
	assert_non_null(intr);
	assert_non_null(woken);
	/* Timed and interrupted waits block unless the thread was preempted
	 * between queueing and sleeping for longer than the timeout (a loaded
	 * host: then the timer ends the wait before it blocks, a stated blind
	 * spot; seen once, 9 of 10, at load 25). Each one seen lasted at least
	 * its timeout (the kernel never ends one early) and lies inside its
	 * call, whose time the workload measured ("done timed_ns": all M
	 * calls). Beside two CPU burners the calls overran their timeouts by
	 * 3 ms each, more than the run-queue delay light mode saw: a bound
	 * of the timeouts plus that delay failed (243.7 ms of at most 211.9). */
	uint64_t nt = tt_u64(timed, "waits"), ni = tt_u64(intr, "waits");

	print_message("timed waits seen %llu of %d, interrupted %llu of %d\n",
		      (unsigned long long)nt, M, (unsigned long long)ni, I);
	assert_in_range(nt, 1, M);
	assert_in_range(tt_u64(timed, "wait_ns"), nt * t_ns, tt_field(done, "timed_ns"));
	assert_true(tt_u64(timed, "wait_ns_max") >= t_ns);
	assert_in_range(ni, 1, I);
	assert_true(tt_u64(intr, "wait_ns") >= ni * 10000000ULL);	/* signalled 10 ms after blocking */
	/* A wake can reach a waiter between its queueing and its switch (a
	 * stated blind spot): the waiter then does not sleep, so its wait is
	 * not seen; the wake is, unless the waiter had already set itself
	 * running (then no sched_waking fires). On sysbench mutex about one
	 * wake in seven came so (8013 wakes, 6938 blocked waits). A wait
	 * that blocked can only end by a wake here (no timeout, no signal),
	 * seen from the waker: between the blocked waits seen and K wakes,
	 * each one waiter. */
	uint64_t nw = tt_u64(woken, "waits");

	assert_in_range(nw, 1, K);
	assert_in_range(tt_u64(woken, "wakes"), nw, K);
	assert_int_equal(tt_u64(woken, "woken"), tt_u64(woken, "wakes"));
	assert_hist_holds_blocked(timed);
	assert_hist_holds_blocked(intr);
	assert_hist_holds_blocked(woken);
	assert_words_hold_threads(doc);
	/* Blind spots: EAGAIN returns at once, wakes of nobody. */
	again = tt_futex(doc, tt_field(w.ready, "again"));
	wake = tt_futex(doc, tt_field(w.ready, "wake"));
	assert_true(!again || tt_u64(again, "waits") == 0);
	assert_true(!wake || tt_u64(wake, "wakes") == 0);
	assert_in_range(thread_u64(doc, main_tid, "futex_wait"), nt + ni, M + I + K);
	assert_true(thread_u64(doc, main_tid, "futex_wait_ns") >= nt * t_ns);
	json_object_put(doc);
	tt_workload_end(&w);
}

static void test_light_futex_waits(void **state)
{
	TL_REQUIRE_BPF();
	check_light_futex_waits(NULL, "tp_btf");
}

/* With --btf the scheduler programs are the raw_tp variants (tp_btf needs
 * the running kernel's own BTF): the same counts through them. */
static void test_light_futex_waits_raw_tp(void **state)
{
	TL_REQUIRE_BPF();
	check_light_futex_waits("/sys/kernel/btf/vmlinux", "raw_tp");
}

/*
 * Two yielding threads pinned on one CPU: while both loop, each yield hands
 * the CPU to the other, so nearly every yield switches. Each counted yield
 * is a switch of its thread that left it runnable (an involuntary switch),
 * and no thread is counted more than the N it made.
 */
static void test_light_yields_that_switch(void **state)
{
	enum { N = 2000, K = 2 };
	struct tt_workload w;
	long long tids[K];
	bool no_syscall_progs;
	uint64_t total = 0;
	json_object *doc;
	char done[256];
	cpu_set_t one;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS(tt_num(N), tt_num(K)));
	assert_int_equal(tt_field_list(w.ready, "tids", tids, K), K);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	for (int i = 0; i < K; i++)
		assert_int_equal(sched_setaffinity((pid_t)tids[i], sizeof(one), &one), 0);
	doc = trace_light(&w, NULL, &no_syscall_progs, done, sizeof(done));
	assert_true(no_syscall_progs);
	assert_light_stated(doc);
	for (int i = 0; i < K; i++) {
		uint64_t y = thread_u64(doc, tids[i], "sched_yield");
		uint64_t inv = thread_u64(doc, tids[i], "switches_involuntary");

		print_message("thread %lld: %llu yields seen, %llu involuntary switches\n", tids[i],
			      (unsigned long long)y, (unsigned long long)inv);
		/* Not exact: under load a thread is now and then counted one
		 * yield more than it made (2001-2002 of 2000, about one run in
		 * five at load 20+, each time with one involuntary switch more
		 * than its yields): a non-preempting switch of a thread still
		 * inside sched_yield. docs/REFERENCE.md states the overcount; the bound
		 * here is what was seen, times five. */
		assert_true(y <= N + N / 200);
		assert_true(y <= inv);
		total += y;
	}
	/* Woken by go together, the two loops interleave a yield at a time;
	 * only the tail of the thread that finishes last can run alone, so at
	 * least one thread's worth of the 2N yields switched. At most all of
	 * them, with each thread's overcount above (4003 of 4000 was seen
	 * beside two CPU burners, make test-loaded). */
	assert_in_range(total, N, K * (N + N / 200));
	assert_int_equal(tt_u64(doc, "totals.futex_wait"), 0);
	json_object_put(doc);
	tt_workload_end(&w);
}

/*
 * A user stack lost to a collision in the kernel's stack map is counted as
 * one (dropped.stack_collisions), not as a stack that could not be read:
 * --light takes stacks with bpf_get_stackid, whose map has one bucket per
 * --max-stacks entry and keeps the first stack that hashes there. The
 * workload blocks once at each of K stack depths, K distinct stacks, more
 * than --max-stacks 16's buckets: at least the waits past 16 lose their
 * stack to one. Every blocked wait has its stack or is counted as
 * dropped, and no stack failed for another reason. (The 5.10 guest of
 * the kernel matrix, which has no unwinder, lost a stack so now and then
 * at the default 2048 buckets and counted it as unreadable.)
 */
static void test_light_stack_collisions_counted(void **state)
{
	enum { K = 40, BUCKETS = 16 };
	const char *const extra[] = { "--max-stacks", "16", "--stack-interval", "0", NULL };
	uint64_t waits, collisions, kept_waits = 0, lost_waits = 0;
	json_object *doc, *word, *stacks;
	struct tt_workload w;
	bool no_syscall_progs;
	size_t kept = 0;
	char done[256];

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "many_stacks", TT_ARGS(tt_num(K)));
	doc = trace_light_with(&w, NULL, extra, &no_syscall_progs, done, sizeof(done));
	word = tt_futex(doc, tt_field(w.ready, "word"));
	assert_non_null(word);
	waits = tt_u64(word, "waits");
	collisions = tt_u64(doc, "dropped.stack_collisions");
	/* Every stack id the word's waits had, with its count of waits: a
	 * negative id is the walk's error (-EEXIST, a collision). */
	stacks = tt_get(word, "waiter_stacks");
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *e = json_object_array_get_idx(stacks, i);
		int64_t id = json_object_get_int64(json_object_array_get_idx(e, 0));
		uint64_t n = (uint64_t)json_object_get_int64(json_object_array_get_idx(e, 1));

		if (id >= 0) {
			kept++;
			kept_waits += n;
		} else {
			assert_int_equal(id, -17);	/* -EEXIST, nothing else */
			lost_waits += n;
		}
	}
	print_message("%llu of %d waits seen blocked, %zu stacks kept, %llu lost to collisions\n",
		      (unsigned long long)waits, K, kept, (unsigned long long)collisions);
	/* A 2 ms timed wait blocks unless preempted that long before it
	 * sleeps (test_light_futex_waits): nearly all K are seen. */
	assert_in_range(waits, BUCKETS + 1, K);
	assert_int_equal(tt_u64(doc, "dropped.stack_failed"), 0);
	assert_true(kept <= BUCKETS);
	assert_int_equal(kept_waits, kept);	/* one wait per depth */
	assert_int_equal(lost_waits, collisions);
	assert_int_equal(kept_waits + collisions, waits);
	json_object_put(doc);
	tt_workload_end(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_light_futex_waits, tt_teardown),
		cmocka_unit_test_teardown(test_light_futex_waits_raw_tp, tt_teardown),
		cmocka_unit_test_teardown(test_light_yields_that_switch, tt_teardown),
		cmocka_unit_test_teardown(test_light_stack_collisions_counted, tt_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * advice.c, between the trace and the advisor: naming a lock from its
 * waiters' frames; a hand-made profile, stacks and samples turned into the
 * advisor's input with every counter and name where it belongs (and the
 * lock's name reaching the finding); sampled instructions of this very
 * binary, read through /proc/self/mem, marking the functions that write
 * shared data or fence; the "advice" JSON keys and the text section.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "report/advice.h"
#include "advisor/runtime.h"

/* ---- advice__name_stack -------------------------------------------------- */

static struct advice_stack_name sn;

static const char *stack_name(char *const *frames, int depth)
{
	memset(&sn, 'x', sizeof(sn));
	advice__name_stack(frames, depth, &sn);
	return sn.name;
}

static void test_name_first_frame_the_user_owns(void **state)
{
	char *frames[] = { "__lll_lock_wait+0x2b (libc.so.6)", "pthread_mutex_lock+0x90 (libc.so.6)",
			   "update_table+0x1d (app)", "worker+0x40 (app)",
			   "start_thread+0x304 (libc.so.6)" };
	char *yield[] = { "sched_yield+0x7 (libc.so.6)", "w+0x1c (spinner)",
			  "start_thread+0x304 (libc.so.6)" };

	assert_string_equal(stack_name(frames, 5),
			    "update_table in app (via pthread_mutex_lock in libc)");
	assert_true(sn.user_named);
	assert_string_equal(sn.runtime, "__lll_lock_wait <- pthread_mutex_lock");
	assert_string_equal(stack_name(yield, 3), "w in spinner (via sched_yield in libc)");
	/* A stack that never leaves the runtime: its innermost frame, marked. */
	assert_string_equal(stack_name(frames, 2), "__lll_lock_wait in libc");
	assert_false(sn.user_named);
	char *thread[] = { "sched_yield+0x7 (libc.so.6)", "start_thread+0x304 (libc.so.6)",
			   "clone3+0x2c (libc.so.6)" };
	assert_string_equal(stack_name(thread, 3), "sched_yield in libc");
	assert_false(sn.user_named);
	assert_string_equal(stack_name(frames, 0), "");
}

static void test_name_odd_frames(void **state)
{
	/* Waiting in the application itself (a futex of its own). */
	char *own[] = { "futex_wait+0x12 (app)", "my_lock+0x30 (app)", "main+0x99 (app)" };
	/* A frame without a name, a module-only frame, and a raw address. */
	char *unknown[] = { "[unknown]", "worker+0x12 (app)" };
	char *raw[] = { "0x7f0012345678", "0x7f0012345000" };
	/* The C++ runtime and the JVM are runtime too. */
	char *cxx[] = { "std::mutex::lock+0x4 (libstdc++.so.6)", "Pool::take+0x8 (app)" };
	char *jvm[] = { "Unsafe_Park+0x10 (libjvm.so)", "0x7f00dead0000" };

	assert_string_equal(stack_name(own, 3), "futex_wait in app");
	assert_true(sn.user_named);
	assert_string_equal(stack_name(unknown, 2), "worker in app");
	assert_string_equal(stack_name(raw, 2), "0x7f0012345678");
	assert_false(sn.user_named);
	assert_string_equal(stack_name(cxx, 2), "Pool::take in app (via std::mutex::lock in libstdc++)");
	assert_string_equal(stack_name(jvm, 2), "Unsafe_Park in libjvm");
	assert_false(sn.user_named);
}

static void test_runtime_symbols(void **state)
{
	assert_true(adv_is_runtime_symbol("__pthread_mutex_unlock_usercnt (libc.so.6)"));
	assert_true(adv_is_runtime_symbol("ObjectMonitor::TrySpin(JavaThread*) (libjvm.so)"));
	assert_false(adv_is_runtime_symbol("bump_counter (counters_share)"));
	assert_false(adv_is_runtime_symbol("[unknown]"));
	assert_false(adv_is_runtime_symbol("curl_easy_perform (libcurl.so.4)"));
}

static void test_name_is_cut_to_the_buffer(void **state)
{
	char long_fn[400];
	char *frames[] = { "__lll_lock_wait+0x2b (libc.so.6)", long_fn };

	memset(long_fn, 'a', sizeof(long_fn));
	snprintf(long_fn + 300, 100, "+0x1d (app)");
	advice__name_stack(frames, 2, &sn);
	assert_true(strlen(sn.name) < sizeof(sn.name));
	assert_true(sn.user_named);
}

/* Go's scheduler frames under a sync.Mutex run past the runtime chain's
 * 160 characters: the chain keeps the user's call (the lock) at its end. */
static void test_long_runtime_chain_keeps_the_call(void **state)
{
	char *frames[] = { "runtime.futex.abi0+0x23 (go_mutex)", "runtime.notesleep+0x86 (go_mutex)",
			   "runtime.stopm+0x8b (go_mutex)", "runtime.findRunnable+0x9e7 (go_mutex)",
			   "runtime.schedule+0xbd (go_mutex)", "runtime.park_m+0x14c (go_mutex)",
			   "runtime.mcall+0x42 (go_mutex)", "runtime.semacquire1+0x1fd (go_mutex)",
			   "sync.runtime_SemacquireMutex+0x24 (go_mutex)", "sync.(*Mutex).lockSlow+0x164 (go_mutex)",
			   "main.bumpShared+0x3c (go_mutex)", "main.main.func1+0x74 (go_mutex)" };
	size_t n;

	assert_string_equal(stack_name(frames, 12),
			    "main.bumpShared in go_mutex (via sync.(*Mutex).lockSlow in go_mutex)");
	n = strlen(sn.runtime);
	assert_true(n < sizeof(sn.runtime));
	assert_int_equal(strncmp(sn.runtime, "runtime.futex.abi0 <- runtime.notesleep <- ", 43), 0);
	assert_string_equal(sn.runtime + n - strlen(" <- ... <- sync.(*Mutex).lockSlow"),
			    " <- ... <- sync.(*Mutex).lockSlow");
}

/* ---- advice__build_profile ----------------------------------------------- */

#define UADDR_HOT 0x7f00dead1000ull
#define UADDR_COLD 0x55aa00000040ull
#define SEC 1000000000ull

static char *frames_lock[] = { "__lll_lock_wait+0x2b (libc.so.6)",
			       "pthread_mutex_lock+0x90 (libc.so.6)", "update_table+0x1d (app)",
			       "worker+0x40 (app)", "start_thread+0x304 (libc.so.6)" };
static char *frames_other_lock[] = { "__lll_lock_wait+0x2b (libc.so.6)", "flush_log+0x11 (app)" };
static char *frames_yield[] = { "syscall+0x19 (libc.so.6)", "spin_then_yield+0x1c (app)",
				"worker+0x40 (app)" };
static char *frames_yield_leaf[] = { "sched_yield+0x7 (libc.so.6)" };
static __u64 ips5[5] = { 1, 2, 3, 4, 5 }, ips2[2] = { 1, 2 }, ips3[3] = { 1, 2, 3 }, ips1[1] = { 1 };
static struct ss_stack stack_v[] = {
	{ .id = 7, .depth = 5, .ips = ips5, .frames = frames_lock },
	{ .id = 8, .depth = 2, .ips = ips2 },	/* not symbolized */
	{ .id = 10, .depth = 2, .ips = ips2, .frames = frames_other_lock },
	{ .id = 11, .depth = 3, .ips = ips3, .frames = frames_yield },
	{ .id = 12, .depth = 1, .ips = ips1, .frames = frames_yield_leaf },
};
static const struct ss_stacks stacks = { .v = stack_v, .n = 5, .cap = 5 };

struct fixture {
	struct ss_thread threads[3];
	struct ss_futex_rec futexes[2];
	struct ss_waiter_stack wstacks[4];
	struct ss_yield_site yields[3];
	struct ss_profile prof;
	struct advice_target tgt;
	struct advice_input in;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	/* Two threads block on one mutex for most of a 2 s trace; one spins
	 * with sched_yield. */
	fx->threads[0] = (struct ss_thread){
		.tid = 4243, .comm = "locker", .futex_wait = 300, .futex_wait_ns = 1500000000,
		.futex_wait_ns_max = 40000000, .futex_wake = 140, .switches_voluntary = 300,
		.switches_involuntary = 5, .oncpu_ns = 300000000, .offcpu_ns = 1700000000,
		.runq_count = 300, .runq_ns = 60000000, .runq_ns_max = 900000,
		.runq_hist = { [17] = 200, [19] = 100 },
	};
	fx->threads[1] = (struct ss_thread){
		.tid = 4244, .comm = "locker", .futex_wait = 280, .futex_wait_ns = 1400000000,
		.futex_wait_ns_max = 30000000, .futex_wake = 150, .switches_voluntary = 280,
		.switches_involuntary = 7, .oncpu_ns = 350000000, .offcpu_ns = 1650000000,
		.runq_count = 287, .runq_ns = 50000000, .runq_ns_max = 800000,
		.runq_hist = { [18] = 287 },
	};
	fx->threads[2] = (struct ss_thread){
		.tid = 4245, .comm = "spinner", .sched_yield = 4000, .switches_involuntary = 800,
		.oncpu_ns = 1800000000, .offcpu_ns = 200000000, .runq_count = 800,
		.runq_ns = 190000000, .runq_ns_max = 2000000, .runq_hist = { [20] = 800 },
	};
	fx->futexes[0] = (struct ss_futex_rec){
		.uaddr = UADDR_HOT,
		.f = { .waits = 580, .wait_ns = 2900000000, .wait_ns_max = 40000000, .wakes = 290,
		       .woken = 290, .outcome = { [SS_FUTEX_WOKEN] = 580 },
		       .blocked = 580, .holder_wakes = 290,
		       .hist = { [22] = 500, [24] = 80 } },
		.stacks = fx->wstacks, .nstacks = 4, .waiters = 2,
	};
	/* Heaviest first: a stack that was lost, one never symbolized, then
	 * the two with names; the first named one names the lock. */
	fx->wstacks[0] = (struct ss_waiter_stack){ .stack_id = 9, .count = 200, .wait_ns = 1200000000 };
	fx->wstacks[1] = (struct ss_waiter_stack){ .stack_id = 8, .count = 150, .wait_ns = 900000000 };
	fx->wstacks[2] = (struct ss_waiter_stack){ .stack_id = 7, .count = 200, .wait_ns = 700000000 };
	fx->wstacks[3] = (struct ss_waiter_stack){ .stack_id = 10, .count = 30, .wait_ns = 100000000 };
	fx->futexes[1] = (struct ss_futex_rec){ .uaddr = UADDR_COLD, .f = { .wakes = 1 } };
	fx->yields[0] = (struct ss_yield_site){ .stack_id = 11, .count = 3900 };
	fx->yields[1] = (struct ss_yield_site){ .stack_id = 12, .count = 80 };
	fx->yields[2] = (struct ss_yield_site){ .stack_id = -14, .count = 20 };	/* -EFAULT */
	fx->prof = (struct ss_profile){
		.start_ns = 1000, .now_ns = 1000 + 2 * SEC,
		.threads = fx->threads, .nthreads = 3,
		.futexes = fx->futexes, .nfutexes = 2,
		.yields = fx->yields, .nyields = 3,
	};
	profile_finish(&fx->prof);
	fx->tgt = (struct advice_target){ .pid = 4242, .comm = "app", .ncpus = 2,
					  .duration_ns = 2 * SEC };
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	advice__free_input(&fx->in);
	free(fx);
	return 0;
}

static const struct adv_thread *thread_of(const struct adv_profile *ap, uint32_t tid)
{
	for (size_t i = 0; i < ap->nthreads; i++)
		if (ap->threads[i].tid == tid)
			return &ap->threads[i];
	fail_msg("thread %u missing from the advisor's input", tid);
	return NULL;
}

/* Every counter of the list, whatever the list holds. */
#define ASSERT_SAME_C(name, kind, unit, json) assert_int_equal(c->name, t->name);
#define ASSERT_SAME_A(name, slots, kind, unit, json)				\
	assert_memory_equal(c->name, t->name, sizeof(c->name));
static void assert_counters(const struct adv_counters *c, const struct ss_thread *t)
{
	SS_THREAD_COUNTERS(ASSERT_SAME_C, ASSERT_SAME_A)
}

static void test_build_profile_counters(void **state)
{
	struct fixture *fx = *state;
	const struct adv_profile *ap = &fx->in.profile;

	assert_int_equal(advice__build_profile(&fx->in, &fx->tgt, &fx->prof, &stacks, NULL, NULL,
					       NULL), 0);
	assert_int_equal(ap->duration_ns, 2 * SEC);
	assert_int_equal(ap->ncpus, 2);
	assert_int_equal(ap->target.pid, 4242);
	assert_string_equal(ap->target.comm, "app");
	assert_false(ap->target.is_jvm);
	assert_int_equal(ap->target.nthreads, 3);

	/* Totals: the profile's sums, here by hand. */
	assert_int_equal(ap->totals.sched_yield, 4000);
	assert_int_equal(ap->totals.futex_wait, 580);
	assert_int_equal(ap->totals.futex_wait_ns, 2900000000ull);
	assert_int_equal(ap->totals.futex_wake, 290);
	assert_int_equal(ap->totals.switches_voluntary, 580);
	assert_int_equal(ap->totals.switches_involuntary, 812);
	assert_int_equal(ap->totals.oncpu_ns, 2450000000ull);
	assert_int_equal(ap->totals.offcpu_ns, 3550000000ull);
	assert_int_equal(ap->totals.runq_count, 1387);
	assert_int_equal(ap->totals.runq_ns, 300000000);
	assert_int_equal(ap->totals.runq_ns_max, 2000000);
	assert_int_equal(ap->totals.runq_hist[17], 200);
	assert_int_equal(ap->totals.runq_hist[18], 287);
	assert_int_equal(ap->totals.runq_hist[19], 100);
	assert_int_equal(ap->totals.runq_hist[20], 800);

	assert_int_equal(ap->nthreads, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct ss_thread *t = &fx->prof.threads[i];
		const struct adv_thread *a = thread_of(ap, t->tid);

		assert_string_equal(a->comm, t->comm);
		assert_counters(&a->c, t);
	}
	assert_string_equal(thread_of(ap, 4245)->comm, "spinner");
	assert_int_equal(thread_of(ap, 4245)->c.sched_yield, 4000);

	/* No samples given: none, and nothing classified. */
	assert_false(ap->samples.available);
	assert_int_equal(ap->samples.ntop, 0);
	assert_null(ap->samples.top);
	assert_int_equal(ap->nfences, 0);
}

static const struct adv_futex *futex_of(const struct adv_profile *ap, uint64_t uaddr)
{
	for (size_t i = 0; i < ap->nfutexes; i++)
		if (ap->futexes[i].uaddr == uaddr)
			return &ap->futexes[i];
	fail_msg("futex 0x%llx missing from the advisor's input", (unsigned long long)uaddr);
	return NULL;
}

static void test_build_profile_names(void **state)
{
	struct fixture *fx = *state;
	const struct adv_profile *ap = &fx->in.profile;
	const struct adv_futex *hot, *cold;

	assert_int_equal(advice__build_profile(&fx->in, &fx->tgt, &fx->prof, &stacks, NULL, NULL,
					       NULL), 0);
	assert_int_equal(ap->nfutexes, 2);
	hot = futex_of(ap, UADDR_HOT);
	assert_int_equal(hot->waits, 580);
	assert_int_equal(hot->wait_ns, 2900000000ull);
	assert_int_equal(hot->wait_ns_max, 40000000);
	assert_int_equal(hot->wakes, 290);
	assert_int_equal(hot->waiters, 2);
	assert_int_equal(hot->hist[22], 500);
	assert_int_equal(hot->hist[24], 80);
	/* Stack 9 was lost and 8 has no names: 7 is the heaviest named. */
	assert_string_equal(hot->name, "update_table in app (via pthread_mutex_lock in libc)");
	cold = futex_of(ap, UADDR_COLD);
	assert_int_equal(cold->waits, 0);
	assert_int_equal(cold->wakes, 1);
	assert_string_equal(cold->name, "");

	/* Yield sites: the first frame past the syscall wrapper; the wrapper
	 * itself when it is all there is; nothing for a lost stack. */
	assert_int_equal(ap->nyield_sites, 3);
	assert_string_equal(ap->yield_sites[0].frame, "spin_then_yield in app (via syscall in libc)");
	assert_true(ap->yield_sites[0].user_named);
	assert_int_equal(ap->yield_sites[0].count, 3900);
	assert_string_equal(ap->yield_sites[1].frame, "sched_yield in libc");
	assert_false(ap->yield_sites[1].user_named);
	assert_int_equal(ap->yield_sites[1].count, 80);
	assert_string_equal(ap->yield_sites[2].frame, "");
	assert_int_equal(ap->yield_sites[2].count, 20);
}

/* The named lock and the yield site reach the findings. */
static void test_names_reach_the_advice(void **state)
{
	struct fixture *fx = *state;
	struct adv_report *r = calloc(1, sizeof(*r));
	const struct adv_finding *f;
	struct adv_host none = { 0 };
	bool site = false;

	assert_non_null(r);
	assert_int_equal(advice__build_profile(&fx->in, &fx->tgt, &fx->prof, &stacks, NULL, NULL,
					       NULL), 0);
	assert_int_equal(advisor__run(&fx->in.profile, &none, r), 0);
	f = advisor__find(r, "futex-contention");
	assert_non_null(f);
	/* The lock in the program's words, its function named. */
	assert_non_null(strstr(f->title, "update_table"));
	for (size_t e = 0; e < f->nevidence; e++)
		if (!strcmp(f->evidence[e].label, "lock"))
			assert_non_null(strstr(f->evidence[e].value,
					       "update_table in app (via pthread_mutex_lock in libc)"));
	f = advisor__find(r, "spin-yield");
	assert_non_null(f);
	for (size_t e = 0; e < f->nevidence; e++)
		site |= strstr(f->evidence[e].value, "spin_then_yield in app") != NULL;
	assert_true(site);
	free(r);
}

/* ---- samples: instructions of this binary --------------------------------- */

#if defined(__x86_64__)
/*
 * Instructions of known kinds at known addresses, never executed: only
 * their bytes are read back through /proc/self/mem, as from a target. The
 * nops keep each out of the others' classification window.
 */
__asm__(".pushsection .text.advice_test_code,\"ax\",@progbits\n"
	".fill 16,1,0x90\n"
	"adv_ip_atomic: lock addq $1,(%rdi)\n"
	".fill 16,1,0x90\n"
	"adv_ip_atomic2: lock xaddl %eax,(%rdx)\n"
	".fill 16,1,0x90\n"
	"adv_ip_plain: movq (%rdi),%rax\n"
	".fill 16,1,0x90\n"
	"adv_ip_plain2: addq $1,(%rdi)\n"
	".fill 16,1,0x90\n"
	"adv_ip_fence: mfence\n"
	".fill 16,1,0x90\n"
	"ret\n"
	".popsection\n");
extern const char adv_ip_atomic[], adv_ip_atomic2[], adv_ip_plain[], adv_ip_plain2[],
	adv_ip_fence[];

static __u64 ip_of(const char *p)
{
	return (__u64)(uintptr_t)p;
}

/* bump_shared: 60 of its 100 samples on a LOCK'd add; mostly_private: 10
 * of 100; heal_ref: all 50 on an MFENCE. */
static const char *name_ip(void *arg, __u64 ip, const char **module)
{
	*module = "/opt/app/bin/app";
	if (ip == ip_of(adv_ip_atomic) || ip == ip_of(adv_ip_plain))
		return "bump_shared";
	if (ip == ip_of(adv_ip_atomic2) || ip == ip_of(adv_ip_plain2))
		return "mostly_private";
	if (ip == ip_of(adv_ip_fence))
		return "heal_ref";
	*module = NULL;
	return NULL;
}

static const struct adv_sample_sym *sample_of(const struct adv_profile *ap, const char *name)
{
	for (size_t i = 0; i < ap->samples.ntop; i++)
		if (!strcmp(ap->samples.top[i].symbol, name))
			return &ap->samples.top[i];
	fail_msg("no sampled symbol '%s'", name);
	return NULL;
}

static void test_samples_classified_from_code(void **state)
{
	struct fixture *fx = *state;
	const struct adv_profile *ap = &fx->in.profile;
	__u64 ip[5] = { ip_of(adv_ip_atomic), ip_of(adv_ip_plain), ip_of(adv_ip_atomic2),
			ip_of(adv_ip_plain2), ip_of(adv_ip_fence) };
	struct samples_stack st[] = {
		{ .tid = 1, .stack_id = 3, .count = 90, .depth = 1, .ips = &ip[3] },
		{ .tid = 1, .stack_id = 1, .count = 60, .depth = 1, .ips = &ip[0] },
		{ .tid = 1, .stack_id = 5, .count = 50, .depth = 1, .ips = &ip[4] },
		{ .tid = 2, .stack_id = 2, .count = 40, .depth = 1, .ips = &ip[1] },
		{ .tid = 2, .stack_id = 4, .count = 10, .depth = 1, .ips = &ip[2] },
		{ .tid = 3, .stack_id = -14, .count = 5 },
	};
	struct samples_result sr = {
		.event = "cpu-clock", .available = true, .period = 1001001, .cpus = 2,
		.total = 260,	/* 5 of them lost */
		.stacks = st, .nr_stacks = 6,
	};

	/* This process is the target: its code is what gets read. */
	fx->tgt.pid = getpid();
	assert_int_equal(advice__build_profile(&fx->in, &fx->tgt, &fx->prof, &stacks, &sr, name_ip,
					       NULL), 0);
	assert_true(ap->samples.available);
	assert_string_equal(ap->samples.event, "cpu-clock");
	assert_string_equal(ap->samples.reason, "");
	assert_int_equal(ap->samples.total, 260);
	assert_int_equal(ap->samples.ntop, 4);
	/* Most samples first, ties by name; module as its base name. */
	assert_string_equal(ap->samples.top[0].symbol, "bump_shared (app)");
	assert_string_equal(ap->samples.top[1].symbol, "mostly_private (app)");
	assert_string_equal(ap->samples.top[2].symbol, "heal_ref (app)");
	assert_string_equal(ap->samples.top[3].symbol, "[no user stack]");
	assert_int_equal(ap->samples.top[0].count, 100);
	assert_int_equal(ap->samples.top[1].count, 100);
	assert_int_equal(ap->samples.top[2].count, 50);
	assert_int_equal(ap->samples.top[3].count, 5);

	assert_true(sample_of(ap, "bump_shared (app)")->writes_shared);
	assert_false(sample_of(ap, "mostly_private (app)")->writes_shared);
	assert_false(sample_of(ap, "heal_ref (app)")->writes_shared);
	assert_false(sample_of(ap, "[no user stack]")->writes_shared);
	assert_int_equal(ap->nfences, 1);
	assert_string_equal(ap->fences[0].symbol, "heal_ref (app)");
	assert_float_equal(ap->fences[0].share, 50.0 / 260.0, 1e-12);
}
#else
static void test_samples_classified_from_code(void **state)
{
	print_message("skip: the instruction classifier reads x86-64 code only\n");
	skip();
}
#endif

/* ---- samples where a parking word's waiter parks from --------------------- */

/* ips by hundreds: 1xx in pthread_mutex_lock (libc), 2xx update_table,
 * 3xx worker, 4xx flush_log (app), 5xx a JIT stub into the runtime, 6xx
 * pthread_cond_wait (libc). */
static const char *name_by_range(void *arg, __u64 ip, const char **module)
{
	static const char *const fn[] = { NULL, "pthread_mutex_lock", "update_table", "worker",
					  "flush_log", "stub_enter", "pthread_cond_wait" };
	static const char *const mod[] = { NULL, "/usr/lib/x86_64-linux-gnu/libc.so.6",
					   "/opt/app/bin/app", "/opt/app/bin/app", "/opt/app/bin/app",
					   "[jit]", "/usr/lib/x86_64-linux-gnu/libc.so.6" };

	(void)arg;
	*module = NULL;
	if (ip / 100 < 1 || ip / 100 > 6)
		return NULL;
	*module = mod[ip / 100];
	return fn[ip / 100];
}

/* Thread 4243 parks alone on its word from update_table's
 * pthread_mutex_lock: of its samples, those in that call from that
 * function are taking it; its samples in update_table's own code, in the
 * same call from another function, and another thread's in the same call
 * are not. */
static void test_acquire_samples_where_it_parks(void **state)
{
	struct fixture *fx = *state;
	const struct adv_futex *w;
	__u32 tid[1] = { 4243 };
	struct ss_waiter_stack ws[1] = { { .stack_id = 7, .count = 100, .wait_ns = 100000000 } };
	struct ss_futex_rec recs[2] = {
		fx->futexes[0],
		{ .uaddr = 0x7f00beef0000ull, .waiters = 1, .tids = tid, .stacks = ws, .nstacks = 1,
		  .f = { .waits = 100, .blocked = 100, .wait_ns = 100000000 } },
	};
	/* leaf first; return addresses are named at ip - 1 (x01 -> x00) */
	__u64 spin[3] = { 150, 201, 301 }, own[2] = { 250, 301 }, other_fn[2] = { 150, 401 };
	struct samples_stack st[] = {
		{ .tid = 4243, .stack_id = 1, .count = 30, .depth = 3, .ips = spin },
		{ .tid = 4243, .stack_id = 2, .count = 50, .depth = 2, .ips = own },
		{ .tid = 4244, .stack_id = 1, .count = 40, .depth = 3, .ips = spin },
		{ .tid = 4243, .stack_id = 3, .count = 7, .depth = 2, .ips = other_fn },
	};
	struct samples_thread th[] = { { .tid = 4244, .samples = 40 }, { .tid = 4243, .samples = 87 } };
	struct samples_result sr = {
		.event = "cpu-clock", .available = true, .cpus = 2, .total = 127,
		.stacks = st, .nr_stacks = 4, .threads = th, .nr_threads = 2,
	};

	fx->prof.futexes = recs;
	fx->prof.nfutexes = 2;
	assert_int_equal(advice__build_profile(&fx->in, &fx->tgt, &fx->prof, &stacks, &sr,
					       name_by_range, NULL), 0);
	w = futex_of(&fx->in.profile, 0x7f00beef0000ull);
	assert_int_equal(w->sole_waiter, 4243);
	assert_string_equal(w->name, "update_table in app (via pthread_mutex_lock in libc)");
	assert_int_equal(w->acquire_samples, 30);
	assert_int_equal(w->waiter_samples, 87);
	/* two waiters: no one thread's samples are its */
	w = futex_of(&fx->in.profile, UADDR_HOT);
	assert_int_equal(w->acquire_samples, 0);
	assert_int_equal(w->waiter_samples, 0);
}

/* Walks that stop in the runtime (a JVM's stub without frame pointers)
 * place a wait and a sample by where they stopped: thread 4246's samples
 * stopped at the stub it parks from are taking it. Thread 4247 has no
 * sample that stopped anywhere else: that stop is where all its walks
 * end, not a call, and counts nothing. */
static char *frames_stopped[] = { "__futex_abstimed_wait_common+0x1 (libc.so.6)",
				  "pthread_cond_wait+0x2 (libc.so.6)", "stub_enter+0x3 ([jit])" };

static void test_acquire_samples_where_the_walk_stopped(void **state)
{
	struct fixture *fx = *state;
	const struct adv_futex *w;
	__u32 tid[2] = { 4246, 4247 };
	struct ss_stack sv[6] = { stack_v[0], stack_v[1], stack_v[2], stack_v[3], stack_v[4],
				  { .id = 20, .depth = 3, .ips = ips3, .frames = frames_stopped } };
	const struct ss_stacks with_stopped = { .v = sv, .n = 6, .cap = 6 };
	struct ss_waiter_stack ws[1] = { { .stack_id = 20, .count = 100, .wait_ns = 100000000 } };
	struct ss_futex_rec recs[2] = {
		{ .uaddr = 0x7f00beef0000ull, .waiters = 1, .tids = &tid[0], .stacks = ws, .nstacks = 1,
		  .f = { .waits = 100, .blocked = 100, .wait_ns = 100000000 } },
		{ .uaddr = 0x7f00beef0040ull, .waiters = 1, .tids = &tid[1], .stacks = ws, .nstacks = 1,
		  .f = { .waits = 100, .blocked = 100, .wait_ns = 100000000 } },
	};
	__u64 stopped[2] = { 650, 501 }, own[1] = { 250 };
	struct samples_stack st[] = {
		{ .tid = 4246, .stack_id = 1, .count = 20, .depth = 2, .ips = stopped },
		{ .tid = 4246, .stack_id = 2, .count = 10, .depth = 1, .ips = own },
		{ .tid = 4247, .stack_id = 1, .count = 15, .depth = 2, .ips = stopped },
	};
	struct samples_thread th[] = { { .tid = 4246, .samples = 30 }, { .tid = 4247, .samples = 15 } };
	struct samples_result sr = {
		.event = "cpu-clock", .available = true, .cpus = 2, .total = 45,
		.stacks = st, .nr_stacks = 3, .threads = th, .nr_threads = 2,
	};

	fx->prof.futexes = recs;
	fx->prof.nfutexes = 2;
	assert_int_equal(advice__build_profile(&fx->in, &fx->tgt, &fx->prof, &with_stopped, &sr,
					       name_by_range, NULL), 0);
	w = futex_of(&fx->in.profile, 0x7f00beef0000ull);
	assert_false(w->user_named);
	assert_int_equal(w->acquire_samples, 20);
	assert_int_equal(w->waiter_samples, 30);
	w = futex_of(&fx->in.profile, 0x7f00beef0040ull);
	assert_int_equal(w->acquire_samples, 0);
	assert_int_equal(w->waiter_samples, 15);
}

static void test_samples_unavailable(void **state)
{
	struct fixture *fx = *state;
	const struct adv_profile *ap = &fx->in.profile;
	struct samples_result sr = { .event = "cache-misses", .available = false };

	snprintf(sr.reason, sizeof(sr.reason), "hardware event cache-misses not supported on this host");
	assert_int_equal(advice__build_profile(&fx->in, &fx->tgt, &fx->prof, &stacks, &sr, NULL,
					       NULL), 0);
	assert_false(ap->samples.available);
	assert_string_equal(ap->samples.event, "cache-misses");
	assert_string_equal(ap->samples.reason,
			    "hardware event cache-misses not supported on this host");
	assert_int_equal(ap->samples.ntop, 0);
	assert_int_equal(ap->nfences, 0);
}

/* ---- rendering ------------------------------------------------------------ */

static void two_findings(struct adv_report *r)
{
	struct adv_finding *f = &r->findings[0];

	memset(r, 0, sizeof(*r));
	snprintf(f->id, sizeof(f->id), "futex-contention");
	f->severity = ADV_CRITICAL;
	snprintf(f->title, sizeof(f->title), "Lock contention: waiters spend 60%% of their time blocked");
	f->evidence[0] = (struct adv_evidence){ "lock", "update_table (app) via __lll_lock_wait",
						ADV_SRC_TARGET };
	f->evidence[1] = (struct adv_evidence){ "futex handoff", "28.2 us (wake to running)",
						ADV_SRC_HOST };
	f->nevidence = 2;
	snprintf(f->recommendation, sizeof(f->recommendation), "Shorten the critical section.");
	f->confidence = 0.875;

	f = &r->findings[1];
	snprintf(f->id, sizeof(f->id), "numa-placement");
	f->severity = ADV_INFO;
	snprintf(f->title, sizeof(f->title), "NUMA placement: not applicable");
	snprintf(f->recommendation, sizeof(f->recommendation), "Nothing to do.");
	f->confidence = 1.0;
	r->n = 2;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		fail_msg("no string '%s' in %s", key, json_object_to_json_string(o));
	return json_object_get_string(v);
}

static void assert_keys(json_object *o, const char *const keys[], size_t n)
{
	size_t i = 0;

	assert_int_equal(json_object_object_length(o), n);
	json_object_object_foreach(o, k, v) {
		(void)v;
		assert_string_equal(k, keys[i++]);
	}
}

static void test_to_json(void **state)
{
	static const char *const finding_keys[] = { "id", "severity", "title", "evidence",
						    "recommendation", "confidence" };
	static const char *const evidence_keys[] = { "label", "value", "source" };
	struct adv_report *r = calloc(1, sizeof(*r));
	json_object *a, *f, *ev, *conf;

	assert_non_null(r);
	two_findings(r);
	a = advice__to_json(r);
	assert_true(json_object_is_type(a, json_type_array));
	assert_int_equal(json_object_array_length(a), 2);

	f = json_object_array_get_idx(a, 0);
	assert_keys(f, finding_keys, 6);
	assert_string_equal(str(f, "id"), "futex-contention");
	assert_string_equal(str(f, "severity"), "critical");
	assert_string_equal(str(f, "title"), "Lock contention: waiters spend 60% of their time blocked");
	assert_string_equal(str(f, "recommendation"), "Shorten the critical section.");
	assert_true(json_object_object_get_ex(f, "confidence", &conf));
	assert_true(json_object_is_type(conf, json_type_double));
	assert_float_equal(json_object_get_double(conf), 0.875, 0);
	assert_true(json_object_object_get_ex(f, "evidence", &ev));
	assert_true(json_object_is_type(ev, json_type_array));
	assert_int_equal(json_object_array_length(ev), 2);
	assert_keys(json_object_array_get_idx(ev, 0), evidence_keys, 3);
	assert_string_equal(str(json_object_array_get_idx(ev, 0), "label"), "lock");
	assert_string_equal(str(json_object_array_get_idx(ev, 0), "value"),
			    "update_table (app) via __lll_lock_wait");
	assert_string_equal(str(json_object_array_get_idx(ev, 0), "source"), "target");
	assert_string_equal(str(json_object_array_get_idx(ev, 1), "label"), "futex handoff");
	assert_string_equal(str(json_object_array_get_idx(ev, 1), "source"), "host");

	f = json_object_array_get_idx(a, 1);
	assert_keys(f, finding_keys, 6);
	assert_string_equal(str(f, "severity"), "info");
	assert_true(json_object_object_get_ex(f, "evidence", &ev));
	assert_int_equal(json_object_array_length(ev), 0);
	json_object_put(a);

	r->n = 0;
	a = advice__to_json(r);
	assert_int_equal(json_object_array_length(a), 0);
	json_object_put(a);
	free(r);
}

static char *print_text(const struct adv_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	advice__print_text(r, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_print_text(void **state)
{
	struct adv_report *r = calloc(1, sizeof(*r));
	char *text;

	assert_non_null(r);
	two_findings(r);
	snprintf(r->breakeven.summary, sizeof(r->breakeven.summary),
		 "its waits (13.9 ms) outlast a handoff (28.2 us): park at once");
	r->breakeven.wait_median_ns = 13.9e6;
	text = print_text(r);
	assert_int_equal(strncmp(text, "ADVICE (most severe first)\n", 27), 0);
	assert_non_null(strstr(text, "  [CRITICAL] Lock contention: waiters spend 60% of their time "
				     "blocked (futex-contention, confidence 88%)\n"));
	assert_non_null(strstr(text, "target lock"));
	assert_non_null(strstr(text, "update_table (app) via __lll_lock_wait\n"));
	assert_non_null(strstr(text, "host   futex handoff"));
	assert_non_null(strstr(text, "    -> Shorten the critical section.\n"));
	assert_non_null(strstr(text, "  [info] NUMA placement: not applicable (numa-placement, "
				     "confidence 100%)\n"));
	/* Most severe first, as given. */
	assert_true(strstr(text, "[CRITICAL]") < strstr(text, "[info]"));
	assert_non_null(strstr(text, "  Spin or park: its waits (13.9 ms) outlast a handoff"));
	assert_null(strstr(text, "nothing to advise"));
	free(text);

	/* A target that neither spins nor waits has no break-even line. */
	r->breakeven.wait_median_ns = 0;
	r->breakeven.spins = false;
	text = print_text(r);
	assert_null(strstr(text, "Spin or park"));
	free(text);

	r->n = 0;
	text = print_text(r);
	assert_non_null(strstr(text, "nothing to advise"));
	free(text);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_first_frame_the_user_owns),
		cmocka_unit_test(test_name_odd_frames),
		cmocka_unit_test(test_name_is_cut_to_the_buffer),
		cmocka_unit_test(test_long_runtime_chain_keeps_the_call),
		cmocka_unit_test(test_runtime_symbols),
		cmocka_unit_test_setup_teardown(test_build_profile_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_profile_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_reach_the_advice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_classified_from_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acquire_samples_where_it_parks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acquire_samples_where_the_walk_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_unavailable, setup, teardown),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_print_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

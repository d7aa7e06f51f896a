// SPDX-License-Identifier: GPL-2.0
/*
 * Who holds a contended lock, end to end through the real spinscope:
 *   - one mutex, two critical sections of known lengths run by different
 *     threads (tests/workloads/mutex_sections.c: 5 us in section_short,
 *     200 us in section_long): the long one is the dominant release site,
 *     its held-while-contended distribution is the longer one, every wake
 *     that woke a waiter is in a release site, and the futex-contention
 *     finding names section_long as the critical section;
 *   - an idle pool's condition variable (condvar_pool): the signaller
 *     wakes its waiters, but the word has no release sites or holders;
 *   - wakes that find no waiters, and a word woken by a thread that never
 *     waits on it (futex_wait): no release sites.
 * The lengths are busy loops on the clock: a preempted holder holds
 * longer, never shorter, so the assertions compare the two sections and
 * never time either. What the held-while-contended bound measures is
 * release minus the start of the earliest wait it woke, when that wait
 * began during the hold (here nearly always the wait that the long
 * section waits for): the workload's long section waits for a short
 * thread to come and mark the word contended before its LONG_US, so its
 * bound is LONG_US or more whenever the waiter comes (a loaded host that keeps the short threads off CPU made waiters
 * arrive late in long holds, and the long bound's lower quartile fell to
 * the short one's); a short section's bound exceeds SHORT_US only when
 * its holder was preempted under the lock, which would have to happen in
 * three quarters of its contended holds to reach the long one's quartile.
 *
 * Every hold whose earliest woken waiter began waiting during it is
 * measured (bpf/trace.bpf.c, held_bound()): every long hold had the short
 * thread's wait begin during it, and the long thread comes to the lock as
 * soon as a short hold has begun (the workload's "follow"), so nearly
 * every release of either site has a bound. Nearly: a waiter that marked
 * the word and was then kept off its CPU past the hold began its wait
 * after the release. (With two short threads the short releases mostly
 * woke a thread queued since the long hold, which bounds nothing, and a
 * run could end with no short hold measured.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracetest.h"

#define WORK_TIMEOUT_MS 60000
#define END_TIMEOUT_MS 20000
#define COND_SIZE 48		/* sizeof(pthread_cond_t): its futex words lie inside */

/* The slot holding quantile q of a log2 histogram's entries. */
static uint64_t hist_quantile_slot(json_object *hist, double q, uint64_t *total)
{
	uint64_t n = 0, seen = 0;
	size_t len = json_object_array_length(hist);

	for (size_t i = 0; i < len; i++)
		n += (uint64_t)json_object_get_int64(json_object_array_get_idx(hist, i));
	*total = n;
	for (size_t i = 0; i < len; i++) {
		seen += (uint64_t)json_object_get_int64(json_object_array_get_idx(hist, i));
		if (n && (double)seen >= q * (double)n)
			return i;
	}
	return 0;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Index of the release site whose stack lies in one of funcs, or -1. */
static int site_in(json_object *sites, const struct tt_func *funcs, int n)
{
	for (size_t i = 0; i < json_object_array_length(sites); i++)
		if (tt_stack_has(json_object_array_get_idx(sites, i), "mutex_sections", funcs, n))
			return (int)i;
	return -1;
}

/* The functions that name mutex_sections' long and short sections (a
 * frame-pointer unwind through glibc may give the caller). */
static void section_funcs(const struct tt_workload *w, struct tt_func long_fns[2],
			  struct tt_func short_fns[2])
{
	tt_func_init(&long_fns[0], "mutex_sections", "section_long", tt_field(w->ready, "section_long"));
	tt_func_init(&long_fns[1], "mutex_sections", "long_holder", tt_field(w->ready, "long_holder"));
	tt_func_init(&short_fns[0], "mutex_sections", "section_short",
		     tt_field(w->ready, "section_short"));
	tt_func_init(&short_fns[1], "mutex_sections", "short_holder",
		     tt_field(w->ready, "short_holder"));
}

/* The lower quartile's slot of site i's held-while-contended bounds; *n:
 * how many there are. */
static uint64_t site_q1(json_object *sites, int i, uint64_t *n)
{
	return hist_quantile_slot(tt_get(json_object_array_get_idx(sites, i),
					 "held_contended_hist_log2_ns"), 0.25, n);
}

static uint64_t sum_of(json_object *array, const char *key)
{
	uint64_t n = 0;

	for (size_t i = 0; i < json_object_array_length(array); i++)
		n += tt_u64(json_object_array_get_idx(array, i), key);
	return n;
}

static void test_long_section_is_named(void **state)
{
	/* ROUNDS: each long hold waits for the short thread to come, and the
	 * next for a short hold between (the workload's section_long()),
	 * which the long thread follows at once ("follow"): its wait begins
	 * during that short hold, so each short release wakes a waiter that
	 * came during it and is measured. With two short threads the short
	 * releases mostly woke a short thread queued since the long hold
	 * (passed over: no bound), and a run could end with none measured. */
	enum { SHORT_THREADS = 1, ROUNDS = 1000, SHORT_US = 5, LONG_US = 200, OUT_US = 20 };
	struct tt_func long_fns[2], short_fns[2];
	json_object *doc, *fx, *sites, *holders, *finding;
	uint64_t long_q1, short_q1, long_n, short_n, long_wakes, short_wakes;
	const char *critical;
	struct tt_workload w;
	int lo, sh;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "mutex_sections",
			  TT_ARGS(tt_num(SHORT_THREADS), tt_num(ROUNDS), tt_num(SHORT_US),
				  tt_num(LONG_US), tt_num(OUT_US), "follow"));
	section_funcs(&w, long_fns, short_fns);
	doc = tt_trace_until_done(&w, NULL, WORK_TIMEOUT_MS, END_TIMEOUT_MS);

	fx = tt_futex(doc, tt_field(w.ready, "mutex"));
	assert_non_null(fx);
	sites = member(fx, "release_sites");
	holders = member(fx, "holders");
	if (!sites || !holders)
		fail_msg("the mutex has no release sites: %s", json_object_to_json_string(fx));
	print_message("# %zu release sites, %zu holders\n", json_object_array_length(sites),
		      json_object_array_length(holders));
	/* Every wake that woke a waiter on the mutex is in a release site,
	 * and the holders are the same wakes by thread. */
	assert_int_equal(sum_of(sites, "woken"), tt_u64(fx, "woken"));
	assert_int_equal(sum_of(holders, "releases"), sum_of(sites, "wakes"));
	assert_int_equal(tt_u64(doc, "dropped.release_sites_map_full"), 0);
	/* The long thread and at least one short one held it while others
	 * waited; the main thread (it only joins) never did. */
	assert_true(json_object_array_length(holders) >= 2);
	for (size_t i = 0; i < json_object_array_length(holders); i++)
		assert_int_not_equal(tt_u64(json_object_array_get_idx(holders, i), "tid"), w.proc.pid);

	lo = site_in(sites, long_fns, 2);
	sh = site_in(sites, short_fns, 2);
	assert_true(lo >= 0 && sh >= 0);
	/* Sites come longest held while contended first (usual hold times
	 * holds, model/releases.h): the long one. */
	assert_int_equal(lo, 0);
	/* A holder preempted under the lock stretches its hold, never
	 * shortens it, and a stretched hold is the likeliest to have a
	 * waiter arrive and be measured: on a loaded host the upper half of
	 * either distribution is the scheduler's. The lower quartile is the
	 * sections' own length. */
	long_q1 = site_q1(sites, lo, &long_n);
	short_q1 = site_q1(sites, sh, &short_n);
	print_message("\n# held while contended, lower quartile: long slot %llu of %llu, short %llu of %llu\n",
		      (unsigned long long)long_q1, (unsigned long long)long_n,
		      (unsigned long long)short_q1, (unsigned long long)short_n);
	assert_int_equal(long_n, tt_u64(json_object_array_get_idx(sites, lo), "held_contended"));
	assert_true(long_n > 0 && short_n > 0);
	assert_true(long_q1 > short_q1);
	/* Every hold measured, not a sample: each long one had a waiter
	 * come during it. */
	long_wakes = tt_u64(json_object_array_get_idx(sites, lo), "wakes");
	print_message("# holds measured: %llu of %llu contended releases, the long site's %llu of %llu\n",
		      (unsigned long long)sum_of(sites, "held_contended"),
		      (unsigned long long)sum_of(sites, "wakes"), (unsigned long long)long_n,
		      (unsigned long long)long_wakes);
	assert_true(sum_of(sites, "held_contended") <= sum_of(sites, "wakes"));
	assert_true(long_n <= long_wakes && 20 * long_n >= 19 * long_wakes);
	/* and each short one that woke the long thread had it come during
	 * it (it comes only once a short hold has begun). */
	short_wakes = tt_u64(json_object_array_get_idx(sites, sh), "wakes");
	print_message("# the short site's: %llu of %llu\n", (unsigned long long)short_n,
		      (unsigned long long)short_wakes);
	assert_true(short_n <= short_wakes && 20 * short_n >= 19 * short_wakes);

	finding = tt_finding(doc, "futex-contention");
	if (!finding)
		fail_msg("no futex-contention finding: %s", json_object_to_json_string(tt_get(doc, "advice")));
	critical = tt_evidence(finding, "critical section");
	assert_non_null(critical);
	print_message("# critical section: %s\n", critical);
	/* Unwound through libc's CFI the release's caller is section_long;
	 * by frame pointers alone, libc's frameless unlock hides it and its
	 * caller is named. */
	if (json_object_get_boolean(tt_get(doc, "symbols.unwind.enabled")))
		assert_non_null(strstr(critical, "held in section_long "));
	else
		assert_true(strstr(critical, "section_long") || strstr(critical, "long_holder"));
	assert_non_null(strstr(json_object_get_string(tt_get(finding, "recommendation")),
			       strstr(critical, "section_long") ? "section_long" : "long_holder"));
	json_object_put(doc);
	tt_workload_end(&w);
}

/* A priority-inheritance mutex: its unlock (FUTEX_UNLOCK_PI) returns 0,
 * not the waiters woken, so the tracer tells a hand-over from the word
 * (bpf/trace.bpf.c, pi_unlock_woken()); the lock still has release sites
 * that account for every hand-over, the long section's bound the longer. */
static void test_pi_mutex_has_release_sites(void **state)
{
	enum { SHORT_THREADS = 2, ROUNDS = 300, SHORT_US = 5, LONG_US = 200, OUT_US = 20 };
	struct tt_func long_fns[2], short_fns[2];
	uint64_t long_q1, short_q1, long_n, short_n;
	json_object *doc, *fx, *sites;
	struct tt_workload w;
	int lo, sh;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "mutex_sections",
			  TT_ARGS(tt_num(SHORT_THREADS), tt_num(ROUNDS), tt_num(SHORT_US),
				  tt_num(LONG_US), tt_num(OUT_US), "pi"));
	section_funcs(&w, long_fns, short_fns);
	doc = tt_trace_until_done(&w, NULL, WORK_TIMEOUT_MS, END_TIMEOUT_MS);
	fx = tt_futex(doc, tt_field(w.ready, "mutex"));
	assert_non_null(fx);
	sites = member(fx, "release_sites");
	if (!sites || !member(fx, "holders"))
		fail_msg("the PI mutex has no release sites: %s", json_object_to_json_string(fx));
	print_message("# PI: %llu woken by %llu wakes, %llu blocked waits\n",
		      (unsigned long long)tt_u64(fx, "woken"), (unsigned long long)tt_u64(fx, "wakes"),
		      (unsigned long long)tt_u64(fx, "blocked"));
	assert_true(tt_u64(fx, "woken") > 0);
	assert_int_equal(sum_of(sites, "woken"), tt_u64(fx, "woken"));
	/* Every long hold had a waiter: at least ROUNDS hand-overs. */
	assert_true(tt_u64(fx, "woken") >= ROUNDS);
	/* The kernel hands a PI lock to its waiters in turn, so the short
	 * sections are released contended far more often than with glibc's
	 * mutex (no lock stealing): which site leads depends on that count;
	 * the long one's held-while-contended bound is the longer one. */
	lo = site_in(sites, long_fns, 2);
	sh = site_in(sites, short_fns, 2);
	assert_true(lo >= 0 && sh >= 0);
	long_q1 = site_q1(sites, lo, &long_n);
	short_q1 = site_q1(sites, sh, &short_n);
	print_message("# PI held while contended, lower quartile: long slot %llu of %llu, short %llu of %llu\n",
		      (unsigned long long)long_q1, (unsigned long long)long_n,
		      (unsigned long long)short_q1, (unsigned long long)short_n);
	assert_true(long_n > 0 && short_n > 0);
	assert_true(long_q1 > short_q1);
	json_object_put(doc);
	tt_workload_end(&w);
}

/* The futexes entries whose word lies in [base, base + size). */
static size_t futexes_in(json_object *doc, unsigned long long base, size_t size,
			 json_object **out, size_t max)
{
	json_object *fx = tt_get(doc, "futexes");
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(fx) && n < max; i++) {
		json_object *f = json_object_array_get_idx(fx, i);
		unsigned long long a = tt_uaddr(f);

		if (a >= base && a < base + size)
			out[n++] = f;
	}
	return n;
}

static void test_condvar_signaller_is_no_holder(void **state)
{
	enum { WORKERS = 3, HZ = 200, SECONDS = 2 };
	json_object *doc, *words[8];
	uint64_t woken = 0;
	struct tt_workload w;
	size_t n;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "condvar_pool", TT_ARGS(tt_num(WORKERS), tt_num(HZ), tt_num(SECONDS)));
	doc = tt_trace_until_done(&w, NULL, WORK_TIMEOUT_MS, END_TIMEOUT_MS);
	n = futexes_in(doc, tt_field(w.ready, "cond"), COND_SIZE, words, 8);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		woken += tt_u64(words[i], "woken");
		if (member(words[i], "release_sites") || member(words[i], "holders"))
			fail_msg("the condition variable's word has holders: %s",
				 json_object_to_json_string(words[i]));
	}
	/* The signaller did wake waiters there: the test saw what it checks. */
	assert_true(woken > 0);
	json_object_put(doc);
	tt_workload_end(&w);
}

static void test_wakes_without_waiters_have_no_release_site(void **state)
{
	enum { K = 4, M = 2, T_MS = 5, A = 3, W = 7, I = 2 };
	json_object *doc, *wake, *woken;
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "futex_wait", TT_ARGS(tt_num(K), tt_num(M), tt_num(T_MS), tt_num(A),
						    tt_num(W), tt_num(I)));
	doc = tt_trace_until_done(&w, NULL, WORK_TIMEOUT_MS, END_TIMEOUT_MS);
	wake = tt_futex(doc, tt_field(w.ready, "wake"));
	woken = tt_futex(doc, tt_field(w.ready, "woken"));
	assert_non_null(wake);
	assert_non_null(woken);
	/* W wakes, none found a waiter: no release site. */
	assert_int_equal(tt_u64(wake, "wakes"), W);
	assert_int_equal(tt_u64(wake, "woken"), 0);
	assert_null(member(wake, "release_sites"));
	/* K wakes woke the waiter, but the waker never waits there: it
	 * signals the word, it does not hold it. */
	assert_int_equal(tt_u64(woken, "woken"), K);
	assert_null(member(woken, "release_sites"));
	assert_null(member(woken, "holders"));
	json_object_put(doc);
	tt_workload_end(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_long_section_is_named, tt_teardown),
		cmocka_unit_test_teardown(test_pi_mutex_has_release_sites, tt_teardown),
		cmocka_unit_test_teardown(test_condvar_signaller_is_no_holder, tt_teardown),
		cmocka_unit_test_teardown(test_wakes_without_waiters_have_no_release_site, tt_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

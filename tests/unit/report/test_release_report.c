// SPDX-License-Identifier: GPL-2.0
/*
 * Release sites and holders in the reports, on a profile built by hand: the
 * JSON keys of a lock word (release_sites with their counters, holders
 * with their threads' names), none for a condition variable's word or a
 * word whose wakes found nobody; the text block under the hot futex; the
 * folded futex-release stacks.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/folded.h"
#include "report/report.h"

#define LOCK 0x7f00dead1000ull
#define COND 0x7f00dead2000ull
#define IDLE 0x7f00dead3000ull

static const struct host_info host = { .hostname = "h", .kernel = "6.1", .machine = "x86_64",
				       .cpus = 2 };
static __u64 ips7[3] = { 0x401000, 0x401100, 0x401200 };
static char *frames7[3] = { "__lll_lock_wake+0x13 (libc.so.6)", "flush_queue+0x84 (app)",
			    "main+0x2a (app)" };
static __u64 ips8[2] = { 0x402000, 0x402100 };
static char *frames8[2] = { "__lll_lock_wake+0x13 (libc.so.6)", "stats_bump+0x20 (app)" };
static struct ss_stack stack_v[] = {
	{ .id = 7, .depth = 3, .ips = ips7, .frames = frames7 },
	{ .id = 8, .depth = 2, .ips = ips8, .frames = frames8 },
};
static const struct ss_stacks stacks = { .v = stack_v, .n = 2, .cap = 2 };

struct fixture {
	struct ss_thread threads[3];
	struct ss_futex_rec futexes[3];
	struct ss_release_rec lock_rel[3], cond_rel[1];
	__u32 lock_tids[2];
	struct ss_profile prof;
	struct ss_report rep;
};

static struct ss_release_rec rec(__s32 stack, __u32 tid, __u64 wakes, __u64 held_ns, int slot)
{
	struct ss_release_rec r = { .stack_id = stack, .tid = tid };

	r.v.wakes = r.v.woken = r.v.held_contended = wakes;
	r.v.held_contended_ns = wakes * held_ns;
	r.v.held_contended_ns_max = held_ns;
	r.v.held_contended_hist[slot] = wakes;
	return r;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->threads[0] = (struct ss_thread){ .tid = 11, .comm = "flusher" };
	fx->threads[1] = (struct ss_thread){ .tid = 12, .comm = "stats" };
	fx->threads[2] = (struct ss_thread){ .tid = 13, .comm = "signaller" };
	/* The lock: flusher (twice the holds, 200 us) and stats (5 us), both
	 * waiting on it too. */
	fx->lock_rel[0] = rec(7, 11, 60, 200000, 17);
	fx->lock_rel[1] = rec(8, 12, 30, 5000, 12);
	fx->lock_rel[2] = rec(7, 11, 0, 0, 0);	/* merged into the first */
	fx->lock_tids[0] = 11;
	fx->lock_tids[1] = 12;
	fx->futexes[0] = (struct ss_futex_rec){
		.uaddr = LOCK, .f = { .waits = 100, .blocked = 90, .wait_ns = 9000000, .wakes = 95,
				      .woken = 90, .holder_wakes = 60, .hist = { [17] = 90 } },
		.waiters = 2, .tids = fx->lock_tids, .releases = fx->lock_rel, .nreleases = 3,
	};
	/* A condition variable signalled by a thread that never waits on it. */
	fx->cond_rel[0] = rec(8, 13, 50, 0, 0);
	fx->futexes[1] = (struct ss_futex_rec){
		.uaddr = COND, .f = { .waits = 50, .blocked = 50, .wait_ns = 5000000, .wakes = 50,
				      .woken = 50, .bitset_waits = 50, .hist = { [16] = 50 } },
		.waiters = 1, .releases = fx->cond_rel, .nreleases = 1,
	};
	/* Wakes that found nobody. */
	fx->futexes[2] = (struct ss_futex_rec){ .uaddr = IDLE, .f = { .wakes = 7 } };
	fx->prof = (struct ss_profile){ .start_ns = 1, .now_ns = 1 + 1000000000ull,
					.threads = fx->threads, .nthreads = 3,
					.futexes = fx->futexes, .nfutexes = 3 };
	profile_finish(&fx->prof);
	fx->rep = (struct ss_report){ .host = &host, .pid = 10, .comm = "app",
				      .duration_ns = 1000000000ull, .profile = &fx->prof,
				      .stacks = &stacks };
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static json_object *futex_of(json_object *doc, unsigned long long uaddr)
{
	json_object *a = json_object_object_get(doc, "futexes");
	char want[32];

	snprintf(want, sizeof(want), "0x%llx", uaddr);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *f = json_object_array_get_idx(a, i);

		if (!strcmp(json_object_get_string(json_object_object_get(f, "uaddr")), want))
			return f;
	}
	fail_msg("no futex %s", want);
	return NULL;
}

static __u64 get_u64(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no '%s' in %s", key, json_object_to_json_string(o));
	return json_object_get_uint64(v);
}

static void test_json_release_sites_and_holders(void **state)
{
	struct fixture *fx = *state;
	json_object *doc = report_to_json(&fx->rep), *lock, *sites, *s0, *s1, *holders, *h0, *v;

	lock = futex_of(doc, LOCK);
	assert_true(json_object_object_get_ex(lock, "release_sites", &sites));
	assert_int_equal(json_object_array_length(sites), 2);
	s0 = json_object_array_get_idx(sites, 0);
	s1 = json_object_array_get_idx(sites, 1);
	/* Longest held first: flush_queue's, both its records summed. */
	assert_int_equal(get_u64(s0, "stack_id"), 7);
	assert_int_equal(get_u64(s0, "wakes"), 60);
	assert_int_equal(get_u64(s0, "woken"), 60);
	assert_int_equal(get_u64(s0, "threads"), 1);
	assert_int_equal(get_u64(s0, "held_contended"), 60);
	assert_int_equal(get_u64(s0, "held_contended_ns"), 60 * 200000);
	assert_int_equal(get_u64(s0, "held_contended_ns_max"), 200000);
	v = json_object_object_get(s0, "held_contended_hist_log2_ns");
	assert_int_equal(json_object_array_length(v), 18);	/* trailing zeros dropped */
	assert_int_equal(json_object_get_int(json_object_array_get_idx(v, 17)), 60);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    json_object_object_get(s0, "frames"), 1)), "flush_queue+0x84 (app)");
	assert_int_equal(get_u64(s1, "stack_id"), 8);
	assert_true(json_object_object_get_ex(lock, "holders", &holders));
	assert_int_equal(json_object_array_length(holders), 2);
	h0 = json_object_array_get_idx(holders, 0);
	assert_int_equal(get_u64(h0, "tid"), 11);
	assert_string_equal(json_object_get_string(json_object_object_get(h0, "comm")), "flusher");
	assert_int_equal(get_u64(h0, "releases"), 60);
	assert_int_equal(get_u64(h0, "held_contended_ns"), 60 * 200000);
	assert_true(json_object_get_boolean(json_object_object_get(h0, "also_waits")));
	/* The condition variable's signaller is no holder; wakes that found
	 * nobody make no release site. */
	assert_false(json_object_object_get_ex(futex_of(doc, COND), "release_sites", NULL));
	assert_false(json_object_object_get_ex(futex_of(doc, COND), "holders", NULL));
	assert_false(json_object_object_get_ex(futex_of(doc, IDLE), "release_sites", NULL));
	json_object_put(doc);
}

static char *__attribute__((noinline)) text_report(const struct ss_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_print_text(r, f);
	fclose(f);
	return buf;
}

static void test_text_block_under_the_lock(void **state)
{
	struct fixture *fx = *state;
	char *t = text_report(&fx->rep), *lock, *cond;
	if (getenv("SS_DUMP"))
		fputs(t, stderr);
	lock = strstr(t, "0x7f00dead1000");
	cond = strstr(t, "0x7f00dead2000");
	assert_non_null(lock);
	assert_non_null(cond);
	assert_non_null(strstr(t, "release site 1: 60 wakes (67%) woke 60, 1 thread; held while contended (a lower bound of the hold, not its total): avg 200.0 us, max 200.0 us over 60 holds measured"));
	assert_non_null(strstr(t, "        flush_queue+0x84 (app)"));
	assert_non_null(strstr(t, "release site 2: 30 wakes (33%)"));
	assert_non_null(strstr(t, "holders: 11 flusher 60 (67%), 12 stats 30 (33%); 2 of them also wait for it\n"));
	/* One block, under the lock; the condvar's word has none. */
	assert_null(strstr(strstr(t, "release site 2"), "release site 1"));
	assert_true(lock < strstr(t, "holders:") && strstr(t, "holders:") < cond);
	assert_null(strstr(cond, "holders:"));
	free(t);
}

static void test_folded_release_stacks(void **state)
{
	struct fixture *fx = *state;
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	__u64 total = 0;
	int n = 0;

	assert_non_null(f);
	assert_int_equal(folded__write(f, NULL, NULL, &fx->prof, &stacks, NULL), 0);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "futex-release;", 14))
			continue;
		total += strtoull(strrchr(line, ' ') + 1, NULL, 10);
		n++;
	}
	/* The lock's 90 wakes that found waiters; not the condvar's 50. */
	assert_int_equal(total, 90);
	assert_true(n >= 2);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json_release_sites_and_holders, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_block_under_the_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_release_stacks, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

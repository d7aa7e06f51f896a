// SPDX-License-Identifier: GPL-2.0
/*
 * exited_sites.c on real BPF hash maps of the tracer's key and value types
 * and a /proc stand-in (a folder whose task/TID folders are the live
 * threads): the gone threads' entries leave the maps, summed per word and
 * stack, their waiters' tids kept once each; the live thread's stay, whole.
 * The end-to-end drain is test_trace_counts'
 * test_exited_threads_leave_no_map_entries.
 */
#include "testlib.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "trace.h"
#include "trace/exited_sites.h"

#define LIVE 100	/* has task/100 */
#define WORD 0x1000ULL

static int map(size_t vsz)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(struct ss_waiter_key), (__u32)vsz,
				64, NULL);

	assert_true(fd >= 0);
	return fd;
}

static void put_waiter(int fd, __u64 uaddr, __s32 stack, __u32 tid, __u64 count, __u64 max)
{
	struct ss_waiter_key k = { .uaddr = uaddr, .stack_id = stack, .tid = tid };
	struct ss_waiter_val v = { .count = count, .wait_ns = 10 * count, .wait_ns_max = max };

	assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
}

static void put_release(int fd, __u64 uaddr, __s32 stack, __u32 tid, __u64 wakes)
{
	struct ss_release_key k = { .uaddr = uaddr, .stack_id = stack, .tid = tid };
	struct ss_release_val v = { .wakes = wakes, .woken = wakes, .held_contended_ns_max = wakes };

	assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
}

static size_t entries(int fd)
{
	struct ss_waiter_key k, *prev = NULL, next;
	size_t n = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		n++;
		k = next;
		prev = &k;
	}
	return n;
}

static void test_gone_threads_summed_live_kept(void **state)
{
	char dir[] = "/tmp/ss-exited-XXXXXX", path[64];
	struct exited_sites x = { 0 };
	struct ss_waiter_val *wv;
	struct ss_release_val *rv;
	int wfd, rfd, proc;

	TL_REQUIRE_BPF();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/task", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/task/%d", dir, LIVE);
	assert_int_equal(mkdir(path, 0700), 0);
	proc = open(dir, O_RDONLY | O_DIRECTORY);
	wfd = map(sizeof(struct ss_waiter_val));
	rfd = map(sizeof(struct ss_release_val));
	/* 201 waited from two stacks, 202 from one; LIVE too */
	put_waiter(wfd, WORD, 7, 201, 3, 50);
	put_waiter(wfd, WORD, 8, 201, 1, 5);
	put_waiter(wfd, WORD, 7, 202, 2, 70);
	put_waiter(wfd, WORD, 7, LIVE, 9, 90);
	put_release(rfd, WORD, 4, 201, 2);
	put_release(rfd, WORD, 4, 202, 5);
	put_release(rfd, WORD, 4, LIVE, 1);

	assert_int_equal(exited_sites_drain(&x, wfd, rfd, proc), 5);
	assert_int_equal(entries(wfd), 1);	/* LIVE's, left whole */
	assert_int_equal(entries(rfd), 1);
	/* stack 7: 201's and 202's; stack 8: 201's; under tid 0 */
	assert_int_equal(x.waiters.n, 2);
	for (size_t i = 0; i < x.waiters.n; i++) {
		struct ss_waiter_key *k = (struct ss_waiter_key *)x.waiters.keys + i;

		wv = (struct ss_waiter_val *)x.waiters.vals + i;
		assert_int_equal(k->tid, 0);
		assert_int_equal(k->uaddr, WORD);
		assert_int_equal(wv->count, k->stack_id == 7 ? 5 : 1);
		assert_int_equal(wv->wait_ns, k->stack_id == 7 ? 50 : 10);
		assert_int_equal(wv->wait_ns_max, k->stack_id == 7 ? 70 : 5);
	}
	assert_int_equal(x.releases.n, 1);
	rv = x.releases.vals;
	assert_int_equal(rv->wakes, 7);
	assert_int_equal(rv->woken, 7);
	assert_int_equal(rv->held_contended_ns_max, 5);	/* a maximum, not a sum */
	/* each gone waiter once, whatever its stacks */
	assert_int_equal(x.ntids, 2);
	assert_int_equal(x.tids[0].tid, 201);
	assert_int_equal(x.tids[1].tid, 202);
	/* nothing more to move: the live thread's entries stay */
	assert_int_equal(exited_sites_drain(&x, wfd, rfd, proc), 0);
	assert_int_equal(x.ntids, 2);
	exited_sites_free(&x);
	close(wfd);
	close(rfd);
	close(proc);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gone_threads_summed_live_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

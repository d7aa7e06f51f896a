// SPDX-License-Identifier: GPL-2.0
/*
 * stacks.c: the table of stacks copied out of the BPF stack map, with a
 * fake reader that counts its calls: each id is read once, negative ids
 * (failed stack lookups) are never read, frames are formatted once.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "model/stacks.h"
#include "trace.h"

#define MAX_ID 256

/* A fake stack map: id N has N % 5 frames (0 to 4) at 0x1000 * N + d;
 * the id in fail returns -EIO. */
struct fake_map {
	int reads[MAX_ID];
	int fmt_calls;
	int max_seen;
	__s32 fail;
};

static int fake_read(void *arg, __s32 id, __u64 *ips, int max)
{
	struct fake_map *m = arg;
	int depth = id % 5;

	assert_true(id >= 0 && id < MAX_ID);
	m->reads[id]++;
	m->max_seen = max;
	if (id == m->fail)
		return -EIO;
	for (int d = 0; d < depth && d < max; d++)
		ips[d] = 0x1000ull * id + d;
	return depth;
}

static const char *fake_fmt(void *arg, __u64 ip, int depth, char *buf, size_t len)
{
	struct fake_map *m = arg;

	m->fmt_calls++;
	snprintf(buf, len, "fn_%llx+%llu", (unsigned long long)(ip >> 12),
		 (unsigned long long)(ip & 0xfff));
	return buf;
}

static void test_add_and_find(void **state)
{
	struct fake_map m = { .fail = -1 };
	struct ss_stacks s = { 0 };
	const struct ss_stack *st;

	assert_int_equal(stacks__add(&s, 3, fake_read, &m), 0);
	assert_int_equal(stacks__add(&s, 7, fake_read, &m), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(m.max_seen, SS_MAX_STACK_DEPTH);
	st = stacks__find(&s, 3);
	assert_non_null(st);
	assert_int_equal(st->id, 3);
	assert_int_equal(st->depth, 3);
	assert_int_equal(st->ips[0], 0x3000);
	assert_int_equal(st->ips[2], 0x3002);
	assert_null(st->frames);
	st = stacks__find(&s, 7);
	assert_non_null(st);
	assert_int_equal(st->depth, 2);
	assert_int_equal(st->ips[1], 0x7001);
	assert_null(stacks__find(&s, 4));
	assert_null(stacks__find(&s, -1));
	stacks__free(&s);
}

static void test_duplicates_not_reread(void **state)
{
	struct fake_map m = { .fail = -1 };
	struct ss_stacks s = { 0 };

	for (int round = 0; round < 3; round++) {
		assert_int_equal(stacks__add(&s, 12, fake_read, &m), 0);
		assert_int_equal(stacks__add(&s, 13, fake_read, &m), 0);
	}
	assert_int_equal(s.n, 2);
	assert_int_equal(m.reads[12], 1);
	assert_int_equal(m.reads[13], 1);
	stacks__free(&s);
}

static void test_negative_ids_ignored(void **state)
{
	struct fake_map m = { .fail = -1 };
	struct ss_stacks s = { 0 };

	/* bpf_get_stackid's errors: -EFAULT, -EEXIST, -ENOMEM. */
	assert_int_equal(stacks__add(&s, -EFAULT, fake_read, &m), 0);
	assert_int_equal(stacks__add(&s, -EEXIST, fake_read, &m), 0);
	assert_int_equal(stacks__add(&s, -1, fake_read, &m), 0);
	assert_int_equal(s.n, 0);
	assert_null(stacks__find(&s, -EFAULT));
	for (int i = 0; i < MAX_ID; i++)
		assert_int_equal(m.reads[i], 0);
	stacks__free(&s);
}

/* An id whose stack has no frames (evicted from the map) is still held,
 * so that the report can say "not collected". */
static void test_empty_stack(void **state)
{
	struct fake_map m = { .fail = -1 };
	struct ss_stacks s = { 0 };
	const struct ss_stack *st;

	assert_int_equal(stacks__add(&s, 10, fake_read, &m), 0);	/* 10 % 5 == 0 */
	st = stacks__find(&s, 10);
	assert_non_null(st);
	assert_int_equal(st->depth, 0);
	assert_int_equal(stacks__symbolize(&s, fake_fmt, &m), 0);
	assert_int_equal(m.fmt_calls, 0);
	stacks__free(&s);
}

/* A failed read is returned and leaves nothing behind; a later add of
 * the same id reads it again. */
static void test_read_error(void **state)
{
	struct fake_map m = { .fail = 9 };
	struct ss_stacks s = { 0 };

	assert_int_equal(stacks__add(&s, 9, fake_read, &m), -EIO);
	assert_int_equal(s.n, 0);
	assert_null(stacks__find(&s, 9));
	m.fail = -1;
	assert_int_equal(stacks__add(&s, 9, fake_read, &m), 0);
	assert_int_equal(m.reads[9], 2);
	assert_int_equal(stacks__find(&s, 9)->depth, 4);
	stacks__free(&s);
}

/* Past the first allocation (32): every stack is kept and findable. */
static void test_many(void **state)
{
	struct fake_map m = { .fail = -1 };
	struct ss_stacks s = { 0 };

	for (int id = MAX_ID - 1; id >= 0; id--)
		assert_int_equal(stacks__add(&s, id, fake_read, &m), 0);
	assert_int_equal(s.n, MAX_ID);
	assert_true(s.cap >= s.n);
	for (int id = 0; id < MAX_ID; id++) {
		const struct ss_stack *st = stacks__find(&s, id);

		assert_non_null(st);
		assert_int_equal(st->depth, id % 5);
		if (st->depth)
			assert_int_equal(st->ips[st->depth - 1], 0x1000ull * id + st->depth - 1);
		assert_int_equal(m.reads[id], 1);
	}
	stacks__free(&s);
}

static void test_symbolize(void **state)
{
	struct fake_map m = { .fail = -1 };
	struct ss_stacks s = { 0 };
	const struct ss_stack *st;

	assert_int_equal(stacks__add(&s, 4, fake_read, &m), 0);
	assert_int_equal(stacks__add(&s, 2, fake_read, &m), 0);
	assert_int_equal(stacks__symbolize(&s, fake_fmt, &m), 0);
	assert_int_equal(m.fmt_calls, 4 + 2);
	st = stacks__find(&s, 4);
	assert_non_null(st->frames);
	assert_string_equal(st->frames[0], "fn_4+0");
	assert_string_equal(st->frames[3], "fn_4+3");
	assert_string_equal(stacks__find(&s, 2)->frames[1], "fn_2+1");

	/* Symbolized stacks are not formatted again; a new one is. */
	assert_int_equal(stacks__add(&s, 3, fake_read, &m), 0);
	assert_int_equal(stacks__symbolize(&s, fake_fmt, &m), 0);
	assert_int_equal(m.fmt_calls, 4 + 2 + 3);
	assert_string_equal(stacks__find(&s, 3)->frames[2], "fn_3+2");
	/* Older entries survived the table's growth untouched. */
	assert_string_equal(stacks__find(&s, 4)->frames[3], "fn_4+3");
	stacks__free(&s);
}

static void test_free_and_reuse(void **state)
{
	struct fake_map m = { .fail = -1 };
	struct ss_stacks s = { 0 };

	stacks__free(&s);	/* empty table */
	assert_int_equal(stacks__add(&s, 1, fake_read, &m), 0);
	assert_int_equal(stacks__symbolize(&s, fake_fmt, &m), 0);
	stacks__free(&s);
	assert_null(s.v);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.cap, 0);
	stacks__free(&s);	/* twice */
	/* Usable again after free. */
	assert_int_equal(stacks__add(&s, 1, fake_read, &m), 0);
	assert_int_equal(m.reads[1], 2);
	stacks__free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_find),
		cmocka_unit_test(test_duplicates_not_reread),
		cmocka_unit_test(test_negative_ids_ignored),
		cmocka_unit_test(test_empty_stack),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_symbolize),
		cmocka_unit_test(test_free_and_reuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

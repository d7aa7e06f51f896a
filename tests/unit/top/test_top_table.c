// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's table without a terminal: rows sorted by each column
 * (numbers biggest first, names A to Z, ties by pid), reversed, filtered by
 * name, container and unit, the threads view, the cells' formats and
 * widths, and no control byte in any line whatever a name holds.
 */
#include "testlib.h"
#include <stdio.h>
#include <string.h>
#include "top/top_table.h"
#include "top_fake.h"

struct fx {
	struct top_fake fake;
	struct top_snapshot snap;
	struct top_rows rows;
};

static int setup(void **state)
{
	static struct fx fx;

	memset(&fx, 0, sizeof(fx));
	assert_int_equal(top_fake_init(&fx.fake, 2000, 20), 0);
	top_fake_fill(&fx.fake, &fx.snap);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	top_table_free(&fx->rows);
	top_fake_free(&fx->fake);
	return 0;
}

static void build(struct fx *fx, enum top_col sort, bool reverse, const char *filter, int32_t threads)
{
	struct top_table_view v = { .sort = sort, .reverse = reverse, .threads_of = threads };

	snprintf(v.filter, sizeof(v.filter), "%s", filter);
	assert_int_equal(top_table_build(&fx->snap, &v, &fx->rows), 0);
}

static void test_sort_by_lock_wait_puts_the_locky_process_first(void **state)
{
	struct fx *fx = *state;

	build(fx, TOP_COL_LOCKWAIT, false, "", 0);
	assert_int_equal(fx->rows.n, TOP_FAKE_FIXED + 20);
	assert_int_equal(fx->rows.v[0].id, FAKE_LOCKY);
	for (size_t i = 1; i < fx->rows.n; i++)
		assert_true(fx->rows.v[i - 1].lock_wait_ns >= fx->rows.v[i].lock_wait_ns);
	build(fx, TOP_COL_LOCKWAIT, true, "", 0);
	assert_int_not_equal(fx->rows.v[0].id, FAKE_LOCKY);
	assert_int_equal(fx->rows.v[fx->rows.n - 1].id, FAKE_LOCKY);
}

/* Each column's own leader, by the letter that sorts by it. */
static void test_each_sort_key_has_its_leader(void **state)
{
	static const struct { char key; int32_t first; } cases[] = {
		{ 'y', FAKE_SPINNER }, { 's', FAKE_SPINNER }, { 'e', FAKE_IDLE },
		{ 'd', FAKE_HOG }, { 'r', FAKE_HOG }, { 'u', FAKE_HOG }, { 'w', FAKE_LOCKY },
		{ 'p', FAKE_LOCKY }, { 'c', FAKE_HOG }, { 'v', FAKE_LOCKY },
	};
	struct fx *fx = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int col = top_table_sort_key(cases[i].key);

		assert_true(col >= 0);
		build(fx, (enum top_col)col, false, "", 0);
		if (fx->rows.v[0].id != cases[i].first)
			fail_msg("key '%c': first row %d, expected %d", cases[i].key, fx->rows.v[0].id,
				 cases[i].first);
	}
	assert_int_equal(top_table_sort_key('q'), -1);
	/* Verdicts A to Z, then the rows without one; reversed, the other way. */
	build(fx, TOP_COL_VERDICT, false, "", 0);
	assert_string_equal(fx->rows.v[1].verdict, "oversubscribed");
	assert_string_equal(fx->rows.v[3].verdict, "");
	build(fx, TOP_COL_VERDICT, true, "", 0);
	assert_string_equal(fx->rows.v[0].verdict, "");
	assert_string_equal(fx->rows.v[fx->rows.n - 1].verdict, "futex-contention");
}

static void test_sort_step_skips_spin_without_sampling(void **state)
{
	assert_int_equal(top_table_sort_step(TOP_COL_YIELDS, 1, true), TOP_COL_SPIN);
	assert_int_equal(top_table_sort_step(TOP_COL_YIELDS, 1, false), TOP_COL_VERDICT);
	assert_int_equal(top_table_sort_step(TOP_COL_VERDICT, 1, false), TOP_COL_PID);
	assert_int_equal(top_table_sort_step(TOP_COL_PID, -1, false), TOP_COL_VERDICT);
	assert_int_equal(top_table_sort_step(TOP_COL_VERDICT, -1, false), TOP_COL_YIELDS);
}

static void test_filter_by_name_container_and_unit(void **state)
{
	struct fx *fx = *state;

	build(fx, TOP_COL_PID, false, "LOCK", 0);
	assert_int_equal(fx->rows.n, 1);
	assert_int_equal(fx->rows.v[0].id, FAKE_LOCKY);
	build(fx, TOP_COL_PID, false, "k8s:pod", 0);
	assert_int_equal(fx->rows.n, 2);	/* hog and odd */
	assert_int_equal(fx->rows.v[0].id, FAKE_HOG);
	build(fx, TOP_COL_PID, false, "pool.service", 0);
	assert_int_equal(fx->rows.n, 1);
	assert_int_equal(fx->rows.v[0].id, FAKE_IDLE);
	build(fx, TOP_COL_PID, false, "noise1", 0);	/* noise1, noise10..19 */
	assert_int_equal(fx->rows.n, 11);
	build(fx, TOP_COL_PID, false, "nothing-has-this", 0);
	assert_int_equal(fx->rows.n, 0);
}

static void test_threads_view(void **state)
{
	struct fx *fx = *state;
	char line[512];

	build(fx, TOP_COL_CPU, false, "", FAKE_LOCKY);
	assert_true(fx->rows.threads);
	assert_int_equal(fx->rows.n, 4);
	assert_int_equal(fx->rows.v[0].id, FAKE_LOCKY + 3);	/* the busiest thread */
	assert_string_equal(fx->rows.v[0].comm, "locky-w3");
	top_table_header(&fx->rows, &(struct top_table_view){ .sort = TOP_COL_CPU }, line, sizeof(line), 200);
	assert_non_null(strstr(line, "TID"));
	assert_non_null(strstr(line, "FUTEXWT"));
	/* 0.75 of the interval (2 s) in futex waits: 1.5 s. */
	top_table_line(&fx->rows, &fx->rows.v[0], line, sizeof(line), 200);
	assert_non_null(strstr(line, " 1.50s "));
	/* A process without thread detail, or gone: no rows. */
	build(fx, TOP_COL_CPU, false, "", FAKE_SPINNER);
	assert_int_equal(fx->rows.n, 0);
	build(fx, TOP_COL_CPU, false, "", 99999);
	assert_int_equal(fx->rows.n, 0);
}

/* The cells read as the model says: 3 intervals of 2 s of lock wait, 190%
 * CPU..., and the line is exactly as wide as asked. */
static void test_line_cells_and_width(void **state)
{
	struct fx *fx = *state;
	char line[512], head[512];
	struct top_table_view v = { .sort = TOP_COL_LOCKWAIT };

	build(fx, TOP_COL_LOCKWAIT, false, "", 0);
	top_table_line(&fx->rows, &fx->rows.v[0], line, sizeof(line), 132);
	print_message("# %s\n", line);
	assert_int_equal(strlen(line), 132);
	assert_non_null(strstr(line, "    100 locky "));
	assert_non_null(strstr(line, " docker:3f2a9c0d1e7b"));
	assert_non_null(strstr(line, " 50% "));
	assert_non_null(strstr(line, " 0.7/2 "));
	assert_non_null(strstr(line, " 6.00s "));		/* 3 x 2 s */
	assert_non_null(strstr(line, " 4000(1.2) "));	/* 2000/s x 2 s, 2400/2000 */
	assert_non_null(strstr(line, " futex-contention"));
	top_table_header(&fx->rows, &v, head, sizeof(head), 132);
	assert_non_null(strstr(head, "LOCKWAITv"));
	assert_non_null(strstr(head, "SPIN"));
	/* Narrow: cut, never wider. */
	top_table_line(&fx->rows, &fx->rows.v[0], line, sizeof(line), 20);
	assert_int_equal(strlen(line), 20);
	/* Without sampling there is no SPIN column. */
	fx->snap.sampling = false;
	build(fx, TOP_COL_LOCKWAIT, false, "", 0);
	top_table_header(&fx->rows, &v, head, sizeof(head), 132);
	assert_null(strstr(head, "SPIN"));
}

static void test_no_control_byte_reaches_the_screen(void **state)
{
	struct fx *fx = *state;
	char line[512], fit[64];

	build(fx, TOP_COL_PID, false, "odd", 0);
	assert_int_equal(fx->rows.n, 1);
	top_table_line(&fx->rows, &fx->rows.v[0], line, sizeof(line), 200);
	for (const char *p = line; *p; p++)
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
	assert_non_null(strstr(line, "odd?[31m"));
	/* UTF-8 kept whole and counted as one column; a stray byte is '?'. */
	top_table_fit(fit, sizeof(fit), "\xc3\xa9t\xc3\xa9\x80x", 4);
	assert_string_equal(fit, "\xc3\xa9t\xc3\xa9?");
	top_table_fit(fit, 4, "\xc3\xa9\xc3\xa9", 10);
	assert_string_equal(fit, "\xc3\xa9");
}

static void test_host_lines_say_what_tracing_costs(void **state)
{
	struct fx *fx = *state;
	char l1[256], l2[256];

	top_table_host_lines(&fx->snap, l1, l2, sizeof(l1), 200);
	print_message("# %s\n# %s\n", l1, l2);
	assert_non_null(strstr(l1, "load 1.25 0.75 0.50"));
	assert_non_null(strstr(l1, "2 CPUs (1.5 busy)"));
	assert_non_null(strstr(l1, "25 processes"));
	assert_non_null(strstr(l2, "BPF 0.20% of a CPU"));
	assert_non_null(strstr(l2, "spinscope 0.4% CPU, 9.0 MiB"));
	assert_non_null(strstr(l2, "drops 3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sort_by_lock_wait_puts_the_locky_process_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_sort_key_has_its_leader, setup, teardown),
		cmocka_unit_test(test_sort_step_skips_spin_without_sampling),
		cmocka_unit_test_setup_teardown(test_filter_by_name_container_and_unit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_cells_and_width, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_control_byte_reaches_the_screen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_lines_say_what_tracing_costs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

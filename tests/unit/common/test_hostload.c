// SPDX-License-Identifier: GPL-2.0
/* common/hostload.c: the host's load during a trace from two /proc/stat reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "testlib.h"
#include "common/hostload.h"

/* A root with proc/stat holding `line`. */
static void fake_root(char *root, size_t len, const char *line)
{
	char path[256];
	FILE *f;

	snprintf(root, len, "/tmp/ss-hostload-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\ncpu0 1 2 3 4 5 6 7 8 0 0\n", line);
	fclose(f);
}

static void remove_root(const char *root)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_busy_share_of_all_ticks(void **state)
{
	char r0[64], r1[64];
	struct host_ticks a, b;
	struct host_load l;

	/* user nice system idle iowait irq softirq steal guest guest_nice */
	fake_root(r0, sizeof(r0), "cpu  1000 0 500 8000 100 50 50 300 200 0");
	fake_root(r1, sizeof(r1), "cpu  1600 0 800 8200 100 50 50 300 400 0");
	host_ticks_read(r0, &a);
	host_ticks_read(r1, &b);
	assert_true(a.ok && b.ok);
	/* busy: user+nice+system+irq+softirq+steal; guest is inside user. */
	assert_int_equal(a.busy, 1900);
	assert_int_equal(a.total, 10000);
	/* 900 of 1100 ticks busy on 2 CPUs: 1.64 CPUs; the target ran 0.5. */
	host_load_between(&a, &b, 2, 0.5, &l);
	assert_true(l.measured);
	assert_true(l.busy_cpus > 1.63 && l.busy_cpus < 1.64);
	assert_true(l.busy_other_cpus > 1.13 && l.busy_other_cpus < 1.14);
	/* The target's own time cannot make the others' negative. */
	host_load_between(&a, &b, 2, 1.9, &l);
	assert_true(l.busy_other_cpus == 0);
	remove_root(r0);
	remove_root(r1);
}

static void test_unreadable_or_no_time_is_unmeasured(void **state)
{
	struct host_ticks a, b;
	struct host_load l;

	host_ticks_read("/nonexistent-root", &a);
	assert_false(a.ok);
	b = (struct host_ticks){ .busy = 10, .total = 100, .ok = true };
	host_load_between(&a, &b, 2, 0, &l);
	assert_false(l.measured);
	a = b;
	host_load_between(&a, &b, 2, 0, &l);	/* no tick passed */
	assert_false(l.measured);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_share_of_all_ticks),
		cmocka_unit_test(test_unreadable_or_no_time_is_unmeasured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

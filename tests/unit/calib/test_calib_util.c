// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the calibration measurement helpers (calib_util, calib_json). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "testlib.h"
#include "calib/kern/calib_util.h"
#include "calib/calib_json.h"

static void test_stats_odd_even(void **state)
{
	const double odd[] = { 5, 1, 3 };
	const double even[] = { 4, 1, 3, 2 };
	struct calib_stats st;

	calib_stats__compute(&st, odd, 3);
	assert_int_equal(st.n, 3);
	assert_true(st.median == 3 && st.min == 1 && st.max == 5);
	/* mean 3, sample stddev 2: cv 2/3 */
	assert_true(st.cv > 0.6666 && st.cv < 0.6667);
	calib_stats__compute(&st, even, 4);
	assert_true(st.median == 2.5 && st.min == 1 && st.max == 4);
	calib_stats__compute(&st, even, 0);
	assert_int_equal(st.n, 0);
	assert_true(st.median == 0);
}

static double next_sample(void *arg)
{
	int *i = arg;

	return (double)(10 + (*i)++);
}

static void test_repeat_and_stop(void **state)
{
	struct calib_stats st;
	volatile sig_atomic_t stop = 0;
	int i = 0;

	assert_int_equal(calib__repeat(5, &stop, next_sample, &i, &st), 5);
	assert_true(st.median == 12 && st.min == 10 && st.max == 14);
	stop = 1;
	assert_int_equal(calib__repeat(5, &stop, next_sample, &i, &st), 0);
	assert_int_equal(st.n, 0);
}

static void test_cpulist(void **state)
{
	cpu_set_t s;

	assert_int_equal(calib__parse_cpulist("0-2,5,7-8\n", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 6);
	assert_true(CPU_ISSET(5, &s) && CPU_ISSET(8, &s) && !CPU_ISSET(3, &s));
	assert_int_equal(calib__nth_cpu(&s, 3), 5);
	assert_int_equal(calib__nth_cpu(&s, 6), 0);	/* wraps round-robin */
	assert_int_equal(calib__parse_cpulist("", &s), -EINVAL);
	assert_int_equal(calib__parse_cpulist("1,", &s), -EINVAL);
	assert_int_equal(calib__parse_cpulist("3-1", &s), -EINVAL);
	assert_int_equal(calib__parse_cpulist("a", &s), -EINVAL);
	assert_int_equal(calib__parse_cpulist("99999", &s), -EINVAL);
	CPU_ZERO(&s);
	assert_int_equal(calib__nth_cpu(&s, 0), -1);
}

struct team_arg {
	atomic_int ran;
	int cpu_seen[8];
};

static void team_fn(int idx, void *p)
{
	struct team_arg *a = p;
	uint64_t until = calib__now_ns() + 2000000;	/* 2 ms of work */

	a->cpu_seen[idx] = sched_getcpu();
	while (calib__now_ns() < until)
		;
	atomic_fetch_add(&a->ran, 1);
}

static void test_team_pins_and_times(void **state)
{
	struct calib_team_result r;
	struct team_arg a = { 0 };
	cpu_set_t allowed;

	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	assert_int_equal(calib_team__run(&allowed, 4, team_fn, &a, &r), 0);
	assert_int_equal(atomic_load(&a.ran), 4);
	assert_int_equal(r.nthreads, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(r.members[i].cpu, calib__nth_cpu(&allowed, i));
		assert_int_equal(a.cpu_seen[i], r.members[i].cpu);
		assert_true(r.members[i].end_ns >= r.members[i].start_ns + 2000000);
	}
	/* Each thread burnt CPU until its 2 ms deadline, so the sum of CPU time
	 * is positive and overlap is a fraction in (0, 1]. */
	assert_true(r.cpu_ns_sum > 0 && r.wall_ns >= 2000000);
	assert_true(r.overlap > 0 && r.overlap <= 1.05);
	json_object *j = calib_team__json(&r);
	assert_int_equal((int)calib_json__double(j, "threads", 0), 4);
	json_object_put(j);
	calib_team__free(&r);
	assert_int_equal(calib_team__run(&allowed, 0, team_fn, &a, &r), -EINVAL);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_busy_probe(void **state)
{
	char root[] = "/tmp/ss-busy-XXXXXX", path[256];
	struct calib_busy_sample a, b;
	struct calib_busy busy;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/loadavg", root);
	write_file(path, "3.50 1.00 0.50 3/100 1234\n");
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	write_file(path, "cpu  100 0 100 700 0 0 0 100 0 0\ncpu0 1 2 3\nprocs_running 3\n");
	assert_int_equal(calib_busy__read(root, &a), 0);
	assert_true(a.load1 == 3.5 && a.steal == 100 && a.total == 1000 && a.idle == 700);
	assert_int_equal(a.running, 3);
	/* No cpufreq in the fake tree: /proc/cpuinfo's clock, averaged. */
	assert_true(a.cpu_mhz == 0);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	write_file(path, "processor\t: 0\ncpu MHz\t\t: 2000.000\nprocessor\t: 1\ncpu MHz\t\t: 3000.0\n");
	assert_int_equal(calib_busy__read(root, &a), 0);
	assert_true(a.cpu_mhz == 2500 && !a.mhz_cpufreq);
	/* 200 more ticks: 100 user (others: this process used none of it,
	 * self_ns is pinned below), 50 idle, 50 stolen. */
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	write_file(path, "cpu  200 0 100 750 0 0 0 150 0 0\n");
	assert_int_equal(calib_busy__read(root, &b), 0);
	a.self_ns = b.self_ns = 0;
	calib_busy__judge(&a, &b, 2, &busy);
	assert_true(busy.busy);
	assert_true(busy.steal_frac == 0.25);
	assert_true(busy.others_share == 0.5);
	assert_true(busy.load1 == 3.5 && busy.cpu_mhz == 2500);
	assert_string_equal(busy.mhz_source, "cpuinfo");
	assert_non_null(strstr(busy.why, "other processes used 50% of the 2 CPUs"));
	assert_non_null(strstr(busy.why, "25% of CPU time stolen"));
	/* The same busy ticks, all of them ours: not busy, whatever the load. */
	b.self_ns = (uint64_t)(100 * 1e9 / sysconf(_SC_CLK_TCK));
	write_file(path, "cpu  200 0 100 800 0 0 0 100 0 0\n");
	calib_busy__read(root, &b);
	b.self_ns = (uint64_t)(100 * 1e9 / sysconf(_SC_CLK_TCK));
	calib_busy__judge(&a, &b, 2, &busy);
	assert_true(busy.others_share < 0.01);
	assert_false(busy.busy);
	calib_busy__judge(&a, &a, 8, &busy);
	assert_false(busy.busy);
	assert_true(busy.others_share == -1);	/* no ticks: unknown */
	assert_string_equal(busy.why, "");

	json_object *j = calib_stats__json(&(struct calib_stats){ 10, 9, 11, 0.01, 5, 9, 11, 0 },
					   CALIB_CV_INSTR, NULL);
	assert_null(calib_json__string(j, "warning", NULL));
	json_object_put(j);
	busy.busy = true;
	snprintf(busy.why, sizeof(busy.why), "steal");
	j = calib_stats__json(&(struct calib_stats){ 10, 5, 20, 0.3, 5, 5, 20, 0 }, CALIB_CV_INSTR, &busy);
	assert_string_equal(calib_json__string(j, "warning", ""),
			    "wide spread: cv 30% (limit 5%); host busy: steal");
	json_object_put(j);

	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
	assert_int_equal(calib_busy__read("/nonexistent-root", &a), -ENOENT);
}

static void test_cell_and_warnings(void **state)
{
	json_object *r = json_object_new_object(), *inner = json_object_new_object();
	char buf[64];
	FILE *f;
	char *text = NULL;
	size_t len = 0;

	json_object_object_add(r, "x", calib_stats__json(&(struct calib_stats){ 12.345, 12, 13, 0.02, 5, 12, 13, 0 },
							 CALIB_CV_INSTR, NULL));
	json_object_object_add(inner, "y", calib_stats__json(&(struct calib_stats){ 1, 1, 1, 0, 1, 1, 1, 0 },
							     CALIB_CV_INSTR, NULL));
	json_object_object_add(r, "inner", inner);
	assert_string_equal(calib_json__cell(r, "x", "%.2f", buf, sizeof(buf)), "12.35 ±2%");
	assert_string_equal(calib_json__cell(inner, "y", "%.0f", buf, sizeof(buf)), "1 ±0%!");
	assert_string_equal(calib_json__cell(r, "missing", "%.0f", buf, sizeof(buf)), "-");
	json_object_object_add(inner, "warning", json_object_new_string("threads ran at once only 5% of the time"));
	f = open_memstream(&text, &len);
	/* A figure's own busy-host warning is counted, not repeated. */
	json_object_object_add(r, "z", json_object_new_object());
	json_object_object_add(json_object_object_get(r, "z"), "warning",
			       json_object_new_string("host busy: load average 4.24 on 2 CPUs"));
	assert_int_equal(calib_json__print_warnings(r, f), 3);
	fclose(f);
	assert_string_equal(text, "  warning: inner: threads ran at once only 5% of the time\n"
			    "  warning: 2 figures marked ! have a wide spread, too few samples or a busy host: "
			    "rerun on an idle host or with --full\n");
	free(text);
	json_object_put(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_odd_even),
		cmocka_unit_test(test_repeat_and_stop),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_team_pins_and_times),
		cmocka_unit_test(test_busy_probe),
		cmocka_unit_test(test_cell_and_warnings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

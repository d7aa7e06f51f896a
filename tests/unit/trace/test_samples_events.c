// SPDX-License-Identifier: GPL-2.0
/*
 * perf_events.c and cpulist.c: --event names to perf_event_attr, the
 * sentences for perf_event_open() failures, the CPU list parser, and the
 * checks samples__open makes before it touches the kernel.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/cpulist.h"
#include "common/errors.h"
#include "trace/perf_events.h"
#include "trace/samples.h"

static void test_event_names_map_to_attrs(void **state)
{
	static const struct {
		const char *name;
		__u32 type;
		__u64 config;
	} want[] = {
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
		{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct perf_event_spec *s = perf_event__lookup(want[i].name);

		assert_non_null(s);
		assert_string_equal(s->name, want[i].name);
		assert_int_equal(s->type, want[i].type);
		assert_int_equal(s->config, want[i].config);
		assert_true(s->default_period > 1);
	}
	assert_string_equal(perf_event__lookup(PERF_EVENT_DEFAULT)->name, "cache-misses");
	assert_null(perf_event__lookup("cache-miss"));
	assert_null(perf_event__lookup("CPU-CLOCK"));
	assert_null(perf_event__lookup(""));
	assert_null(perf_event__lookup(NULL));
}

static void test_event_names_list(void **state)
{
	char buf[256], tiny[10];

	assert_string_equal(perf_event__names(buf, sizeof(buf)),
			    "cache-misses, cache-references, instructions, cycles, "
			    "cpu-clock, task-clock, page-faults");
	/* Truncated, still terminated. */
	assert_int_equal(strlen(perf_event__names(tiny, sizeof(tiny))), sizeof(tiny) - 1);
}

/* Runs perf_event__parse_arg with stderr captured. */
static int parse_arg_stderr(const char *name, const struct perf_event_spec **spec,
			    char *err, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(2), rc;
	size_t n;

	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	rc = perf_event__parse_arg(name, spec);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(err, 1, size - 1, f);
	err[n] = '\0';
	fclose(f);
	return rc;
}

static void test_event_arg_usage_error(void **state)
{
	const struct perf_event_spec *spec;
	char err[512];

	assert_int_equal(parse_arg_stderr("cpu-clock", &spec, err, sizeof(err)), SS_EXIT_OK);
	assert_string_equal(spec->name, "cpu-clock");
	assert_string_equal(err, "");

	assert_int_equal(parse_arg_stderr("llc-misses", &spec, err, sizeof(err)), SS_EXIT_USAGE);
	assert_null(spec);
	assert_non_null(strstr(err, "unknown event 'llc-misses'"));
	assert_non_null(strstr(err, "cache-misses, cache-references, instructions, cycles, "
				    "cpu-clock, task-clock, page-faults"));
	assert_non_null(strchr(err, '\n'));
	assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);	/* one line */
}

static void test_attrs(void **state)
{
	const struct perf_event_spec *miss = perf_event__lookup("cache-misses");
	const struct perf_event_spec *clk = perf_event__lookup("cpu-clock");
	struct perf_event_attr a;

	perf_event__sampling_attr(miss, 0, 0, &a);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.type, PERF_TYPE_HARDWARE);
	assert_int_equal(a.config, PERF_COUNT_HW_CACHE_MISSES);
	assert_int_equal(a.sample_period, 10007);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.disabled, 1);

	perf_event__sampling_attr(clk, 0, 0, &a);
	assert_int_equal(a.sample_period, 1001001);
	perf_event__sampling_attr(clk, 5000, 0, &a);
	assert_int_equal(a.sample_period, 5000);
	perf_event__sampling_attr(clk, 5000, 99, &a);
	assert_int_equal(a.freq, 1);
	assert_int_equal(a.sample_freq, 99);

	perf_event__counting_attr(miss, &a);
	assert_int_equal(a.sample_period, 0);
	assert_int_equal(a.disabled, 0);
	assert_int_equal(a.config, PERF_COUNT_HW_CACHE_MISSES);
}

static void test_open_errors_explained(void **state)
{
	const struct perf_event_spec *miss = perf_event__lookup("cache-misses");
	const struct perf_event_spec *pf = perf_event__lookup("page-faults");
	char buf[256];

	assert_true(perf_event__err_unsupported(ENOENT));
	assert_true(perf_event__err_unsupported(EOPNOTSUPP));
	assert_false(perf_event__err_unsupported(EACCES));
	assert_false(perf_event__err_unsupported(ENODEV));

	assert_string_equal(perf_event__explain(miss, ENOENT, 0, buf, sizeof(buf)),
			    "hardware event cache-misses not supported on this host (no PMU, "
			    "e.g. in a VM): use --event cpu-clock for an on-CPU profile");
	assert_string_equal(perf_event__explain(miss, EOPNOTSUPP, 3, buf, sizeof(buf)),
			    "hardware event cache-misses not supported on this host (no PMU, "
			    "e.g. in a VM): use --event cpu-clock for an on-CPU profile");
	assert_non_null(strstr(perf_event__explain(pf, ENOENT, 0, buf, sizeof(buf)),
			       "event page-faults not supported by this kernel"));
	perf_event__explain(miss, EACCES, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "no permission to open perf event cache-misses"));
	assert_non_null(strstr(buf, "CAP_PERFMON"));
	assert_non_null(strstr(buf, "kernel.perf_event_paranoid is "));
	perf_event__explain(miss, EPERM, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "no permission"));
	assert_non_null(strstr(perf_event__explain(pf, EMFILE, 7, buf, sizeof(buf)),
			       "on CPU 7: raise the limit (ulimit -n)"));
	assert_non_null(strstr(perf_event__explain(miss, EBUSY, 1, buf, sizeof(buf)), "busy on CPU 1"));
	assert_string_equal(perf_event__explain(pf, EINVAL, 2, buf, sizeof(buf)),
			    "cannot open perf event page-faults on CPU 2: Invalid argument");
}

static void expect_cpus(const char *list, const int *want, int n)
{
	int cpus[64];

	assert_int_equal(cpulist__parse(list, cpus, 64), n);
	for (int i = 0; i < n; i++)
		assert_int_equal(cpus[i], want[i]);
}

static void test_cpulist_parse(void **state)
{
	int cpus[4];

	expect_cpus("0-1\n", (int[]){ 0, 1 }, 2);
	expect_cpus("0", (int[]){ 0 }, 1);
	expect_cpus("0,2-3,7\n", (int[]){ 0, 2, 3, 7 }, 4);
	expect_cpus("1-2,4-5", (int[]){ 1, 2, 4, 5 }, 4);
	expect_cpus("3-3", (int[]){ 3 }, 1);
	expect_cpus("", NULL, 0);
	expect_cpus("\n", NULL, 0);

	assert_int_equal(cpulist__parse(NULL, cpus, 4), -EINVAL);
	static const char *const bad[] = {
		"a", "-1", "1-", "3-1", "1,,2", "1,", ",1", "1-2-3", "0 1", "1\n\n",
		"2,1", "0,0", "0-3,2", "99999999999", "65536", "0x1", "1\n2",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (cpulist__parse(bad[i], cpus, 4) != -EINVAL)
			fail_msg("bad list #%zu accepted", i);
	assert_int_equal(cpulist__parse("0-4", cpus, 4), -E2BIG);
	assert_int_equal(cpulist__parse("65535", cpus, 4), 1);
	assert_int_equal(cpus[0], 65535);
}

static void test_cpulist_read(void **state)
{
	char *path = tl_write_tmp("0-3,6\n");
	int *cpus = NULL;

	assert_non_null(path);

	assert_int_equal(cpulist__read(path, &cpus), 5);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 6);
	free(cpus);
	unlink(path);
	free(path);

	path = tl_write_tmp("0-1,junk\n");
	assert_non_null(path);
	assert_int_equal(cpulist__read(path, &cpus), -EINVAL);
	assert_null(cpus);
	unlink(path);
	assert_int_equal(cpulist__read(path, &cpus), -ENOENT);
	free(path);

	/* This machine's own list parses and names CPU numbers in order. */
	assert_true(cpulist__read(NULL, &cpus) >= 1);
	free(cpus);
}

/* What samples__open refuses before it asks the kernel anything. */
static void test_open_rejects_bad_options(void **state)
{
	struct samples_opts o = { 0 };
	char why[256];

	errno = 0;
	assert_null(samples__open(NULL, why, sizeof(why)));
	assert_int_equal(errno, EINVAL);
	assert_null(samples__open(&o, why, sizeof(why)));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(why, "sampling needs a target pid");

	o.pid = getpid();
	o.event = "l3-misses";
	assert_null(samples__open(&o, why, sizeof(why)));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(why, "unknown event 'l3-misses'"));
	assert_non_null(strstr(why, "cpu-clock"));

	o.event = "cpu-clock";
	o.online_path = "/nonexistent/online";
	assert_null(samples__open(&o, why, sizeof(why)));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(why, "cannot read the online CPUs from /nonexistent/online: "
				 "No such file or directory");

	samples__free(NULL);	/* accepted, does nothing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_names_map_to_attrs),
		cmocka_unit_test(test_event_names_list),
		cmocka_unit_test(test_event_arg_usage_error),
		cmocka_unit_test(test_attrs),
		cmocka_unit_test(test_open_errors_explained),
		cmocka_unit_test(test_cpulist_parse),
		cmocka_unit_test(test_cpulist_read),
		cmocka_unit_test(test_open_rejects_bad_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

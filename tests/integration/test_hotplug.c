// SPDX-License-Identifier: GPL-2.0
/*
 * Real CPU hotplug during a trace (issue 13 item 7): CPU 1 is offline when
 * spinscope starts and comes online after it attached; the spinner is then
 * pinned to it. Before, CPU 1 never got a sampling event: its samples were
 * lost, "samples.cpus" said 1 and nothing said why. Now the report counts
 * both CPUs, names CPU 1 as offline for part of the trace, and the samples
 * add up to the spinner's CPU time.
 *
 * This takes a CPU of the host away for about a second (put back by the
 * teardown whatever happens). Skipped, with the reason, only where the
 * kernel does not let CPU 1 go offline.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tracetest.h"

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"
#define END_TIMEOUT_MS 15000
#define PINNED_MS 1500
#define CPU_CLOCK_PERIOD_NS 1001001ull

/* 0 or -errno. */
static int cpu1_set(int on)
{
	int fd = open(CPU1_ONLINE, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1\n" : "0\n", 2) != 2)
		err = -errno;
	close(fd);
	return err;
}

static int put_cpu1_back(void **state)
{
	cpu1_set(1);
	return tt_teardown(state);
}

/* The thread's time on CPU, from the scheduler (ns). */
static uint64_t oncpu_ns(int pid, int tid)
{
	char path[96];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &ns), 1);
	fclose(f);
	return ns;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void test_cpu_online_during_trace_is_sampled(void **state)
{
	char *argv[] = { (char *)tl_path("workloads/spin_known"), "60", NULL };
	struct tl_proc spinner;
	struct tt_trace t;
	json_object *doc, *offline;
	uint64_t ns0, ns1, want, got;
	cpu_set_t one;
	char line[256];
	int pid, tid, err;

	TL_REQUIRE_BPF();
	if (access(CPU1_ONLINE, F_OK)) {
		print_message("skip: %s is absent: this kernel cannot take CPU 1 offline\n", CPU1_ONLINE);
		skip();
	}
	err = cpu1_set(0);
	if (err) {
		print_message("skip: cannot take CPU 1 offline here: %s\n", strerror(-err));
		skip();
	}
	assert_int_equal(tl_spawn(&spinner, argv), 0);
	assert_true(tl_read_line(&spinner, line, sizeof(line), 5000));
	assert_int_equal(sscanf(line, "pid=%d tid=%d", &pid, &tid), 2);
	tt_trace_start(&t, TT_ARGS("-p", tt_num(pid), "-d", "0", "--event", "cpu-clock", "--json",
				   "--no-calibrate"));
	ns0 = oncpu_ns(pid, tid);
	assert_int_equal(cpu1_set(1), 0);
	/* Pinned where only the new CPU's event can see it. */
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	for (int i = 0; sched_setaffinity(tid, sizeof(one), &one); i++) {
		assert_true(errno == EINVAL && i < 100);	/* until the CPU is usable */
		sleep_ms(10);
	}
	sleep_ms(PINNED_MS);
	ns1 = oncpu_ns(pid, tid);
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	tl_kill(&spinner, SIGKILL);
	tl_wait(&spinner);
	if (t.rc != 0)
		fail_msg("exit %d; stderr: %s", t.rc, t.err);

	doc = tt_parse_report(t.out);
	assert_int_equal(tt_u64(doc, "samples.cpus"), 2);
	offline = tt_get(doc, "samples.cpus_offline");
	assert_int_equal(json_object_array_length(offline), 1);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(offline, 0)), 1);
	assert_int_equal(tt_u64(doc, "host.cpus"), 2);
	/* A quarter of one sample per period of its CPU time at least, on a
	 * loaded host; before, the pinned part (most of it) had none. */
	want = (ns1 - ns0) / CPU_CLOCK_PERIOD_NS / 4;
	got = tt_u64(doc, "samples.total");
	if (got < want)
		fail_msg("%" PRIu64 " samples for %" PRIu64 " ns on CPU, expected at least %" PRIu64,
			 got, ns1 - ns0, want);
	json_object_put(doc);
	tt_trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_cpu_online_during_trace_is_sampled, put_cpu1_back),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	cpu1_set(1);
	return rc;
}

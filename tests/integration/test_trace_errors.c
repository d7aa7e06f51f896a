// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input and a hostile environment, for real: each case must end with its
 * documented exit code, one clear line on stderr, and no BPF program or link
 * left behind.
 *
 *   3  no such pid, a kernel thread (kthreadd), a zombie, a thread id as -p,
 *      -t naming a thread of another process
 *   2  non-numeric pid, negative duration, unknown option
 *   4  an unprivileged user (setpriv), root without CAP_BPF, without CAP_PERFMON
 *   5  --btf FILE missing or holding no BTF; /sys/kernel/btf hidden (unshare -m + tmpfs);
 *      a tracefs without the syscalls tracepoints (unshare -m + tmpfs)
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "tracetest.h"

#define RUN_TIMEOUT_MS 15000

/* Runs argv (a wrapper such as setpriv, or spinscope itself) expecting exit
 * code `want` with one line on stderr that contains every string in needles.
 * Returns stderr (caller frees). Checks that nothing BPF is left behind. */
static char *expect_error(const char *const argv[], int want, const char *const needles[])
{
	struct tt_bpf_mark mark;
	char *out, *err;
	int rc;

	tt_bpf_mark(&mark);
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc != want)
		fail_msg("exit code %d, expected %d; stderr: %s; stdout: %.500s", rc, want, err, out);
	if (strncmp(err, "spinscope: ", 11) || !strchr(err, '\n') || strchr(err, '\n')[1])
		fail_msg("expected one line \"spinscope: ...\" on stderr, got: %s", err);
	for (; needles && *needles; needles++)
		if (!strstr(err, *needles))
			fail_msg("the error does not mention \"%s\": %s", *needles, err);
	free(out);
	tt_assert_nothing_left(&mark);
	return err;
}

/* Same, running spinscope with args directly. */
static char *expect_spinscope_error(const char *const args[], int want, const char *const needles[])
{
	const char *argv[32] = { tl_path("spinscope") };
	int n = 1;

	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	return expect_error(argv, want, needles);
}

/* ---- 3: the target --------------------------------------------------------- */

/* A pid no process has right now (highest free one below pid_max). */
static pid_t unused_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long max = 32768;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 32768;
		fclose(f);
	}
	for (long pid = max - 1; pid > 300; pid--) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%ld", pid);
		if (access(path, F_OK) && errno == ENOENT && kill((pid_t)pid, 0) && errno == ESRCH)
			return (pid_t)pid;
	}
	fail_msg("no free pid found");
	return -1;
}

static void test_no_such_pid(void **state)
{
	pid_t pid = unused_pid();

	TL_REQUIRE_BPF();
	free(expect_spinscope_error(TT_ARGS("-p", tt_num(pid), "-d", "1"), 3,
				    TT_ARGS(tt_num(pid))));
	/* In JSON mode the same error is also a JSON object on stdout. */
	{
		char *out, *err;
		json_object *o;

		assert_int_equal(tt_run(TT_ARGS(tl_path("spinscope"), "-p", tt_num(pid), "-d", "1",
						"--json"), &out, &err, RUN_TIMEOUT_MS), 3);
		o = tt_parse_report(out);
		assert_int_equal(tt_u64(o, "exit_code"), 3);
		assert_non_null(strstr(json_object_get_string(tt_get(o, "error")), tt_num(pid)));
		json_object_put(o);
		free(out);
		free(err);
	}
}

/* Whether /proc/PID/stat says PF_KTHREAD (flags are field 9). */
static bool is_kernel_thread(long pid)
{
	unsigned long flags = 0;
	char path[64], stat[1024];
	char *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(stat, sizeof(stat), f);
	fclose(f);
	if (!p || !(p = strrchr(stat, ')')))
		return false;
	/* ") S ppid pgrp session tty_nr tpgid flags" */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & 0x00200000;	/* PF_KTHREAD */
}

/* kthreadd (pid 2) where this pid namespace shows it, else any kernel thread. */
static long find_kernel_thread(void)
{
	if (is_kernel_thread(2))
		return 2;
	for (long pid = 3; pid < 4096; pid++)
		if (is_kernel_thread(pid))
			return pid;
	return -1;
}

static void test_kernel_thread(void **state)
{
	long pid;

	TL_REQUIRE_BPF();
	pid = find_kernel_thread();
	if (pid < 0) {
		print_message("skip: no kernel thread is visible in this pid namespace\n");
		skip();
	}
	free(expect_spinscope_error(TT_ARGS("-p", tt_num(pid), "-d", "1"), 3,
				    TT_ARGS(tt_num(pid))));
}

static void test_zombie(void **state)
{
	char path[64], stat[512] = "";
	pid_t child;

	TL_REQUIRE_BPF();
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	/* We never wait for it until the end: it stays a zombie. */
	snprintf(path, sizeof(path), "/proc/%d/stat", child);
	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(path, "re");
		char *close_paren;

		assert_non_null(f);
		assert_non_null(fgets(stat, sizeof(stat), f));
		fclose(f);
		close_paren = strrchr(stat, ')');
		if (close_paren && close_paren[2] == 'Z')
			break;
		usleep(10000);
	}
	assert_non_null(strstr(stat, ") Z "));
	free(expect_spinscope_error(TT_ARGS("-p", tt_num(child), "-d", "1"), 3,
				    TT_ARGS(tt_num(child))));
	assert_int_equal(waitpid(child, NULL, 0), child);
}

/* -p takes a process; a thread id (not the thread group leader) is refused. */
static void test_thread_id_as_pid(void **state)
{
	struct tt_workload w;
	long long tids[2];

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "2"));
	assert_int_equal(tt_field_list(w.ready, "tids", tids, 2), 2);
	assert_true(tids[0] != w.proc.pid);
	free(expect_spinscope_error(TT_ARGS("-p", tt_num(tids[0]), "-d", "1"), 3,
				    TT_ARGS(tt_num(tids[0]))));
	tt_workload_end(&w);
}

/* -t must name a thread of the -p process. */
static void test_tid_of_another_process(void **state)
{
	struct tt_workload w, other;
	long long tid;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	tt_workload_start(&other, "yield_n", TT_ARGS("1", "1"));
	assert_int_equal(tt_field_list(other.ready, "tids", &tid, 1), 1);
	free(expect_spinscope_error(TT_ARGS("-p", tt_num(w.proc.pid), "-t", tt_num(tid), "-d", "1"),
				    3, TT_ARGS(tt_num(tid))));
	tt_workload_end(&other);
	tt_workload_end(&w);
}

/* ---- 2: arguments ---------------------------------------------------------- */

/* Usage errors: exit 2, and the first stderr line says what was wrong (a
 * usage line may follow). */
static void expect_usage(const char *const args[], const char *needle)
{
	const char *argv[32] = { tl_path("spinscope") };
	struct tt_bpf_mark mark;
	char *out, *err;
	int n = 1, rc;

	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	tt_bpf_mark(&mark);
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc != 2)
		fail_msg("exit code %d, expected 2 (usage); stderr: %s", rc, err);
	if (strncmp(err, "spinscope: ", 11))
		fail_msg("stderr does not start with \"spinscope: \": %s", err);
	*strchrnul(err, '\n') = 0;
	if (!strstr(err, needle))
		fail_msg("the error does not mention \"%s\": %s", needle, err);
	free(out);
	free(err);
	tt_assert_nothing_left(&mark);
}

static void test_bad_arguments(void **state)
{
	struct tt_workload w;
	const char *pid;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	pid = tt_num(w.proc.pid);
	expect_usage(TT_ARGS("-p", "abc"), "abc");
	expect_usage(TT_ARGS("-p", "12x"), "12x");
	expect_usage(TT_ARGS("-p", pid, "-d", "-1"), "-1");
	expect_usage(TT_ARGS("-p", pid, "-d", "soon"), "soon");
	expect_usage(TT_ARGS("-p", pid, "--bogus"), "bogus");
	expect_usage(TT_ARGS("-p", pid, "-t", "abc"), "abc");
	tt_workload_end(&w);
}

/* ---- 4: privileges --------------------------------------------------------- */

static void test_unprivileged_user(void **state)
{
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	free(expect_error(TT_ARGS("/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
				  "--clear-groups", "--inh-caps=-all", tl_path("spinscope"),
				  "-p", tt_num(w.proc.pid), "-d", "1"),
			  4, TT_ARGS("CAP_BPF", "CAP_PERFMON")));
	tt_workload_end(&w);
}

/* Root whose bounding set lacks one capability (and CAP_SYS_ADMIN, which
 * would stand in for it): the error names the missing one only. */
static void without_cap(const char *drop, const char *missing, const char *present)
{
	struct tt_workload w;
	char *err;

	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	err = expect_error(TT_ARGS("/usr/bin/setpriv", drop, tl_path("spinscope"),
				   "-p", tt_num(w.proc.pid), "-d", "1"),
			   4, TT_ARGS(missing));
	if (strstr(err, present))
		fail_msg("the error names %s, which is there: %s", present, err);
	free(err);
	tt_workload_end(&w);
}

static void test_root_without_cap_bpf(void **state)
{
	TL_REQUIRE_BPF();
	without_cap("--bounding-set=-bpf,-sys_admin", "CAP_BPF", "CAP_PERFMON");
}

static void test_root_without_cap_perfmon(void **state)
{
	TL_REQUIRE_BPF();
	without_cap("--bounding-set=-perfmon,-sys_admin", "CAP_PERFMON", "CAP_BPF");
}

/* ---- 5: the kernel --------------------------------------------------------- */

static void test_btf_file_missing(void **state)
{
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	free(expect_spinscope_error(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--btf",
					    "/nonexistent/vmlinux"),
				    5, TT_ARGS("/nonexistent/vmlinux")));
	tt_workload_end(&w);
}

/* --btf FILE that exists but holds no BTF (an ELF file without a .BTF
 * section): the same kernel-support error, naming the file, not libbpf's
 * errno. */
static void test_btf_file_without_btf(void **state)
{
	const char *not_btf = tl_path("workloads/yield_n");
	struct tt_workload w;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	free(expect_spinscope_error(TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--btf", not_btf),
				    5, TT_ARGS(not_btf)));
	tt_workload_end(&w);
}

/* Runs spinscope in a mount namespace of its own after a shell script has
 * rearranged that namespace (the host's mounts are never touched). */
static char *expect_error_in_mount_ns(const char *script, const char *const args[], int want,
				      const char *const needles[])
{
	const char *argv[40] = { "/usr/bin/unshare", "-m", "--propagation", "private", "--",
				 "/bin/sh", "-ec", script, tl_path("spinscope") };
	int n = 9;

	while (*args && n < 39)
		argv[n++] = *args++;
	argv[n] = NULL;
	return expect_error(argv, want, needles);
}

/* No BTF at /sys/kernel/btf/vmlinux (nor, on this host, anywhere else
 * libbpf looks): exit 5, and the message lists the paths tried. */
static void test_btf_hidden(void **state)
{
	struct tt_workload w;
	char *err;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	err = expect_error_in_mount_ns("mount -t tmpfs none /sys/kernel/btf; exec \"$0\" \"$@\"",
				       TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1"), 5,
				       TT_ARGS("/sys/kernel/btf/vmlinux", "/boot/vmlinux-"));
	free(err);
	tt_workload_end(&w);
}

/*
 * A tracefs that lacks required tracepoints: tmpfs over the tracefs mount
 * points, laid out like a tracefs with an events/ folder, so that spinscope
 * sees a mounted tracefs without the events it needs. (An empty tmpfs looks
 * like an unmounted tracefs, which spinscope mounts for itself.) Each
 * variant leaves out a different event: the message must name that one.
 */
static void missing_tracepoint(const char *present_events, const char *missing)
{
	char script[2048];
	struct tt_workload w;

	snprintf(script, sizeof(script),
		 "for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do"
		 "  [ -d $d ] || continue; mount -t tmpfs none $d; mkdir -p $d/events/sched;"
		 "  for e in %s; do mkdir -p $d/events/syscalls/$e; echo 1 > $d/events/syscalls/$e/id; done;"
		 " done; exec \"$0\" \"$@\"",
		 present_events);
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	free(expect_error_in_mount_ns(script, TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1"), 5,
				      TT_ARGS(missing)));
	tt_workload_end(&w);
}

static void test_tracepoint_missing_futex(void **state)
{
	TL_REQUIRE_BPF();
	missing_tracepoint("", "sys_enter_futex");
}

static void test_tracepoint_missing_sched_yield(void **state)
{
	TL_REQUIRE_BPF();
	missing_tracepoint("sys_enter_futex sys_exit_futex", "sys_enter_sched_yield");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_no_such_pid, tt_teardown),
		cmocka_unit_test_teardown(test_kernel_thread, tt_teardown),
		cmocka_unit_test_teardown(test_zombie, tt_teardown),
		cmocka_unit_test_teardown(test_thread_id_as_pid, tt_teardown),
		cmocka_unit_test_teardown(test_tid_of_another_process, tt_teardown),
		cmocka_unit_test_teardown(test_bad_arguments, tt_teardown),
		cmocka_unit_test_teardown(test_unprivileged_user, tt_teardown),
		cmocka_unit_test_teardown(test_root_without_cap_bpf, tt_teardown),
		cmocka_unit_test_teardown(test_root_without_cap_perfmon, tt_teardown),
		cmocka_unit_test_teardown(test_btf_file_missing, tt_teardown),
		cmocka_unit_test_teardown(test_btf_file_without_btf, tt_teardown),
		cmocka_unit_test_teardown(test_btf_hidden, tt_teardown),
		cmocka_unit_test_teardown(test_tracepoint_missing_futex, tt_teardown),
		cmocka_unit_test_teardown(test_tracepoint_missing_sched_yield, tt_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c against the fake /proc trees in tests/fixtures/proc (described in
 * its README.md): the parsed fields, each verdict of proc_check_target and
 * that its messages name the pid and say what to do.
 */
#include "testlib.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "common/errors.h"
#include "common/procfs.h"

/* Paths are relative to the repository root, where tests/run.sh runs. */
#define TREE "tests/fixtures/proc/tree"
#define FIXTURES "tests/fixtures/proc"

static int setup(void **state)
{
	if (access(TREE "/100/status", R_OK)) {
		print_error("fixtures not found at %s: run the test from the repository root\n", TREE);
		return -1;
	}
	return 0;
}

/* Asserts that s contains every fragment of a NULL-terminated list. */
static void assert_has_all(const char *s, const char *const *frags)
{
	for (; *frags; frags++)
		if (!strstr(s, *frags))
			fail_msg("'%s' lacks '%s'", s, *frags);
}

#define HAS_ALL(s, ...) assert_has_all((s), (const char *const[]){ __VA_ARGS__, NULL })

static void test_read_status_normal(void **state)
{
	struct proc_status st;

	assert_int_equal(proc_read_status(TREE, 100, &st), 0);
	assert_string_equal(st.name, "worker");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.tgid, 100);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.flags, 0x400100);
}

static void test_read_status_comm_with_parens(void **state)
{
	struct proc_status st;

	assert_int_equal(proc_read_status(TREE, 200, &st), 0);
	assert_string_equal(st.name, "srv) (1 2) x");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.tgid, 200);
	assert_int_equal(st.flags, 0x400000);
}

static void test_read_status_kernel_threads(void **state)
{
	struct proc_status st;

	assert_int_equal(proc_read_status(TREE, 2, &st), 0);
	assert_string_equal(st.name, "kthreadd");
	assert_int_equal(st.ppid, 0);
	assert_int_equal(st.flags, 0x208040);
	assert_int_equal(proc_read_status(TREE, 150, &st), 0);
	assert_string_equal(st.name, "kworker/0:1-events");
	assert_int_equal(st.state, 'I');
	assert_int_equal(st.flags, 0x4208060);
}

static void test_read_status_errors(void **state)
{
	struct proc_status st;

	assert_int_equal(proc_read_status(TREE, 999, &st), -ENOENT);
	assert_int_equal(proc_read_status(TREE, 400, &st), -EINVAL);	/* no Tgid */
	assert_int_equal(proc_read_status(TREE, 450, &st), -EINVAL);	/* stat cut */
	assert_int_equal(proc_read_status(FIXTURES "/nonexistent-root", 100, &st), -ENOENT);
}

/* A name with a newline (issue 30 item 4): before, one fgets of stat
 * stopped inside it and the process was "cannot read ... status". The
 * thread so named is a thread of its process (-t). */
static void test_read_status_newline_in_name(void **state)
{
	struct proc_status st;
	char why[256] = "";

	assert_int_equal(proc_read_status(TREE, 500, &st), 0);
	assert_string_equal(st.name, "ab?cd");	/* the newline kept as '?' */
	assert_int_equal(st.tgid, 500);
	assert_int_equal(st.flags, 0x400100);
	assert_int_equal(st.starttime, 71435);
	assert_int_equal(proc_check_target(TREE, 500, 501, &st, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(proc_read_status(TREE, 100, &st), 0);
	assert_int_equal(st.starttime, 71435);
}

static void test_read_comm_at(void **state)
{
	char name[16];
	int dir = proc_open_pid_dir(TREE, 500, 0);

	assert_true(dir >= 0);
	assert_int_equal(proc_read_comm_at(dir, 500, name, sizeof(name)), 0);
	assert_string_equal(name, "ab?cd");	/* not cut at the name's own newline */
	assert_int_equal(proc_read_comm_at(dir, 999, name, sizeof(name)), -ENOENT);
	close(dir);
	/* another start time than the one checked: another process */
	assert_int_equal(proc_open_pid_dir(TREE, 500, 71436), -ESRCH);
	dir = proc_open_pid_dir(TREE, 500, 71435);
	assert_true(dir >= 0);
	close(dir);
}

/* Forks a child that names itself name and waits; its pid. */
static pid_t spawn_named(const char *name)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	return pid;
}

/* Waits (bounded) until /proc says pid's name is name. */
static void wait_named(pid_t pid, const char *name)
{
	struct proc_status st;

	for (int i = 0; i < 5000; i++) {
		if (proc_read_status("/proc", pid, &st) == 0 && !strcmp(st.name, name))
			return;
		usleep(1000);
	}
	fail_msg("pid %d never named itself %s", pid, name);
}

/*
 * Pid reuse (issue 30 item 9): the target exits and a new process takes its
 * pid (forced through ns_last_pid, root only). Through the folder opened
 * while the target lived, nothing of the new process is read.
 */
static void test_pid_reuse_not_named(void **state)
{
	struct proc_status target, now;
	pid_t pid, again = 0;
	char name[16];
	int dir, tries;
	FILE *f;

	if (geteuid() || access("/proc/sys/kernel/ns_last_pid", W_OK))
		skip();
	pid = spawn_named("the-target");
	wait_named(pid, "the-target");
	assert_int_equal(proc_read_status("/proc", pid, &target), 0);
	dir = proc_open_pid_dir("/proc", pid, target.starttime);
	assert_true(dir >= 0);
	assert_int_equal(proc_read_comm_at(dir, pid, name, sizeof(name)), 0);
	assert_string_equal(name, "the-target");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* other processes on the host may take the pid first: try again */
	for (tries = 0; tries < 50 && again != pid; tries++) {
		if (again > 0) {
			kill(again, SIGKILL);
			waitpid(again, NULL, 0);
		}
		f = fopen("/proc/sys/kernel/ns_last_pid", "w");
		assert_non_null(f);
		fprintf(f, "%d", pid - 1);
		fclose(f);
		again = spawn_named("the-newcomer");
	}
	if (again != pid) {
		kill(again, SIGKILL);
		waitpid(again, NULL, 0);
		close(dir);
		skip();	/* the host kept taking the pid */
	}
	wait_named(pid, "the-newcomer");
	assert_true(proc_read_comm_at(dir, pid, name, sizeof(name)) < 0);
	assert_int_equal(proc_read_status("/proc", pid, &now), 0);
	assert_string_equal(now.name, "the-newcomer");
	/* the start time may fall in the same tick: the folder tells */
	assert_true(proc_read_status_at(dir, &now) < 0);
	close(dir);
	kill(again, SIGKILL);
	waitpid(again, NULL, 0);
}

static void test_check_normal_process(void **state)
{
	struct proc_status st;
	char why[256] = "";

	assert_int_equal(proc_check_target(TREE, 100, 0, &st, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_string_equal(st.name, "worker");
	assert_int_equal(st.tgid, 100);
	/* Odd comms are still user processes. */
	assert_int_equal(proc_check_target(TREE, 200, 0, &st, why, sizeof(why)), 0);
}

static void test_check_thread_of_process(void **state)
{
	struct proc_status st;
	char why[256] = "";

	assert_int_equal(proc_check_target(TREE, 100, 101, &st, why, sizeof(why)), 0);
	assert_string_equal(st.name, "worker");	/* st is the process, not the thread */
	/* The leader is a thread of its own process too. */
	assert_int_equal(proc_check_target(TREE, 100, 100, &st, why, sizeof(why)), 0);
}

static void test_check_no_such_process(void **state)
{
	struct proc_status st;
	char why[256];

	assert_int_equal(proc_check_target(TREE, 999, 0, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "pid 999", "no such process", "ps or pgrep");
}

static void test_check_kernel_thread(void **state)
{
	struct proc_status st;
	char why[256];

	assert_int_equal(proc_check_target(TREE, 2, 0, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "pid 2 ", "(kthreadd)", "kernel thread", "user processes");
	assert_int_equal(proc_check_target(TREE, 150, 0, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "pid 150 ", "(kworker/0:1-events)", "kernel thread");
}

static void test_check_zombie(void **state)
{
	struct proc_status st;
	char why[256];

	assert_int_equal(proc_check_target(TREE, 300, 0, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "pid 300 ", "(defunct)", "zombie", "parent (pid 100)");
}

static void test_check_pid_is_a_thread(void **state)
{
	struct proc_status st;
	char why[256];

	assert_int_equal(proc_check_target(TREE, 101, 0, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "pid 101 ", "thread of process 100", "-p 100 -t 101");
}

static void test_check_tid_not_in_process(void **state)
{
	struct proc_status st;
	char why[256];

	/* 200 is another process; 999 does not exist. */
	assert_int_equal(proc_check_target(TREE, 100, 200, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "thread 200 ", "process 100", "/proc/100/task");
	assert_int_equal(proc_check_target(TREE, 100, 999, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "thread 999 ", "process 100");
	/* A bad process is reported before its -t. */
	assert_int_equal(proc_check_target(TREE, 300, 101, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "pid 300 ", "zombie");
}

static void test_check_unreadable(void **state)
{
	struct proc_status st;
	char why[256];

	assert_int_equal(proc_check_target(TREE, 400, 0, &st, why, sizeof(why)), SS_EXIT_TARGET);
	HAS_ALL(why, "pid 400", TREE "/400/status", strerror(EINVAL));
}

/* The real /proc: this test process is a valid target of itself. */
static void test_check_self(void **state)
{
	struct proc_status st;
	char why[256] = "";

	assert_int_equal(proc_check_target("/proc", getpid(), 0, &st, why, sizeof(why)), 0);
	assert_int_equal(st.tgid, getpid());
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.flags & 0x00200000, 0);
	assert_string_equal(why, "");
}

static void test_count_threads(void **state)
{
	assert_int_equal(proc_count_threads(TREE, 100), 3);
	assert_int_equal(proc_count_threads(TREE, 2), -ENOENT);
	assert_int_equal(proc_count_threads(TREE, 999), -ENOENT);
	assert_int_equal(proc_count_threads("/proc", getpid()), 1);
}

static void check_host(const char *root, const char *model)
{
	struct host_info h;
	struct utsname u;

	memset(&h, 0x5a, sizeof(h));
	host_info_read(root, &h);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(h.cpu_model, model);
	assert_string_equal(h.kernel, u.release);
	assert_string_equal(h.machine, u.machine);
	assert_string_equal(h.hostname, u.nodename);
	assert_int_equal(h.cpus, sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(h.cpus >= 1);
}

static void test_host_info(void **state)
{
	/* x86: "model name", not the "model" number line before it. */
	check_host(TREE, "Intel(R) Xeon(R) Gold 6430 CPU @ 2.10GHz");
	check_host(FIXTURES "/rpi", "Raspberry Pi 4 Model B Rev 1.4");
	/* arm64 servers name no model in cpuinfo. */
	check_host(FIXTURES "/arm64", "unknown");
	check_host(FIXTURES "/nonexistent-root", "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_status_normal),
		cmocka_unit_test(test_read_status_comm_with_parens),
		cmocka_unit_test(test_read_status_kernel_threads),
		cmocka_unit_test(test_read_status_errors),
		cmocka_unit_test(test_read_status_newline_in_name),
		cmocka_unit_test(test_read_comm_at),
		cmocka_unit_test(test_pid_reuse_not_named),
		cmocka_unit_test(test_check_normal_process),
		cmocka_unit_test(test_check_thread_of_process),
		cmocka_unit_test(test_check_no_such_process),
		cmocka_unit_test(test_check_kernel_thread),
		cmocka_unit_test(test_check_zombie),
		cmocka_unit_test(test_check_pid_is_a_thread),
		cmocka_unit_test(test_check_tid_not_in_process),
		cmocka_unit_test(test_check_unreadable),
		cmocka_unit_test(test_check_self),
		cmocka_unit_test(test_count_threads),
		cmocka_unit_test(test_host_info),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

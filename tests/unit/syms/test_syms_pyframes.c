// SPDX-License-Identifier: GPL-2.0
/*
 * syms/pyframes.c against the host's python3 (3.11 on Debian 12): the
 * threads of a script that run a function of a known name are read as
 * running it, from the interpreter's memory (its main thread in
 * threading's Condition.wait, by its qualified name); a process that is no CPython
 * is none; another CPython version (a fake /proc tree) is said, not
 * guessed; the summary names the function with its threads.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "syms/pyframes.h"

static const char SCRIPT[] =
	"import threading\n"
	"def spinscope_probe_worker():\n"
	"    x = 0\n"
	"    while True:\n"
	"        x = (x * 31 + 7) % 1000003\n"
	"ts = [threading.Thread(target=spinscope_probe_worker, daemon=True) for _ in range(2)]\n"
	"for t in ts: t.start()\n"
	"print('ready', flush=True)\n"
	"threading.Event().wait(60)\n";	/* gone a minute later, whatever happens here */

struct seen {
	int worker, other;
};

static void see(void *arg, uint32_t tid, const char *func)
{
	struct seen *s = arg;

	(void)tid;
	if (!strncmp(func, "spinscope_probe_worker (spinscope-test-", 39))
		s->worker++;
	else if (!strcmp(func, "Condition.wait (threading.py)"))
		s->other++;
}

/* The script's process and file, ended and removed however a test ends. */
static struct tl_proc script;
static char *script_path;

static int end_script(void **state)
{
	if (script.pid > 0) {
		tl_kill(&script, 9);
		tl_wait(&script);
		script.pid = 0;
	}
	if (script_path)
		unlink(script_path);
	free(script_path);
	script_path = NULL;
	return 0;
}

static void test_reads_the_running_function(void **state)
{
	char *path = script_path = tl_write_tmp(SCRIPT), why[256] = "", line[64], sum[512];
	char *argv[] = { "/usr/bin/python3", path, NULL };
	struct pyframes *pf = NULL;
	struct tl_proc *p = &script;
	struct seen s = { 0 };
	int err, n = 0;

	if (access("/usr/bin/python3", X_OK))
		skip();
	assert_int_equal(tl_spawn(p, argv), 0);
	assert_true(tl_read_line(p, line, sizeof(line), 30000));
	err = pyframes__open("/proc", p->pid, &pf, why, sizeof(why));
	if (err == -ENOTSUP) {	/* a python3 other than 3.11: said so */
		print_message("note: %s\n", why);
		assert_non_null(strstr(why, "3.11 only"));
		skip();
	}
	assert_int_equal(err, 0);
	/* both workers, each read in their function; the main thread waits
	 * in a C call under <module> */
	/* until the main thread too is in its wait (a loaded host delays it) */
	for (int i = 0; i < 500 && (s.worker < 2 || s.other < 1); i++) {
		s = (struct seen){ 0 };
		n = pyframes__read(pf, see, &s);
		if (n < 2)
			print_message("read %d: worker %d other %d\n", n, s.worker, s.other);
		assert_true(n >= 2);
		usleep(10000);
	}
	assert_int_equal(s.worker, 2);
	assert_int_equal(s.other, 1);
	assert_int_equal(pyframes__start(pf), 0);
	usleep(300000);
	pyframes__stop(pf);
	pyframes__summary(pf, sum, sizeof(sum));
	print_message("summary: %s\n", sum);
	assert_int_equal(strncmp(sum, "spinscope_probe_worker (spinscope-test-", 39), 0);
	assert_non_null(strstr(sum, ": 2 threads, "));
	pyframes__close(pf);
}

static void test_no_cpython(void **state)
{
	struct pyframes *pf = (void *)1;
	char why[128] = "";

	assert_int_equal(pyframes__open("/proc", getpid(), &pf, why, sizeof(why)), -ENOENT);
	assert_null(pf);
}

/* A program named python3.11 that is no CPython (sleep, copied): its
 * symbols are not there, which is said, and nothing is read. */
static void test_impostor_named_python(void **state)
{
	char dir[] = "/tmp/spinscope-pyf-XXXXXX", exe[96], cp[256], why[256] = "";
	char *argv[] = { exe, "60", NULL };
	struct pyframes *pf = NULL;
	int err;

	assert_non_null(mkdtemp(dir));
	snprintf(exe, sizeof(exe), "%s/python3.11", dir);
	snprintf(cp, sizeof(cp), "cp /bin/sleep %s", exe);
	assert_int_equal(system(cp), 0);
	assert_int_equal(tl_spawn(&script, argv), 0);
	/* its maps name the copy once exec is done */
	for (int i = 0; i < 200; i++) {
		err = pyframes__open("/proc", script.pid, &pf, why, sizeof(why));
		if (err != -ENOENT)
			break;
		usleep(10000);
	}
	assert_int_equal(err, -ENOEXEC);
	assert_null(pf);
	assert_non_null(strstr(why, "symbols"));
	unlink(exe);
	rmdir(dir);
}

/* A python3.12 in a fake /proc tree: said, never read with 3.11's layout. */
static void test_other_version_said(void **state)
{
	char dir[] = "/tmp/spinscope-pyf-XXXXXX", sub[128], maps[160], why[128] = "";
	struct pyframes *pf = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/77", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(maps, sizeof(maps), "%s/maps", sub);
	f = fopen(maps, "w");
	assert_non_null(f);
	fprintf(f, "555555554000-555555600000 r--p 00000000 08:01 42 /usr/bin/python3.12\n");
	fclose(f);
	assert_int_equal(pyframes__open(dir, 77, &pf, why, sizeof(why)), -ENOTSUP);
	assert_null(pf);
	assert_string_equal(why, "CPython 3.12: spinscope reads the frames of CPython 3.11 only");
	unlink(maps);
	rmdir(sub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_reads_the_running_function, end_script),
		cmocka_unit_test(test_no_cpython),
		cmocka_unit_test_teardown(test_impostor_named_python, end_script),
		cmocka_unit_test(test_other_version_said),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

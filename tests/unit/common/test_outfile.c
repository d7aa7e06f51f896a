// SPDX-License-Identifier: GPL-2.0
/*
 * outfile: what a name planted in a shared folder cannot make spinscope
 * do (follow a symlink, block on a FIFO, replace another user's file), and
 * what a written file looks like (mode 0600, the bytes given, no temporary
 * file left, old content replaced only by a complete new one).
 */
#include "testlib.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "common/errors.h"
#include "common/outfile.h"

static char dir[64];

static int make_dir(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/ss-outfile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static const char *in_dir(const char *name)
{
	static char path[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = 0;
	return buf;
}

static void test_new_file_is_0600_and_complete(void **state)
{
	const char *path = in_dir("r.json");
	char why[256] = "";
	mode_t old = umask(0);
	struct stat st;

	assert_int_equal(outfile__check(path, why, sizeof(why)), 0);
	assert_int_equal(entries(), 0);	/* the check leaves nothing */
	assert_int_equal(outfile__save(path, "hello\n", 6, why, sizeof(why)), 0);
	umask(old);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	assert_string_equal(slurp(path), "hello\n");
	assert_int_equal(entries(), 1);
	/* our own file: replaced whole */
	assert_int_equal(outfile__check(path, why, sizeof(why)), 0);
	assert_int_equal(outfile__save(path, "bye\n", 4, why, sizeof(why)), 0);
	assert_string_equal(slurp(path), "bye\n");
	assert_int_equal(entries(), 1);
	unlink(path);
}

/* A link planted before the check, or between the check and the save:
 * refused both times, and its target keeps its content. */
static void test_symlink_refused(void **state)
{
	const char *victim = in_dir("victim"), *link = in_dir("link");
	char why[256] = "";

	assert_int_equal(outfile__save(victim, "secret\n", 7, why, sizeof(why)), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(outfile__check(link, why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "symbolic link"));
	unlink(link);
	assert_int_equal(outfile__check(link, why, sizeof(why)), 0);
	assert_int_equal(symlink(victim, link), 0);
	why[0] = 0;
	assert_int_equal(outfile__save(link, "owned\n", 6, why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "symbolic link"));
	assert_string_equal(slurp(victim), "secret\n");
	assert_int_equal(entries(), 2);	/* no temporary file left */
	unlink(link);
	unlink(victim);
}

/* Opening a FIFO for writing blocks until a reader comes: never opened. */
static void test_fifo_refused_without_blocking(void **state)
{
	const char *fifo = in_dir("fifo");
	char why[256] = "";

	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(outfile__check(fifo, why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "FIFO"));
	assert_int_equal(outfile__save(fifo, "x", 1, why, sizeof(why)), -EEXIST);
	assert_int_equal(entries(), 1);
	unlink(fifo);
}

static void test_directory_and_bad_folders(void **state)
{
	char why[256] = "", path[128];

	assert_int_equal(outfile__check(dir, why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "directory"));
	snprintf(path, sizeof(path), "%s/", dir);
	assert_int_equal(outfile__check(path, why, sizeof(why)), SS_EXIT_USAGE);
	assert_int_equal(outfile__check(in_dir("no/such/r.json"), why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "no/such"));
	/* a pseudo file system takes no new files: found before the trace */
	assert_int_equal(outfile__check("/proc/self/r.json", why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "/proc/self"));
	assert_int_equal(outfile__save(in_dir("no/r.json"), "x", 1, why, sizeof(why)), -ENOENT);
}

/* A regular file of another user is theirs to keep. */
static void test_other_users_file_refused(void **state)
{
	const char *path = in_dir("theirs");
	char why[256] = "";

	if (geteuid() == 0) {
		assert_int_equal(outfile__save(path, "theirs\n", 7, why, sizeof(why)), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
	} else {
		path = "/etc/passwd";	/* root's */
	}
	assert_int_equal(outfile__check(path, why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "belongs to uid"));
	if (geteuid() == 0) {
		assert_int_equal(outfile__save(path, "mine\n", 5, why, sizeof(why)), -EEXIST);
		assert_string_equal(slurp(path), "theirs\n");
		unlink(path);
	}
}

static int fill_two_lines(FILE *f, void *arg)
{
	fprintf(f, "%s\n%s\n", (const char *)arg, (const char *)arg);
	return 0;
}

static int fill_fails(FILE *f, void *arg)
{
	fputs("half", f);
	return -ENOMEM;
}

static void test_save_stream(void **state)
{
	const char *path = in_dir("folded");
	char why[256] = "";

	assert_int_equal(outfile__save_stream(path, fill_two_lines, "a;b 1", why, sizeof(why)), 0);
	assert_string_equal(slurp(path), "a;b 1\na;b 1\n");
	/* a writer that fails leaves the old file as it was */
	assert_int_equal(outfile__save_stream(path, fill_fails, NULL, why, sizeof(why)), -ENOMEM);
	assert_string_equal(slurp(path), "a;b 1\na;b 1\n");
	assert_int_equal(entries(), 1);
	unlink(path);
}

/* A closed stdout stays closed for writing, and the next open() does not
 * land on it (a child process, so that ours stays as it is). */
static void test_closed_stdout_reserved(void **state)
{
	pid_t child = fork();
	int st;

	assert_true(child >= 0);
	if (child == 0) {
		int fd;

		close(STDOUT_FILENO);
		outfile__reserve_std_fds();
		if (fcntl(STDOUT_FILENO, F_GETFD) < 0)
			_exit(10);
		if (write(STDOUT_FILENO, "x", 1) != -1 || errno != EBADF)
			_exit(11);
		fd = open("/dev/null", O_WRONLY);
		_exit(fd > STDERR_FILENO ? 0 : 12);
	}
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file_is_0600_and_complete),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_fifo_refused_without_blocking),
		cmocka_unit_test(test_directory_and_bad_folders),
		cmocka_unit_test(test_other_users_file_refused),
		cmocka_unit_test(test_save_stream),
		cmocka_unit_test(test_closed_stdout_reserved),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * syms/jvm_perfmap.c: the HotSpot attach protocol against stand-ins in a
 * fake /proc tree: a listener that answers as JDK 17 does, one that
 * refuses as a JDK without Compiler.perfmap does, one that never answers
 * (bounded by the deadline), a socket of another user (never connected
 * to), a child that starts its listener on SIGQUIT only when the attach
 * file exists, as HotSpot does, and a process that maps no libjvm.so.
 * Nothing may be left behind: no attach file, no hang.
 */
#include "testlib.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "syms/jvm_perfmap.h"

static const char REQUEST[] = "1\0jcmd\0Compiler.perfmap\0\0\0";
#define REQUEST_LEN (sizeof(REQUEST) - 1)

struct fake {
	char proc[64];		/* the fake /proc */
	char root[64];		/* the target's root directory */
	int pid;
	char sock[256];		/* root/tmp/.java_pid<pid> */
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void fake_new(struct fake *fk, int pid, bool jvm, bool catches_quit)
{
	char p[512], text[256];

	fk->pid = pid;
	snprintf(fk->proc, sizeof(fk->proc), "/tmp/spinscope-jvm-proc-XXXXXX");
	snprintf(fk->root, sizeof(fk->root), "/tmp/spinscope-jvm-root-XXXXXX");
	assert_non_null(mkdtemp(fk->proc));
	assert_non_null(mkdtemp(fk->root));
	snprintf(p, sizeof(p), "%s/tmp", fk->root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/cwd", fk->root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/%d", fk->proc, pid);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/%d/maps", fk->proc, pid);
	write_file(p, jvm ? "7f0000000000-7f0000100000 r-xp 00000000 08:01 13 "
			    "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so\n"
			  : "55d0c0000000-55d0c0001000 r-xp 00000000 08:01 12 /usr/bin/java\n");
	snprintf(p, sizeof(p), "%s/%d/status", fk->proc, pid);
	snprintf(text, sizeof(text), "Name:\tjava\nNSpid:\t%d\nSigCgt:\t%016llx\n", pid,
		 catches_quit ? 1ull << (SIGQUIT - 1) : 0ull);
	write_file(p, text);
	snprintf(p, sizeof(p), "%s/%d/root", fk->proc, pid);
	assert_int_equal(symlink(fk->root, p), 0);
	snprintf(p, sizeof(p), "%s/%d/cwd", fk->proc, pid);
	snprintf(text, sizeof(text), "%s/cwd", fk->root);
	assert_int_equal(symlink(text, p), 0);
	snprintf(fk->sock, sizeof(fk->sock), "%s/tmp/.java_pid%d", fk->root, pid);
}

/* Nothing of ours is left in the target's directories. */
static void fake_free(struct fake *fk)
{
	const char *const files[] = { "maps", "status", "root", "cwd" };
	char p[512];

	snprintf(p, sizeof(p), "%s/cwd/.attach_pid%d", fk->root, fk->pid);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/tmp/.attach_pid%d", fk->root, fk->pid);
	assert_int_equal(access(p, F_OK), -1);
	unlink(fk->sock);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%d/%s", fk->proc, fk->pid, files[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/%d", fk->proc, fk->pid);
	rmdir(p);
	rmdir(fk->proc);
	snprintf(p, sizeof(p), "%s/cwd", fk->root);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/tmp", fk->root);
	rmdir(p);
	rmdir(fk->root);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s, 4), 0);
	return s;
}

struct server {
	int fd;
	const char *answer;	/* NULL: read the request, never answer */
	bool request_ok;	/* the bytes were the protocol's */
	pthread_t th;
};

/* Serves one connection as the JVM's attach listener does. */
static void *serve(void *arg)
{
	struct server *sv = arg;
	char buf[128];
	size_t n = 0;
	ssize_t r;
	int c = accept(sv->fd, NULL, NULL);

	if (c < 0)
		return NULL;
	while (n < REQUEST_LEN && (r = read(c, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)r;
	sv->request_ok = n == REQUEST_LEN && !memcmp(buf, REQUEST, REQUEST_LEN);
	if (sv->answer) {
		if (write(c, sv->answer, strlen(sv->answer)) < 0)
			sv->request_ok = false;
	} else {
		/* hold the connection until the client gives up */
		while (read(c, buf, sizeof(buf)) > 0)
			;
	}
	close(c);
	return NULL;
}

static void serve_start(struct server *sv, const char *path, const char *answer)
{
	sv->fd = listen_at(path);
	sv->answer = answer;
	sv->request_ok = false;
	assert_int_equal(pthread_create(&sv->th, NULL, serve, sv), 0);
}

static void serve_stop(struct server *sv)
{
	pthread_join(sv->th, NULL);
	close(sv->fd);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_request_bytes(void **state)
{
	char buf[64];

	assert_int_equal(jvm_perfmap__request_bytes("Compiler.perfmap", buf, sizeof(buf)), REQUEST_LEN);
	assert_memory_equal(buf, REQUEST, REQUEST_LEN);
	assert_int_equal(jvm_perfmap__request_bytes("Compiler.perfmap", buf, 20), 0);
}

static void test_replies(void **state)
{
	char why[128];
	static const char bad[] = "-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n";
	static const char evil[] = "1\n\033[2Jboom\n";

	assert_int_equal(jvm_perfmap__parse_reply("0\n", 2, why, sizeof(why)), 0);
	assert_int_equal(jvm_perfmap__parse_reply(bad, strlen(bad), why, sizeof(why)), -1);
	assert_string_equal(why, "java.lang.IllegalArgumentException: Unknown diagnostic command");
	/* JDKs that answer 0 and print the exception */
	assert_int_equal(jvm_perfmap__parse_reply("0\njava.lang.IllegalArgumentException: x\n", 41, why,
						  sizeof(why)), -1);
	assert_int_equal(jvm_perfmap__parse_reply("", 0, why, sizeof(why)), -1);
	assert_string_equal(why, "no answer");
	assert_int_equal(jvm_perfmap__parse_reply(evil, strlen(evil), why, sizeof(why)), -1);
	assert_string_equal(why, "?[2Jboom");
}

static void test_listener_answers(void **state)
{
	struct server sv;
	struct fake fk;
	char why[320];

	fake_new(&fk, 999999, true, true);
	serve_start(&sv, fk.sock, "0\n");
	assert_int_equal(jvm_perfmap__request(fk.proc, fk.pid, 5000, why, sizeof(why)), JVM_PERFMAP_WRITTEN);
	serve_stop(&sv);
	assert_true(sv.request_ok);
	assert_non_null(strstr(why, "Compiler.perfmap"));
	fake_free(&fk);
}

static void test_listener_refuses(void **state)
{
	struct server sv;
	struct fake fk;
	char why[320];

	fake_new(&fk, 999998, true, true);
	serve_start(&sv, fk.sock, "-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n");
	assert_int_equal(jvm_perfmap__request(fk.proc, fk.pid, 5000, why, sizeof(why)), JVM_PERFMAP_REFUSED);
	serve_stop(&sv);
	assert_non_null(strstr(why, "Unknown diagnostic command"));
	assert_non_null(strstr(why, "perf-map-agent"));
	assert_null(strchr(why, '\n'));
	fake_free(&fk);
}

/* A listener that never answers: given up at the deadline, not later. */
static void test_listener_silent(void **state)
{
	struct server sv;
	struct fake fk;
	char why[320];
	double t0;

	fake_new(&fk, 999997, true, true);
	serve_start(&sv, fk.sock, NULL);
	t0 = now_s();
	assert_int_equal(jvm_perfmap__request(fk.proc, fk.pid, 300, why, sizeof(why)), JVM_PERFMAP_FAILED);
	/* the deadline, plus what a loaded machine may add to one poll */
	assert_true(now_s() - t0 < 0.3 + 5);
	assert_non_null(strstr(why, "no full answer"));
	serve_stop(&sv);
	fake_free(&fk);
}

/* Not a JVM, though named java: nothing is sent or created. */
static void test_not_a_jvm(void **state)
{
	struct fake fk;
	char why[320];

	fake_new(&fk, 999996, false, true);
	assert_int_equal(jvm_perfmap__request(fk.proc, fk.pid, 1000, why, sizeof(why)), JVM_PERFMAP_NOT_JVM);
	assert_non_null(strstr(why, "not a JVM"));
	fake_free(&fk);
}

/* No listener, SIGQUIT not caught (-Xrs): no signal is sent. */
static void test_ignores_quit(void **state)
{
	struct fake fk;
	char why[320];

	fake_new(&fk, 999995, true, false);
	assert_int_equal(jvm_perfmap__request(fk.proc, fk.pid, 1000, why, sizeof(why)),
			 JVM_PERFMAP_NO_LISTENER);
	assert_non_null(strstr(why, "SIGQUIT"));
	fake_free(&fk);
}

/* A socket of another user at the listener's name is never connected to. */
static void test_foreign_socket(void **state)
{
	struct fake fk;
	char why[320];
	int s;

	if (geteuid() != 0) {
		print_message("skip: needs root to give the socket another owner\n");
		skip();
	}
	fake_new(&fk, 999994, true, false);
	s = listen_at(fk.sock);
	assert_int_equal(chown(fk.sock, 12345, 12345), 0);
	assert_int_equal(jvm_perfmap__request(fk.proc, fk.pid, 1000, why, sizeof(why)),
			 JVM_PERFMAP_NO_LISTENER);
	close(s);
	fake_free(&fk);
}

/* As HotSpot does: on SIGQUIT, start the listener only when the attach
 * file exists (in the working directory or /tmp), then serve. Exits 0
 * when it served, 3 when woken without the file, 4 when never woken. */
static void hotspot_child(int path_fd)
{
	char root[128] = "", p[300];
	struct timespec wait = { .tv_sec = 20 };
	struct server sv;
	sigset_t quit;
	ssize_t n;

	n = read(path_fd, root, sizeof(root) - 1);
	if (n <= 0)
		_exit(5);
	root[n] = '\0';
	sigemptyset(&quit);
	sigaddset(&quit, SIGQUIT);
	if (sigtimedwait(&quit, NULL, &wait) != SIGQUIT)
		_exit(4);
	snprintf(p, sizeof(p), "%s/cwd/.attach_pid%d", root, getpid());
	if (access(p, F_OK)) {
		snprintf(p, sizeof(p), "%s/tmp/.attach_pid%d", root, getpid());
		if (access(p, F_OK))
			_exit(3);
	}
	snprintf(p, sizeof(p), "%s/tmp/.java_pid%d", root, getpid());
	sv.fd = listen_at(p);
	sv.answer = "0\n";
	serve(&sv);
	_exit(sv.request_ok ? 0 : 6);
}

static void test_listener_started_by_sigquit(void **state)
{
	sigset_t quit, old;
	struct fake fk;
	char why[320];
	int fds[2], status;
	pid_t child;

	assert_int_equal(pipe(fds), 0);
	sigemptyset(&quit);
	sigaddset(&quit, SIGQUIT);
	sigprocmask(SIG_BLOCK, &quit, &old);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		hotspot_child(fds[0]);
	sigprocmask(SIG_SETMASK, &old, NULL);
	fake_new(&fk, child, true, true);
	assert_int_equal(write(fds[1], fk.root, strlen(fk.root)), (ssize_t)strlen(fk.root));
	assert_int_equal(jvm_perfmap__request(fk.proc, fk.pid, 20000, why, sizeof(why)),
			 JVM_PERFMAP_WRITTEN);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fds[0]);
	close(fds[1]);
	fake_free(&fk);	/* and the attach file is gone */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_bytes),
		cmocka_unit_test(test_replies),
		cmocka_unit_test(test_listener_answers),
		cmocka_unit_test(test_listener_refuses),
		cmocka_unit_test(test_listener_silent),
		cmocka_unit_test(test_not_a_jvm),
		cmocka_unit_test(test_ignores_quit),
		cmocka_unit_test(test_foreign_socket),
		cmocka_unit_test(test_listener_started_by_sigquit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* Process helpers for the cmocka tests (see testlib.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "testlib.h"

const char *tl_path(const char *what)
{
	static char buf[8][4096];
	static int next;
	const char *out = getenv("OUTPUT");
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", out && *out ? out : "build", what);
	return b;
}

const char *tl_bpf_unavailable(void)
{
	if (geteuid() != 0)
		return "BPF tests need root (run make test as root)";
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return "no kernel BTF at /sys/kernel/btf/vmlinux";
	return NULL;
}

int tl_spawn(struct tl_proc *p, char *const argv[])
{
	int out[2], err[2];

	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	p->out_fd = out[0];
	p->err_fd = err[0];
	return 0;
}

bool tl_read_line(struct tl_proc *p, char *buf, size_t size, int timeout_ms)
{
	size_t n = 0;

	while (n + 1 < size) {
		struct pollfd pfd = { .fd = p->out_fd, .events = POLLIN };
		char c;

		if (poll(&pfd, 1, timeout_ms) <= 0)
			break;
		if (read(p->out_fd, &c, 1) != 1)
			break;
		if (c == '\n') {
			buf[n] = 0;
			return true;
		}
		buf[n++] = c;
	}
	buf[n] = 0;
	return false;
}

char *tl_read_all(int fd)
{
	size_t cap = 4096, len = 0;
	char *s = malloc(cap);
	ssize_t r;

	if (!s)
		return NULL;
	while ((r = read(fd, s + len, cap - len - 1)) > 0) {
		len += r;
		if (cap - len < 2) {
			char *t = realloc(s, cap *= 2);

			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
	}
	s[len] = 0;
	return s;
}

int tl_wait(struct tl_proc *p)
{
	int st;

	if (waitpid(p->pid, &st, 0) < 0)
		return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

void tl_kill(struct tl_proc *p, int sig)
{
	if (p->pid > 0)
		kill(p->pid, sig);
}

int tl_run(char *const argv[], char **out, char **err)
{
	struct tl_proc p;
	char *o, *e;
	int rc;

	if (tl_spawn(&p, argv))
		return -1;
	/* stderr is small; read stdout first, then stderr. A child that fills
	 * the stderr pipe (64 KiB) first would block: our tools never do. */
	o = tl_read_all(p.out_fd);
	e = tl_read_all(p.err_fd);
	close(p.out_fd);
	close(p.err_fd);
	rc = tl_wait(&p);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = e;
	else
		free(e);
	return rc;
}

char *tl_write_tmp(const char *content)
{
	char *path = strdup("/tmp/spinscope-test-XXXXXX");
	size_t len = strlen(content);
	int fd;

	if (!path)
		return NULL;
	fd = mkstemp(path);
	if (fd < 0 || write(fd, content, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

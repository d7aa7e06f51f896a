// SPDX-License-Identifier: GPL-2.0
/* Enter: a -p report on the selected process, paged (see top_pager.h). */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "top_pager.h"
#include "top_table.h"
#include "top_term.h"

#define PAGER_MAX_BYTES (1u << 20)	/* a --brief report is a few KiB */

struct captured {
	char *text;
	size_t len;
	int status;		/* the child's wait status; -1: never ran */
	bool ended;		/* the view must end (signal, closed terminal) */
};

static pid_t spawn(const char *exe, char *const argv[], int *out)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(exe, argv);
		dprintf(2, "cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0)
		close(fds[0]);
	*out = fds[0];
	return pid;
}

/* Reads the child's output to its end; on a signal or a closed terminal
 * asks it to stop (SIGINT: -p detaches and reports) and keeps reading. */
static void capture(pid_t pid, int fd, struct captured *c)
{
	size_t cap = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[4096];
		ssize_t n;

		if (top_term_ended() && !c->ended) {
			c->ended = true;
			kill(pid, SIGINT);
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (c->len + (size_t)n + 1 > cap && c->len < PAGER_MAX_BYTES) {
			char *t = realloc(c->text, cap = c->len + (size_t)n + 4096);

			if (!t)
				continue;
			c->text = t;
		}
		if (c->len + (size_t)n + 1 <= cap) {
			memcpy(c->text + c->len, buf, (size_t)n);
			c->len += (size_t)n;
			c->text[c->len] = 0;
		}
	}
	close(fd);
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
}

/* The text cut into lines (in place). */
static char **split_lines(char *text, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');

		if (*n == cap) {
			char **t = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!t)
				break;
			v = t;
		}
		v[(*n)++] = l;
		if (nl)
			*nl++ = 0;
		l = nl;
	}
	return v;
}

static void draw_page(const char *title, char **lines, size_t n, size_t top)
{
	char buf[1024];
	int rows = LINES - 1;

	erase();
	attron(A_REVERSE);
	mvaddstr(0, 0, top_table_fit(buf, sizeof(buf), title, (unsigned int)COLS));
	attroff(A_REVERSE);
	for (int r = 0; r < rows - 1 && top + (size_t)r < n; r++)
		mvaddstr(r + 1, 0, top_table_fit(buf, sizeof(buf), lines[top + r], (unsigned int)COLS));
	mvaddstr(LINES - 1, 0, top_table_fit(buf, sizeof(buf),
					     "q back to top  Up/Down PgUp/PgDn Home/End scroll",
					     (unsigned int)COLS));
	refresh();
}

/* Keys until q: 0, or TOP_KEY_END. */
static int page(const char *title, char **lines, size_t n)
{
	size_t top = 0;

	for (;;) {
		size_t page_rows = LINES > 3 ? (size_t)LINES - 2 : 1;
		size_t last = n > page_rows ? n - page_rows : 0;
		int ch;

		draw_page(title, lines, n, top);
		ch = top_term_key(1000);
		switch (ch) {
		case TOP_KEY_END: return TOP_KEY_END;
		case 'q': case 'Q': case 27: return 0;
		case KEY_UP: case 'k': top -= top > 0; break;
		case KEY_DOWN: case 'j': top += top < last; break;
		case KEY_PPAGE: top = top > page_rows ? top - page_rows : 0; break;
		case KEY_NPAGE: case ' ': top = top + page_rows < last ? top + page_rows : last; break;
		case KEY_HOME: top = 0; break;
		case KEY_END: top = last; break;
		default: break;
		}
	}
}

int top_pager_report(const char *exe, int32_t pid, unsigned int seconds)
{
	char spid[16], sdur[16], title[256];
	char *argv[] = { (char *)exe, "-p", spid, "-d", sdur, "--brief", NULL };
	struct captured c = { .status = -1 };
	char **lines;
	size_t n;
	int fd, rc, spawn_err;
	pid_t child;

	snprintf(spid, sizeof(spid), "%d", pid);
	snprintf(sdur, sizeof(sdur), "%u", seconds);
	def_prog_mode();
	endwin();
	printf("spinscope: tracing PID %d for %u s (spinscope -p %d -d %u --brief)...\n", pid, seconds,
	       pid, seconds);
	fflush(stdout);
	child = spawn(exe, argv, &fd);
	spawn_err = errno;
	if (child > 0)
		capture(child, fd, &c);
	reset_prog_mode();
	refresh();
	if (c.ended)
		return free(c.text), TOP_KEY_END;
	snprintf(title, sizeof(title), "spinscope -p %d -d %u --brief: %s %d", pid, seconds,
		 child < 0 ? "could not start:" : WIFEXITED(c.status) ? "exit" : "signal",
		 child < 0 ? spawn_err : WIFEXITED(c.status) ? WEXITSTATUS(c.status) : WTERMSIG(c.status));
	lines = split_lines(c.text, &n);
	rc = page(title, lines, n);
	free(lines);
	free(c.text);
	return rc;
}

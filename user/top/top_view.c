// SPDX-License-Identifier: GPL-2.0
/* The live view on ncurses (see top_view.h): state, drawing and keys. */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/errors.h"
#include "top_feed.h"
#include "top_pager.h"
#include "top_term.h"
#include "top_view.h"

#define HEAD_ROWS 4		/* two host lines, the keys or prompt, the titles */
#define KEY_WAIT_MS 250

struct view {
	const struct top_view_opts *o;
	const struct top_snapshot *snap;	/* the newest taken; NULL before the first */
	struct top_table_view tv;
	struct top_rows rows;
	size_t sel, top;			/* selected row, first row shown */
	int32_t sel_id;				/* the selected row's pid/tid, kept across refreshes */
	bool editing;				/* typing a filter */
	bool help;
	char note[160];				/* a one-refresh message on the last line */
};

static unsigned int cols(void)
{
	return COLS > 0 ? (unsigned int)COLS : 1;
}

/* Rebuilds the rows, keeping the selected process selected when it is
 * still there. */
static void rebuild(struct view *v)
{
	if (!v->snap)
		return;
	if (top_table_build(v->snap, &v->tv, &v->rows))
		snprintf(v->note, sizeof(v->note), "out of memory: the table is incomplete");
	for (size_t i = 0; i < v->rows.n; i++)
		if (v->rows.v[i].id == v->sel_id) {
			v->sel = i;
			return;
		}
	if (v->sel >= v->rows.n)
		v->sel = v->rows.n ? v->rows.n - 1 : 0;
	v->sel_id = v->rows.n ? v->rows.v[v->sel].id : 0;
}

static void draw_help(void)
{
	const char *const *l = top_table_help();
	char buf[512];

	for (int r = 0; l[r] && r < LINES; r++)
		mvaddstr(r, 0, top_table_fit(buf, sizeof(buf), l[r], cols()));
}

static void draw_status(struct view *v)
{
	char buf[512], text[512];

	if (v->editing)
		snprintf(text, sizeof(text), "filter (name, container, unit; Enter keeps, Esc clears): %s_",
			 v->tv.filter);
	else if (v->tv.threads_of)
		snprintf(text, sizeof(text), "threads of PID %d%s%s  (t back)  %s", v->tv.threads_of,
			 *v->tv.filter ? "  filter: " : "", v->tv.filter, top_table_keys_line());
	else
		snprintf(text, sizeof(text), "%s%s%s", *v->tv.filter ? "filter: " : "", v->tv.filter,
			 *v->tv.filter ? "  " : "");
	if (!v->editing && !v->tv.threads_of)
		strncat(text, top_table_keys_line(), sizeof(text) - strlen(text) - 1);
	mvaddstr(2, 0, top_table_fit(buf, sizeof(buf), text, cols()));
}

/* The last line: a note, else the selected process's verdict. */
static void draw_footer(struct view *v)
{
	const struct top_row *r = v->rows.n ? &v->rows.v[v->sel] : NULL;
	char buf[512], text[512] = "";

	if (*v->note)
		snprintf(text, sizeof(text), "%s", v->note);
	else if (r && r->proc && *r->proc->verdict_summary)
		snprintf(text, sizeof(text), "%d: %s%s", r->proc->pid, r->proc->verdict_summary,
			 r->proc->needs_full_trace ? "  (Enter: -p can tell more)" : "");
	mvaddstr(LINES - 1, 0, top_table_fit(buf, sizeof(buf), text, cols()));
}

static void draw_table(struct view *v)
{
	int body = LINES - HEAD_ROWS - 1;
	char buf[1024];

	top_table_header(&v->rows, &v->tv, buf, sizeof(buf), cols());
	attron(A_REVERSE);
	mvaddstr(3, 0, buf);
	attroff(A_REVERSE);
	if (body < 1)
		return;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + (size_t)body)
		v->top = v->sel - (size_t)body + 1;
	for (int r = 0; r < body && v->top + (size_t)r < v->rows.n; r++) {
		bool sel = v->top + (size_t)r == v->sel;

		top_table_line(&v->rows, &v->rows.v[v->top + r], buf, sizeof(buf), cols());
		if (sel)
			attron(A_REVERSE | A_BOLD);
		mvaddstr(HEAD_ROWS + r, 0, buf);
		if (sel)
			attroff(A_REVERSE | A_BOLD);
	}
	if (v->rows.n == 0)
		mvaddstr(HEAD_ROWS, 0, top_table_fit(buf, sizeof(buf), v->tv.threads_of ?
			 "no per-thread figures for this process in this refresh" :
			 "no process matches", cols()));
}

static void draw(struct view *v)
{
	char l1[512], l2[512];

	erase();
	if (v->help) {
		draw_help();
	} else if (!v->snap) {
		mvaddstr(0, 0, top_table_fit(l1, sizeof(l1),
					     "spinscope top: waiting for the first refresh...", cols()));
	} else {
		top_table_host_lines(v->snap, l1, l2, sizeof(l1), cols());
		mvaddstr(0, 0, l1);
		mvaddstr(1, 0, l2);
		draw_status(v);
		draw_table(v);
		draw_footer(v);
	}
	refresh();
}

static void select_row(struct view *v, long delta)
{
	long n = (long)v->rows.n, s = (long)v->sel + delta;

	if (!n)
		return;
	s = s < 0 ? 0 : s >= n ? n - 1 : s;
	v->sel = (size_t)s;
	v->sel_id = v->rows.v[s].id;
}

static void edit_filter(struct view *v, int ch)
{
	size_t len = strlen(v->tv.filter);

	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		v->editing = false;
	else if (ch == 27) {
		v->editing = false;
		v->tv.filter[0] = 0;
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
		v->tv.filter[len - 1] = 0;
	else if (ch >= 0x20 && ch < 0x7f && len + 1 < sizeof(v->tv.filter))
		v->tv.filter[len] = (char)ch, v->tv.filter[len + 1] = 0;
	rebuild(v);
}

/* t: into the selected process's threads, or back out. */
static void toggle_threads(struct view *v)
{
	const struct top_row *r = v->rows.n ? &v->rows.v[v->sel] : NULL;

	if (v->tv.threads_of) {
		v->sel_id = v->tv.threads_of;
		v->tv.threads_of = 0;
	} else if (r && r->proc && r->proc->threads && r->proc->nthreads_detail) {
		v->tv.threads_of = r->proc->pid;
	} else if (r) {
		snprintf(v->note, sizeof(v->note),
			 "no per-thread figures for PID %d in this refresh", r->id);
		return;
	}
	rebuild(v);
}

static int enter_report(struct view *v)
{
	const struct top_row *r = v->rows.n ? &v->rows.v[v->sel] : NULL;
	int32_t pid = r && r->proc ? r->proc->pid : 0;

	if (!pid)
		return 0;
	return top_pager_report(v->o->exe ? v->o->exe : "/proc/self/exe", pid,
				v->o->report_seconds ? v->o->report_seconds : 5);
}

/* One key in the table: 0 goes on, 1 quits, TOP_KEY_END ends. */
static int on_key(struct view *v, int ch)
{
	long page = LINES > HEAD_ROWS + 2 ? LINES - HEAD_ROWS - 1 : 1;
	int col;

	v->note[0] = 0;
	if (v->help) {
		v->help = false;
		return 0;
	}
	if (v->editing) {
		edit_filter(v, ch);
		return 0;
	}
	switch (ch) {
	case 'q': return 1;
	case '?': case 'h': v->help = true; return 0;
	case '/': v->editing = true; return 0;
	case 't': toggle_threads(v); return 0;
	case 'I': v->tv.reverse = !v->tv.reverse; break;
	case '<': case '>':
		v->tv.sort = top_table_sort_step(v->tv.sort, ch == '>' ? 1 : -1, v->rows.sampling);
		v->tv.reverse = false;
		break;
	case KEY_UP: select_row(v, -1); return 0;
	case KEY_DOWN: select_row(v, 1); return 0;
	case KEY_PPAGE: select_row(v, -page); return 0;
	case KEY_NPAGE: select_row(v, page); return 0;
	case KEY_HOME: select_row(v, -(long)v->rows.n); return 0;
	case KEY_END: select_row(v, (long)v->rows.n); return 0;
	case '\n': case '\r': case KEY_ENTER: return enter_report(v) == TOP_KEY_END ? TOP_KEY_END : 0;
	default:
		if ((col = top_table_sort_key(ch)) < 0)
			return 0;
		v->tv.reverse = v->tv.sort == (enum top_col)col ? !v->tv.reverse : false;
		v->tv.sort = (enum top_col)col;
	}
	rebuild(v);
	return 0;
}

static int start_curses(SCREEN **scr)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return ss_error(SS_EXIT_USAGE,
				"top: the live view needs a terminal on stdin and stdout: use -b for plain lines or --json");
	setlocale(LC_CTYPE, "");
	*scr = newterm(NULL, stdout, stdin);
	if (!*scr)
		return ss_error(SS_EXIT_USAGE,
				"top: curses cannot drive this terminal (TERM=%s): set TERM, or use -b",
				getenv("TERM") ? getenv("TERM") : "");
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	return 0;
}

/* Keys and refreshes until q, a signal, a closed terminal or a failed
 * refresh: 0 or the refresh's code. */
static int loop(struct view *v, struct top_feed *feed)
{
	for (;;) {
		const struct top_snapshot *s;
		int rc, ch;

		s = top_feed_take(feed, &rc);
		if (rc)
			return rc;
		if (s) {
			v->snap = s;
			rebuild(v);
		}
		draw(v);
		ch = top_term_key(KEY_WAIT_MS);
		if (ch == TOP_KEY_END)
			return 0;
		if (ch == TOP_KEY_NONE || ch == KEY_RESIZE)
			continue;	/* curses took the new size already */
		if ((rc = on_key(v, ch)))
			return rc == TOP_KEY_END || rc == 1 ? 0 : rc;
	}
}

int top_view_run(top_refresh_fn refresh, void *ctx, const struct top_view_opts *o)
{
	struct view v = { .o = o, .tv = { .sort = o->sort } };
	struct top_feed *feed;
	SCREEN *scr = NULL;
	int rc, err;

	top_term_signals();
	if ((rc = start_curses(&scr))) {
		top_term_restore();
		return rc;
	}
	feed = top_feed_start(refresh, ctx);
	err = errno;
	rc = feed ? loop(&v, feed) : 0;
	/* endwin first: a refresh's own message lands on a normal screen. */
	endwin();
	if (!feed)
		rc = ss_error(SS_EXIT_RESOURCES, "top: cannot start the refresh thread: %s",
			      strerror(err));
	top_feed_stop(feed);
	delscreen(scr);
	top_table_free(&v.rows);
	top_term_restore();
	return rc;
}

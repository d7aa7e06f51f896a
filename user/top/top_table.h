/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the live view shows, without curses: the rows of one snapshot
 * (processes, or one process's threads), filtered by a name or container
 * substring and sorted by any column, each formatted into a line of the
 * screen's width; the header lines (the host's load and what tracing
 * costs) and the key help. Pure, so the unit tests check every rule and
 * top_view.c only moves text to the terminal.
 *
 * The columns are one table (top_table.c, `top_cols`): title, width, sort
 * key, comparison and formatting. Adding a column is one row there.
 */
#ifndef SPINSCOPE_TOP_TABLE_H
#define SPINSCOPE_TOP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "top_model.h"

enum top_col {
	TOP_COL_PID,
	TOP_COL_COMM,
	TOP_COL_CONTAINER,
	TOP_COL_CPU,
	TOP_COL_RUNNABLE,
	TOP_COL_RUNQ,
	TOP_COL_LOCKWAIT,
	TOP_COL_EVWAIT,
	TOP_COL_WAKES,
	TOP_COL_YIELDS,
	TOP_COL_SPIN,
	TOP_COL_VERDICT,
	TOP_NCOLS
};

/* One line of the table: a process, or a thread in the threads view (no
 * lock/event split there: the thread's futex wait time is lock_wait_ns). */
struct top_row {
	int32_t id;			/* pid, or tid */
	const char *comm, *container, *verdict;
	double cpu;			/* CPUs' worth used */
	double runnable;		/* average threads wanting a CPU */
	uint32_t allowed;		/* CPUs it may use; 0: not shown */
	uint64_t runq_ns, lock_wait_ns, event_wait_ns;
	uint64_t wakes, woken, yields, spin_samples;
	const struct top_proc *proc;	/* the process (the thread's, in that view) */
};

/* What the user chose: sort column and order, filter, which rows. */
struct top_table_view {
	enum top_col sort;
	bool reverse;			/* the column's other order */
	char filter[64];		/* "" shows every row */
	int32_t threads_of;		/* pid whose threads are shown; 0: processes */
};

struct top_rows {
	struct top_row *v;
	size_t n, cap;
	bool threads;			/* a threads view */
	bool sampling;			/* the SPIN column has figures */
};

/* The rows of s as v asks: filtered and sorted. 0 or -ENOMEM. In a threads
 * view of a process that is gone or has no thread detail, no rows. */
int top_table_build(const struct top_snapshot *s, const struct top_table_view *v,
		    struct top_rows *out);
void top_table_free(struct top_rows *r);

/* The column a key sorts by ('l' LOCKWAIT, ...), or -1. */
int top_table_sort_key(int key);
/* The next (dir 1) or previous (dir -1) shown column. */
enum top_col top_table_sort_step(enum top_col c, int dir, bool sampling);

/* The column titles, the sort column marked, cut to width columns. */
void top_table_header(const struct top_rows *r, const struct top_table_view *v, char *buf,
		      size_t size, unsigned int width);
/* One row as a line of at most width columns, no control byte in it. */
void top_table_line(const struct top_rows *r, const struct top_row *row, char *buf, size_t size,
		    unsigned int width);
/* The two host lines above the table: load, CPUs, processes, threads; and
 * what tracing costs (BPF time as a share of a CPU, spinscope's own CPU
 * and RSS, drops). */
void top_table_host_lines(const struct top_snapshot *s, char *l1, char *l2, size_t size,
			  unsigned int width);
/* The one-line key summary ("q quit  ? help  / filter ..."), and the help
 * screen's lines (NULL-terminated, static). */
const char *top_table_keys_line(void);
const char *const *top_table_help(void);

/* src made fit for the terminal: every control byte '?', cut to at most
 * width characters (UTF-8 sequences kept whole). Returns dst. */
char *top_table_fit(char *dst, size_t size, const char *src, unsigned int width);

#endif

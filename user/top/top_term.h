/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view's terminal: the signals that end it (SIGINT, SIGTERM,
 * SIGHUP), and one key read that also sees a terminal that went away.
 * Both the table and the report pager read keys through it, so either
 * returns at once when the user quits or the terminal closes.
 */
#ifndef SPINSCOPE_TOP_TERM_H
#define SPINSCOPE_TOP_TERM_H

#include <signal.h>

/* top_term_key's answers besides a key (curses' codes are below 01000). */
#define TOP_KEY_NONE (-1)		/* nothing within the wait */
#define TOP_KEY_END 0x10000		/* a signal or a closed terminal: leave */

/* Installs the handlers (no SA_RESTART: a wait ends at once); restores
 * the old ones. */
void top_term_signals(void);
void top_term_restore(void);
/* Nonzero once SIGINT, SIGTERM or SIGHUP came or stdin hung up. */
int top_term_ended(void);
/* The next key within timeout_ms, TOP_KEY_NONE or TOP_KEY_END. Needs
 * curses started, in nodelay mode. */
int top_term_key(int timeout_ms);

#endif

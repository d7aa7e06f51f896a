/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Enter in the live view: leaves curses, runs `EXE -p PID -d SECONDS
 * --brief` (fork and exec, no shell; its stdout and stderr through a pipe,
 * stdin /dev/null), then pages what it printed in a scrollable window
 * until q. A signal or a closed terminal meanwhile ends the run with
 * SIGINT (spinscope -p detaches and exits) and returns at once.
 */
#ifndef SPINSCOPE_TOP_PAGER_H
#define SPINSCOPE_TOP_PAGER_H

#include <stdint.h>

/* 0 back to the view; TOP_KEY_END (top_term.h) when the view must end. */
int top_pager_report(const char *exe, int32_t pid, unsigned int seconds);

#endif

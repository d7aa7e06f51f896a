/* SPDX-License-Identifier: GPL-2.0 */
/* Entry points of spinscope's subcommands, dispatched from main.c. */
#ifndef SPINSCOPE_COMMANDS_H
#define SPINSCOPE_COMMANDS_H

/* Each returns an exit code (errors.h). argv[0] is the subcommand name. */
int cmd_trace(int argc, char **argv);		/* spinscope -p PID ... */
int cmd_demo(int argc, char **argv);		/* spinscope demo */
int cmd_calibrate(int argc, char **argv);	/* spinscope calibrate ... */
int cmd_report(int argc, char **argv);		/* spinscope report FILE */
int cmd_diff(int argc, char **argv);		/* spinscope diff BEFORE AFTER */
int cmd_top(int argc, char **argv);		/* spinscope top: every process of the host */

#endif

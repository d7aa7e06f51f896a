/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options several commands share, one row each in options.c
 * (--json, --brief, --calibration, --help) beside the files of outputs.h:
 * each command's getopt table is its own options plus the shared rows
 * and files it takes, built here; the shared ones are taken into the
 * command's fields here, and their --help lines printed from the rows.
 * What getopt could not take is said here, alike for every command.
 * A shared option or a new format touches this file or outputs.c only.
 */
#ifndef SPINSCOPE_OPTIONS_H
#define SPINSCOPE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct option;
struct ss_output_paths;

/* The commands, as bits of a row's commands. */
#define SS_CMD_TRACE (1u << 0)		/* spinscope -p PID */
#define SS_CMD_DEMO (1u << 1)
#define SS_CMD_REPORT (1u << 2)
#define SS_CMD_DIFF (1u << 3)
#define SS_CMD_CALIBRATE (1u << 4)
#define SS_CMD_TOP (1u << 5)

/* getopt values of the shared options; the files' are SS_OPT_OUTPUT +
 * their kind (and their short letter, where they have one). */
enum {
	SS_OPT_JSON = 'j',
	SS_OPT_HELP = 'h',
	SS_OPT_BRIEF = 0x800,
	SS_OPT_CALIBRATION,
	SS_OPT_OUTPUT = 0x900,
};

#define SS_NSHARED_OPTIONS 4
/* Rows a command's getopt table needs beyond its own. */
#define SS_OPTIONS_EXTRA (SS_NSHARED_OPTIONS + 8 + 1)

/* Where a command keeps what the shared options say; a NULL field: the
 * command does not take it (its row is left out of its table). */
struct ss_shared_dest {
	bool *json, *brief, *help;
	const char **calibration;
	struct ss_output_paths *out;
};

/* getopt's table for cmd into out (room: nown + SS_OPTIONS_EXTRA): its
 * own rows, the shared rows it takes, its files, the end. */
void options_table(struct option *out, const struct option *own, size_t nown, unsigned int cmd,
		   const struct ss_shared_dest *d);
/* Takes getopt's c (and optarg) into d when it is a shared option or a
 * file: true then, false for the command's own options. */
bool options_take(int c, const char *optarg, const struct ss_shared_dest *d);
/* The one line for what getopt could not take (c is ':' for a missing
 * value, else an unknown option) into err: SS_EXIT_USAGE. short_opts:
 * the command's short options, to name an unknown letter in a group. */
int options_bad(int c, char **argv, const char *short_opts, char *err, size_t errlen);
/* A usage error's line into err (printf-like): SS_EXIT_USAGE. */
int __attribute__((format(printf, 3, 4)))
options_usage_error(char *err, size_t errlen, const char *fmt, ...);
/* --help's lines of the shared options and files cmd takes (not -h's). */
void options_print_help(FILE *out, unsigned int cmd, const struct ss_shared_dest *d);
/* --help's line of -h itself, for the end of a command's list. */
void options_print_help_row(FILE *out);

#endif

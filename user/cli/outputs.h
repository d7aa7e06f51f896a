/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files a command writes besides its report on stdout, one row each
 * in outputs.c: the option that names the file, what it is (for the one
 * error line a failure gets), the commands that take it, its --help text
 * and how it is written from the report. Every command that writes files
 * checks each one it was given before it does any work (outputs_check:
 * only looked at, outfile.h) and writes them at the end (outputs_write).
 * A new format is a new row; the option parser, --help and each command
 * take it from there.
 */
#ifndef SPINSCOPE_OUTPUTS_H
#define SPINSCOPE_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>
#include "options.h"	/* SS_CMD_* */
#include "report/pprof.h"
#include "report/report.h"

enum ss_output_kind {
	SS_OUT_FOLDED,		/* --folded FILE */
	SS_OUT_HTML,		/* --html FILE */
	SS_OUT_PPROF,		/* --pprof FILE */
	SS_OUT_METRICS_FILE,	/* --metrics-file FILE */
	SS_OUT_RECORDING,	/* -o FILE[.zst] */
	SS_NOUTPUTS
};


/* When a file is written: from the report as rendered, or from the JSON
 * document, which is made after the pages (it adds the advisor's input,
 * the calibration and the fingerprint; the pages are the report alone). */
enum ss_output_stage { SS_STAGE_REPORT, SS_STAGE_DOCUMENT };

/* What the writers read. */
struct ss_output_src {
	const struct ss_report *rep;
	json_object *doc;		/* SS_STAGE_DOCUMENT: the recording */
	pprof_resolve_fn resolve;	/* pprof's frames (NULL: addresses only) */
	void *resolve_arg;
};

struct ss_output_format {
	const char *option;		/* long option: "folded" */
	char short_option;		/* 'o', or 0 */
	const char *what;		/* "folded stacks": "cannot write folded stacks to F: ..." */
	const char *help;		/* --help's lines after "--option FILE" */
	unsigned int commands;		/* SS_CMD_* (options.h) that take it */
	enum ss_output_stage stage;
	int (*write)(const char *path, const struct ss_output_src *src, char *why, size_t whylen);
};

extern const struct ss_output_format ss_outputs[SS_NOUTPUTS];

/* The paths a command was given, indexed by kind; NULL: not asked for. */
struct ss_output_paths {
	const char *path[SS_NOUTPUTS];
};

/* Whether any file of the paths is asked for (mask: 0 for any kind, else
 * the kinds as 1 << kind). */
bool outputs_any(const struct ss_output_paths *p, unsigned int kinds);
/* Each asked-for file only looked at, before any work: 0, or the first
 * failure's exit code, said in one line (ss_error). */
int outputs_check(const struct ss_output_paths *p);
/* Called with what a failed write said; returns the exit code for it. */
typedef int (*outputs_failed_fn)(void *arg, const char *what, const char *path, const char *why);
/* Writes the asked-for files of stage, in the table's order; every file
 * is tried. 0, or the last failure's code from failed(). */
int outputs_write(const struct ss_output_paths *p, enum ss_output_stage stage,
		  const struct ss_output_src *src, outputs_failed_fn failed, void *arg);
struct option;
/* Appends to a getopt table, at out[n], a row per file cmd takes, whose
 * value is val_base + its kind, then the table's end: room for
 * SS_NOUTPUTS + 1 more rows is needed. */
void outputs_long_options(struct option *out, size_t n, unsigned int cmd, int val_base);

#endif

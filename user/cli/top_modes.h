/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `spinscope top`'s options (top_opts.c) and the modes that run outside
 * this folder's batch loop: the live view and the metrics agent, handed
 * the live source's refresh function (top_modes.c).
 */
#ifndef SPINSCOPE_TOP_MODES_H
#define SPINSCOPE_TOP_MODES_H

#include <stdbool.h>
#include <stddef.h>
#include "outputs.h"
#include "report/metrics_http.h"
#include "top/top_live.h"
#include "top/top_render.h"

#define TOP_CMD_MAX_PIDS 64

struct top_cmd_opts {
	bool help, batch, json, threads, sample;
	int verbose;
	double interval_s;		/* default 2 */
	double duration_s;		/* 0: until stopped */
	size_t rows;			/* 0: all (batch), the screen (view) */
	enum top_sort_key sort;
	int pids[TOP_CMD_MAX_PIDS];
	size_t npids;
	const char *metrics;		/* [ADDR:]PORT, NULL: not an agent */
	unsigned int top_n;		/* --top-n: the agent's labelled processes; 0: its default */
	const char *token_file;		/* --metrics-token-file FILE */
	char token[METRICS_HTTP_TOKEN_MAX];	/* read from it; "": none */
	struct ss_output_paths out;	/* -o FILE: the recording */
};

/* Parses argv (argv[0] is "top"): 0, or SS_EXIT_USAGE / SS_EXIT_TARGET
 * with the error printed. */
int top_cmd_parse(int argc, char **argv, struct top_cmd_opts *o);
/* Root, or CAP_BPF and CAP_PERFMON: 0 or SS_EXIT_PERM, printed. */
int top_cmd_check_privs(void);
/* The live view and the agent, until *stop: exit codes. */
int top_cmd_run_view(struct top_live *live, const struct top_cmd_opts *o, volatile int *stop);
int top_cmd_run_agent(struct top_live *live, const struct top_cmd_opts *o, volatile int *stop);

#endif

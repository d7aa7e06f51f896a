// SPDX-License-Identifier: GPL-2.0
/* `spinscope top`'s options, each checked with one line saying what to give. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "options.h"
#include "outputs.h"
#include "common/errors.h"
#include "trace/privs.h"
#include "top_modes.h"

enum { OPT_SORT = 256, OPT_THREADS, OPT_SAMPLE, OPT_METRICS, OPT_TOP_N, OPT_METRICS_TOKEN_FILE };

/* top's own options; options.c adds --json, --help and -o FILE. */
static const struct option top_longopts[] = {
	{ "batch", no_argument, NULL, 'b' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "rows", required_argument, NULL, 'n' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "sample", no_argument, NULL, OPT_SAMPLE },
	{ "pid", required_argument, NULL, 'p' },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "top-n", required_argument, NULL, OPT_TOP_N },
	{ "metrics-token-file", required_argument, NULL, OPT_METRICS_TOKEN_FILE },
};

#define NOWN (sizeof(top_longopts) / sizeof(top_longopts[0]))

static int add_pid(struct top_cmd_opts *o, const char *arg)
{
	long pid;

	if (ss_parse_int(arg, 1, 4194304, &pid))
		return ss_error(SS_EXIT_USAGE, "top: -p takes a process id (a number from 1), not '%s'", arg);
	if (o->npids == TOP_CMD_MAX_PIDS)
		return ss_error(SS_EXIT_USAGE, "top: at most %d -p options: leave -p out to see every process",
				TOP_CMD_MAX_PIDS);
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return ss_error(SS_EXIT_TARGET, "top: no process %ld: check the pid (ps -e)", pid);
	o->pids[o->npids++] = (int)pid;
	return 0;
}

/* One option c with its argument: 0 or an exit code, printed. */
static int take(int c, const char *arg, struct top_cmd_opts *o)
{
	long n;
	int k;

	switch (c) {
	case 'b': o->batch = true; return 0;
	case OPT_THREADS: o->threads = true; return 0;
	case OPT_SAMPLE: o->sample = true; return 0;
	case 'v': o->verbose++; return 0;
	case OPT_METRICS: o->metrics = arg; return 0;
	case OPT_METRICS_TOKEN_FILE: o->token_file = arg; return 0;
	case OPT_TOP_N:
		if (ss_parse_int(arg, 1, 1000, &n))
			return ss_error(SS_EXIT_USAGE, "top: --top-n takes a number from 1 to 1000, not '%s'", arg);
		o->top_n = (unsigned int)n;
		return 0;
	case 'p': return add_pid(o, arg);
	case 'i':
		if (ss_parse_double(arg, 0.1, 3600, &o->interval_s))
			return ss_error(SS_EXIT_USAGE, "top: -i takes seconds from 0.1 to 3600, not '%s'", arg);
		return 0;
	case 'd':
		if (ss_parse_double(arg, 0.1, 31536000, &o->duration_s))
			return ss_error(SS_EXIT_USAGE, "top: -d takes seconds (at least 0.1), not '%s'", arg);
		return 0;
	case 'n':
		if (ss_parse_int(arg, 1, 1000000, &n))
			return ss_error(SS_EXIT_USAGE, "top: -n takes a number of rows from 1, not '%s'", arg);
		o->rows = (size_t)n;
		return 0;
	case OPT_SORT:
		k = top_sort_parse(arg);
		if (k < 0)
			return ss_error(SS_EXIT_USAGE, "top: --sort: use one of %s, not '%s'", top_sort_names(), arg);
		o->sort = (enum top_sort_key)k;
		return 0;
	default:
		return ss_error(SS_EXIT_USAGE, "top: unknown option '%s': try 'spinscope top --help'",
				arg ? arg : "?");
	}
}

/* Combinations that cannot mean anything; the token read. */
static int check(struct top_cmd_opts *o)
{
	char why[512];

	if (o->metrics && (o->batch || o->json || o->duration_s > 0 || o->out.path[SS_OUT_RECORDING]))
		return ss_error(SS_EXIT_USAGE, "top: --metrics runs until stopped: drop -b, --json, -d and -o");
	if (o->top_n && !o->metrics)
		return ss_error(SS_EXIT_USAGE, "top: --top-n bounds the agent's series: add --metrics, or drop it");
	if (o->token_file && !o->metrics)
		return ss_error(SS_EXIT_USAGE, "top: --metrics-token-file guards the agent: add --metrics, or drop it");
	if (metrics_http__check(o->metrics, o->token_file, o->token, why, sizeof(why)))
		return ss_error(SS_EXIT_USAGE, "top: %s", why);
	if (o->duration_s > 0 && !o->batch && !o->json)
		return ss_error(SS_EXIT_USAGE, "top: -d ends a batch run: add -b or --json");
	if (o->out.path[SS_OUT_RECORDING] && !o->batch && !o->json)
		return ss_error(SS_EXIT_USAGE, "top: -o records a batch run: add -b or --json");
	if (o->batch && o->duration_s > 0 && o->interval_s > o->duration_s)
		return ss_error(SS_EXIT_USAGE, "top: -i is longer than -d: no interval would be printed");
	return 0;
}

/* -d shorter than the default interval, -i not given: one interval of -d. */
static void fit_interval(struct top_cmd_opts *o, bool interval_given)
{
	if (!interval_given && o->duration_s > 0 && o->duration_s < o->interval_s)
		o->interval_s = o->duration_s;
}

int top_cmd_parse(int argc, char **argv, struct top_cmd_opts *o)
{
	const struct ss_shared_dest shared = { .json = &o->json, .help = &o->help, .out = &o->out };
	struct option longopts[NOWN + SS_OPTIONS_EXTRA];
	bool interval_given = false;
	char err[256];
	int c, code;

	memset(o, 0, sizeof(*o));
	o->interval_s = 2;
	o->sort = TOP_SORT_LOCK_WAIT;
	options_table(longopts, top_longopts, NOWN, SS_CMD_TOP, &shared);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":bi:d:n:p:vho:", longopts, NULL)) != -1) {
		if (options_take(c, optarg, &shared))
			continue;
		if (c == ':' || c == '?') {
			options_bad(c, argv, "bi:d:n:p:vho:", err, sizeof(err));
			return ss_error(SS_EXIT_USAGE, "top: %s: try 'spinscope top --help'", err);
		}
		code = take(c, optarg, o);
		if (code)
			return code;
		interval_given |= c == 'i';
	}
	fit_interval(o, interval_given);
	if (optind < argc)
		return ss_error(SS_EXIT_USAGE, "top: unexpected argument '%s': try 'spinscope top --help'",
				argv[optind]);
	return o->help ? 0 : check(o);
}

int top_cmd_check_privs(void)
{
	uint64_t caps;
	char why[256];
	int code;

	if (privs_effective(&caps))
		return ss_error(SS_EXIT_PERM, "cannot read this process's capabilities: run spinscope top as root");
	code = privs_check_caps(caps, why, sizeof(why));
	return code ? ss_error(code, "%s", why) : 0;
}

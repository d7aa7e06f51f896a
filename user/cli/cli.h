/* SPDX-License-Identifier: GPL-2.0 */
/* Options of `spinscope -p PID ...`: parsed here, pure and unit-tested. */
#ifndef SPINSCOPE_CLI_H
#define SPINSCOPE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "outputs.h"
#include "report/metrics_http.h"
#include "trace/attach.h"

struct ss_opts {
	int pid;
	int tid;			/* 0: all threads */
	double duration_s;		/* 0: until a signal */
	double interval_s;		/* 0: no interval summaries */
	bool json;
	bool brief;			/* --brief: header and verdict only */
	int verbose;
	const char *btf_path;		/* --btf FILE */
	unsigned int max_threads;	/* map sizes */
	unsigned int max_futexes;
	unsigned int max_stacks;
	double stack_interval_ms;	/* one user stack per thread per interval */
	const char *event;		/* --event: sampled perf event */
	/* The files to write (outputs.h): -o, --folded, --html, --pprof,
	 * --metrics-file. */
	struct ss_output_paths out;
	const char *metrics_addr;	/* --metrics [ADDR:]PORT */
	const char *metrics_token_file;	/* --metrics-token-file FILE */
	/* read from it (trace_opts_settle): what a scrape must send; "": none */
	char metrics_token[METRICS_HTTP_TOKEN_MAX];
	bool no_calibrate;		/* never measure the host after the trace */
	bool no_jvm_map;		/* --no-jvm-map: never ask a JVM for its perf map */
	/* --no-data-addresses: no user registers with cpu-clock/task-clock
	 * samples, so no data addresses (false sharing without a PMU). */
	bool no_data_addresses;
	bool light;			/* --light: scheduler tracepoints only */
	enum tracer_attach attach;	/* --attach=auto|fentry|tracepoint */
	const char *calibration_path;	/* --calibration FILE; NULL: the store */
	/* The target is spinscope's own demo workload: stop it while the host
	 * is calibrated, so its busy threads neither slow nor skew the figures. */
	bool stop_target_to_calibrate;
	bool help;
	bool version;
};

extern const char ss_usage_line[];

/* Defaults for every option. */
void ss_opts_init(struct ss_opts *o);
/* Parses argv (argv[0] is the program). Returns 0, or SS_EXIT_USAGE with a
 * one-line reason in err. Reentrant (resets getopt). */
int ss_opts_parse(int argc, char **argv, struct ss_opts *o, char *err, size_t errlen);
/* The commands that trace take the same options, parsed by one parser:
 * the trace's (-p required), or the demo's, which traces its own workload
 * (-p and -t refused; 4 s and cpu-clock by default). */
enum ss_opts_cmd { SS_OPTS_TRACE, SS_OPTS_DEMO };
int ss_opts_parse_cmd(int argc, char **argv, enum ss_opts_cmd cmd, struct ss_opts *o, char *err,
		      size_t errlen);
/* Whether --json is among argv's options, for errors found before
 * a parser could say so: the JSON error object is promised for those too. */
bool ss_argv_wants_json(int argc, char **argv);
/* Prints --help (usage, options, exit codes). */
void ss_print_help(FILE *out);
/* --version: the version and the libraries this build runs with. */
void ss_print_version(FILE *out);

/* Strict number parsing shared by every command: the whole string must be a
 * number within [min, max]. Return 0 or -1. */
int ss_parse_int(const char *s, long min, long max, long *out);
int ss_parse_double(const char *s, double min, double max, double *out);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Option parsing for the trace command. No side effects beyond *o and err. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "options.h"
#include "common/errors.h"
#include "trace/tracer.h"

const char ss_usage_line[] =
	"usage: spinscope -p PID [-t TID] [-d SECONDS] [-i SECONDS] [--json|--brief] [-o FILE] [-v]\n"
	"       spinscope demo [-d SECONDS] [--json|--brief] [-o FILE]\n"
	"       spinscope calibrate [--quick|--full] [--only FAMILY,...] [--json]\n"
	"       spinscope report FILE [--json|--brief] [--folded FILE] [--html FILE] [--pprof FILE]\n"
	"                             [--calibration FILE] [--symbols DIR]\n"
	"       spinscope diff BEFORE AFTER [--json]\n";

enum {
	OPT_BTF = 256,
	OPT_MAX_THREADS,
	OPT_MAX_FUTEXES,
	OPT_MAX_STACKS,
	OPT_EVENT,
	OPT_STACK_INTERVAL,
	OPT_NO_CALIBRATE,
	OPT_METRICS,
	OPT_METRICS_TOKEN_FILE,
	OPT_LIGHT,
	OPT_ATTACH,
	OPT_NO_JVM_MAP,
	OPT_NO_DATA_ADDRESSES,
};

/* Leading ':': a missing value is reported as ':', apart from unknowns. */
static const char short_opts[] = ":p:t:d:i:jo:vhV";

/* The trace's own options; options.c adds the shared ones and the files. */

static const struct option base_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "duration", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'i' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "btf", required_argument, NULL, OPT_BTF },
	{ "max-threads", required_argument, NULL, OPT_MAX_THREADS },
	{ "max-futexes", required_argument, NULL, OPT_MAX_FUTEXES },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "stack-interval", required_argument, NULL, OPT_STACK_INTERVAL },
	{ "no-calibrate", no_argument, NULL, OPT_NO_CALIBRATE },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "metrics-token-file", required_argument, NULL, OPT_METRICS_TOKEN_FILE },
	{ "light", no_argument, NULL, OPT_LIGHT },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "no-jvm-map", no_argument, NULL, OPT_NO_JVM_MAP },
	{ "no-data-addresses", no_argument, NULL, OPT_NO_DATA_ADDRESSES },
	{ "version", no_argument, NULL, 'V' },
};

#define NBASE (sizeof(base_opts) / sizeof(base_opts[0]))

/* Where the shared options (options.h) land: the trace takes them all. */
static struct ss_shared_dest shared_of(struct ss_opts *o)
{
	return (struct ss_shared_dest){ .json = &o->json, .brief = &o->brief, .help = &o->help,
					.calibration = &o->calibration_path, .out = &o->out };
}

void ss_opts_init(struct ss_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->duration_s = 10;
	o->max_threads = 4096;
	o->max_futexes = 4096;
	o->max_stacks = 2048;
	o->stack_interval_ms = SS_STACK_INTERVAL_DEFAULT_NS / 1e6;
}

int ss_parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int ss_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

bool ss_argv_wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			return true;
	return false;
}

/* Options that take a number; 0 or SS_EXIT_USAGE with err filled. */
static int parse_number(int c, const char *arg, struct ss_opts *o, char *err, size_t errlen)
{
	long v;

	switch (c) {
	case 'p':
		if (ss_parse_int(arg, 1, INT_MAX, &v))
			return options_usage_error(err, errlen, "-p needs a process id (a positive integer), got '%s'", arg);
		o->pid = v;
		return 0;
	case 't':
		if (ss_parse_int(arg, 1, INT_MAX, &v))
			return options_usage_error(err, errlen, "-t needs a thread id (a positive integer), got '%s'", arg);
		o->tid = v;
		return 0;
	case 'd':
		if (ss_parse_double(arg, 0, 31 * 24 * 3600.0, &o->duration_s))
			return options_usage_error(err, errlen, "-d needs a duration in seconds (0 = until Ctrl-C), got '%s'", arg);
		return 0;
	case 'i':
		if (ss_parse_double(arg, 0.01, 24 * 3600.0, &o->interval_s))
			return options_usage_error(err, errlen, "-i needs an interval in seconds (at least 0.01), got '%s'", arg);
		return 0;
	case OPT_STACK_INTERVAL:
		if (ss_parse_double(arg, 0, 1000, &o->stack_interval_ms))
			return options_usage_error(err, errlen, "--stack-interval needs milliseconds from 0 to 1000, got '%s'", arg);
		return 0;
	}
	/* The map sizes. */
	if (ss_parse_int(arg, 16, 1 << 20, &v))
		return options_usage_error(err, errlen, "map sizes must be integers from 16 to 1048576, got '%s'", arg);
	if (c == OPT_MAX_THREADS)
		o->max_threads = v;
	else if (c == OPT_MAX_FUTEXES)
		o->max_futexes = v;
	else
		o->max_stacks = v;
	return 0;
}

int ss_opts_parse(int argc, char **argv, struct ss_opts *o, char *err, size_t errlen)
{
	return ss_opts_parse_cmd(argc, argv, SS_OPTS_TRACE, o, err, errlen);
}

int ss_opts_parse_cmd(int argc, char **argv, enum ss_opts_cmd cmd, struct ss_opts *o, char *err,
		      size_t errlen)
{
	const struct ss_shared_dest shared = shared_of(o);
	struct option long_opts[NBASE + SS_OPTIONS_EXTRA];
	int c, code;

	ss_opts_init(o);
	options_table(long_opts, base_opts, NBASE, cmd == SS_OPTS_DEMO ? SS_CMD_DEMO : SS_CMD_TRACE,
		      &shared);
	if (cmd == SS_OPTS_DEMO) {
		o->duration_s = 4;
		/* cpu-clock works on every host, PMU or not, and shows where
		 * the workload spins; -p keeps the cache-misses default. */
		o->event = "cpu-clock";
	}
	optind = 0;	/* full reset: the tests parse many argv's */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		if (options_take(c, optarg, &shared)) {
			if (o->help)
				return 0;
			continue;
		}
		switch (c) {
		case 'p': case 't':
			if (cmd == SS_OPTS_DEMO)
				return options_usage_error(err, errlen, "the demo traces its own workload: -%c is for `spinscope -p PID`",
					   c);
			/* fall through */
		case 'd': case 'i': case OPT_STACK_INTERVAL:
		case OPT_MAX_THREADS: case OPT_MAX_FUTEXES: case OPT_MAX_STACKS:
			code = parse_number(c, optarg, o, err, errlen);
			if (code)
				return code;
			break;
		case 'v': o->verbose++; break;
		case OPT_BTF: o->btf_path = optarg; break;
		case OPT_EVENT: o->event = optarg; break;
		case OPT_NO_CALIBRATE: o->no_calibrate = true; break;
		case OPT_NO_JVM_MAP: o->no_jvm_map = true; break;
		case OPT_NO_DATA_ADDRESSES: o->no_data_addresses = true; break;
		case OPT_METRICS: o->metrics_addr = optarg; break;
		case OPT_METRICS_TOKEN_FILE: o->metrics_token_file = optarg; break;
		case OPT_LIGHT: o->light = true; break;
		case OPT_ATTACH:
			if (tracer_attach_parse(optarg, &o->attach))
				return options_usage_error(err, errlen, "--attach takes auto, fentry or tracepoint, not '%s'",
					   optarg);
			break;
		case 'V':
			o->version = true;
			return 0;
		default:
			return options_bad(c, argv, short_opts, err, errlen);
		}
	}
	if (optind < argc)
		return options_usage_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (o->light && o->attach != TRACER_ATTACH_AUTO)
		return options_usage_error(err, errlen, "--light attaches no syscall program: drop --attach, or --light");
	if (o->json && o->brief)
		return options_usage_error(err, errlen, "--brief shortens the text report: drop --json, or --brief");
	if (!o->pid && cmd == SS_OPTS_TRACE)
		return options_usage_error(err, errlen, "no target: give the process to trace with -p PID");
	if (o->interval_s > 0 && o->duration_s > 0 && o->interval_s > o->duration_s)
		return options_usage_error(err, errlen, "-i is longer than -d: no interval would be printed");
	if (o->metrics_token_file && !o->metrics_addr)
		return options_usage_error(err, errlen, "--metrics-token-file guards --metrics: add --metrics, or drop it");
	return 0;
}

void ss_print_help(FILE *out)
{
	struct ss_opts scratch;
	const struct ss_shared_dest help_dest = shared_of(&scratch);

	fputs(ss_usage_line, out);
	fputs("\n"
	      "Traces how a running process waits, yields and gets scheduled: futex calls\n"
	      "(per thread and per address, with wait-time histograms and waiter stacks),\n"
	      "sched_yield calls and call sites, on/off-CPU time, context switches and\n"
	      "run-queue delay. Aggregated in the kernel; the target is never modified.\n"
	      "\n"
	      "Options:\n"
	      "  -p, --pid PID        process to trace (all its threads, also new ones)\n"
	      "  -t, --tid TID        trace only this thread of PID\n"
	      "  -d, --duration SEC   how long to trace (default 10; 0 = until Ctrl-C)\n"
	      "  -i, --interval SEC   also print a summary of each interval (with --json,\n"
	      "                       one object per line)\n"
	      , out);
	/* The shared options and the files: one row each in options.c and
	 * outputs.c. */
	options_print_help(out, SS_CMD_TRACE, &help_dest);
	fputs(
	      "  -v, --verbose        show libbpf's messages and map sizes\n"
	      "      --light          scheduler tracepoints only: other processes' syscalls\n"
	      "                       are not slowed; sees only futex waits that block,\n"
	      "                       yields that switch and wakes that wake (Linux 5.15+)\n"
	      "      --attach=MODE    how futex and sched_yield calls are traced: fentry\n"
	      "                       (only those calls pay; x86-64 kernels with BPF\n"
	      "                       trampolines), tracepoint (syscall tracepoints: every\n"
	      "                       syscall on the host pays ~40 ns) or auto (default:\n"
	      "                       the tracepoints for now; fentry only when asked)\n"
	      "      --btf FILE       kernel BTF to use instead of /sys/kernel/btf/vmlinux\n"
	      "      --event EVENT    sampled perf event (default cache-misses; cpu-clock\n"
	      "                       for an on-CPU profile where there is no PMU)\n"
	      "      --no-data-addresses  with --event cpu-clock or task-clock, do not\n"
	      "                       capture each sample's registers (the data addresses\n"
	      "                       that show false sharing without a PMU)\n"
	      "      --metrics [ADDR:]PORT  serve Prometheus metrics at /metrics while\n"
	      "                       tracing (default address 127.0.0.1)\n"
	      "      --metrics-token-file FILE  with --metrics: serve only scrapes that send\n"
	      "                       'Authorization: Bearer TOKEN', TOKEN the first line\n"
	      "                       of FILE (mode 0600)\n"
	      "      --no-calibrate   when this host has no stored calibration, do not\n"
	      "                       measure what the advice needs after the trace\n"
	      "      --no-jvm-map     do not ask a JVM (JDK 17+) for its perf map after the\n"
	      "                       trace (jcmd Compiler.perfmap, through its attach socket)\n"
	      "      --stack-interval MS  take a thread's user stack at most once per MS\n"
	      "                       (default 1; 0 = every event, which costs ~0.6 us each);\n"
	      "                       a call site whose stack stays the same is walked\n"
	      "                       less often, down to once per 16 MS\n"
	      "      --max-threads N  map sizes (defaults 4096 threads, 4096 futex\n"
	      "      --max-futexes N  addresses, 2048 stacks: at most about 13 MiB of kernel\n"
	      "      --max-stacks N   memory, taken as used from Linux 6.1, at once before;\n"
	      "                       and a 0.35 MiB table of 256 threads' records, at once)\n"
	      , out);
	options_print_help_row(out);
	fputs(
	      "  -V, --version        version\n"
	      "\n"
	      "Commands:\n"
	      "  demo                 trace a built-in workload with planted problems\n"
	      "  calibrate            measure what spinning, padding, NUMA and ordering cost here\n"
	      "  report FILE          the report of a recording (-o FILE), on any machine\n"
	      "  diff BEFORE AFTER    compare two recordings: locks, yield sites, threads, findings\n"
	      "  top                  which process on this host waits, spins or starves now\n"
	      "\n"
	      "SIGINT, SIGTERM and SIGHUP stop the trace, print the report and exit 0.\n"
	      "\n", out);
	fputs(ss_exit_codes_help, out);
}

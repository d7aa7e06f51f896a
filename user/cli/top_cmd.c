// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope top`: which process on this host waits, spins or starves
 * right now. Parses the options, attaches the host-wide scheduler-only
 * tracer (top/top_live.h) and hands its refresh function to the mode
 * asked for: batch text or JSON here (top/top_render.h), the live view
 * (top/top_view.h) or the metrics agent (top/top_agent.h). SIGINT,
 * SIGTERM and SIGHUP end every mode; every exit path detaches.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "options.h"
#include "outputs.h"
#include "commands.h"
#include "common/errors.h"
#include "top/top_live.h"
#include "top/top_model.h"
#include "top/top_render.h"
#include "top_modes.h"

#define TOP_MAX_PIDS 64
/* -o without -d: one window, ended by Ctrl-C (a day at most). */
#define TOP_RECORD_UNTIL_STOPPED_NS (86400ull * 1000000000ull)

static const char top_usage[] =
	"usage: spinscope top [-b] [-i SECONDS] [-d SECONDS] [-n N] [--json] [-o FILE] [--sort KEY]\n"
	"                     [--threads] [--sample] [-p PID]... [--metrics [ADDR:]PORT [--top-n N]\n"
	"                     [--metrics-token-file FILE]] [-v]\n";

static void top_help(FILE *out)
{
	struct top_cmd_opts scratch;
	const struct ss_shared_dest shared = { .json = &scratch.json, .help = &scratch.help,
					       .out = &scratch.out };

	fputs(top_usage, out);
	fputs("\n"
	      "Every process on the host, from the scheduler's tracepoints alone (no\n"
	      "syscall tracepoint: other processes' system calls are not slowed): CPUs\n"
	      "used, runnable threads, run-queue delay, time blocked in futex waits split\n"
	      "into lock and event waits, wakes, yields that switch and, with --sample,\n"
	      "samples at spin-wait hints; each process named by its container or\n"
	      "systemd unit, with the advisor's most severe finding this data supports.\n"
	      "Findings that need a full trace are marked '(+ -p)': run spinscope -p PID.\n"
	      "\n"
	      "Options:\n"
	      "  -b, --batch          plain text, one block per interval, no terminal view\n"
	      "  -i, --interval SEC   refresh interval (default 2)\n"
	      "  -d, --duration SEC   with -b or --json: stop after SEC (default: until\n"
	      "                       Ctrl-C; --json: one interval); --json covers all of SEC\n"
	      "  -n, --rows N         show the top N processes (default: all in batch, the\n"
	      "                       screen in the view)\n"
	      "      --sort KEY       order rows by KEY (default lock)\n"
	      "      --threads        each process's threads too\n"
	      "      --sample         sample every CPU (cpu-clock, 99 Hz) and count samples\n"
	      "                       at spin-wait hints (pause, isb, sb, yield)\n"
	      "  -p, --pid PID        only this process (repeat for more)\n"
	      "      --metrics [ADDR:]PORT  run as an agent: serve OpenMetrics at /metrics\n"
	      "                       until stopped (default address 127.0.0.1)\n"
	      "      --top-n N        with --metrics: the processes labelled per ranking (by\n"
	      "                       lock wait, spinning, run-queue delay; default 20, at\n"
	      "                       most 1000); the rest are summed in other=\"true\"\n"
	      "      --metrics-token-file FILE  with --metrics: serve only scrapes that send\n"
	      "                       'Authorization: Bearer TOKEN', TOKEN the first line\n"
	      "                       of FILE (mode 0600)\n"
	      "  -v, --verbose        show libbpf's messages\n"
	      , out);
	/* --json and -o FILE as every command has them (options.c, outputs.c):
	 * with -o, the whole of -d is one window, recorded for report, diff and
	 * --html */
	options_print_help(out, SS_CMD_TOP, &shared);
	options_print_help_row(out);
	fputs(
	      "\n"
	      "SIGINT, SIGTERM and SIGHUP stop it; nothing stays attached.\n"
	      "\n", out);
	fputs(ss_exit_codes_help, out);
}

static volatile int stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* No SA_RESTART: a signal ends the interval's sleep at once. */
static void catch_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static int recording_failed(void *arg, const char *what, const char *path, const char *why)
{
	(void)arg;
	return ss_error(SS_EXIT_ERROR, "cannot write %s to %s: %s", what, path, why);
}

/* -o FILE: the window's document, every process (not only -n's rows). */
static int save_recording(const struct top_cmd_opts *o, const struct top_snapshot *snap)
{
	struct top_render_opts all = { .sort = o->sort, .threads = o->threads };
	struct ss_output_src src = { 0 };
	int code;

	if (top_render_doc(snap, &all, &src.doc))
		return ss_error(SS_EXIT_RESOURCES, "out of memory making the recording");
	code = outputs_write(&o->out, SS_STAGE_DOCUMENT, &src, recording_failed, NULL);
	json_object_put(src.doc);
	if (!code && !o->json)
		ss_notice("recording saved to %s", o->out.path[SS_OUT_RECORDING]);
	return code;
}

/* Batch: one block (or document) per interval until -d or a signal. */
static int run_batch(struct top_live *live, const struct top_cmd_opts *o)
{
	struct top_render_opts ro = { .sort = o->sort, .rows = o->rows, .threads = o->threads };
	double elapsed = 0;
	int code = 0;

	/* At least one refresh: a stop before the first still prints what
	 * was seen until then. */
	do {
		struct top_snapshot snap;

		code = top_live_refresh(live, &snap, &stop_requested);
		if (code)
			break;
		if ((o->json ? top_render_json : top_render_text)(stdout, &snap, &ro))
			code = ss_error(SS_EXIT_RESOURCES, "out of memory rendering the refresh");
		if (!code && o->out.path[SS_OUT_RECORDING])
			code = save_recording(o, &snap);
		if (fflush(stdout) == EOF)
			code = ss_error(SS_EXIT_ERROR, "cannot write to stdout");
		elapsed += o->interval_s;
		if (o->json || o->out.path[SS_OUT_RECORDING] ||
		    (o->duration_s > 0 && elapsed >= o->duration_s - 1e-9))
			break;
	} while (!code && !stop_requested);
	return code;
}

int cmd_top(int argc, char **argv)
{
	struct top_cmd_opts o;
	struct top_live_opts lo;
	struct top_live *live;
	int code;

	code = top_cmd_parse(argc, argv, &o);
	if (code || o.help) {
		if (o.help)
			top_help(stdout);
		return code;
	}
	code = top_cmd_check_privs() ?: outputs_check(&o.out);
	if (code)
		return code;
	memset(&lo, 0, sizeof(lo));
	/* --json prints one document and -o records one: one interval, all
	 * of -d when given (-o alone: until stopped). */
	if ((o.json || o.out.path[SS_OUT_RECORDING]) && o.duration_s > 0)
		lo.interval_ns = (uint64_t)(o.duration_s * 1e9);
	else if (o.out.path[SS_OUT_RECORDING])
		lo.interval_ns = TOP_RECORD_UNTIL_STOPPED_NS;
	else
		lo.interval_ns = (uint64_t)(o.interval_s * 1e9);
	lo.bpf.sampling = o.sample;
	lo.bpf.verbose = o.verbose;
	lo.collect.threads = o.threads;
	lo.collect.pids = o.npids ? o.pids : NULL;
	lo.collect.npids = o.npids;
	catch_stop_signals();
	live = top_live__open(&lo, &code);
	if (!live)
		return code;
	if (!o.json && !o.batch && !o.metrics && !isatty(STDOUT_FILENO))
		o.batch = true;	/* no terminal: what top -b prints */
	if (lo.interval_ns == TOP_RECORD_UNTIL_STOPPED_NS)
		ss_notice("tracing every process on the host from its scheduler events until Ctrl-C");
	else if (o.batch || o.json || o.metrics)	/* the view owns the terminal */
		ss_notice("tracing every process on the host from its scheduler events; first refresh in %.1f s",
			  (double)lo.interval_ns / 1e9);
	if (o.metrics)
		code = top_cmd_run_agent(live, &o, &stop_requested);
	else if (o.batch || o.json)
		code = run_batch(live, &o);
	else
		code = top_cmd_run_view(live, &o, &stop_requested);
	top_live__close(live);
	/* The agent's server wiped its copy at its stop; this is the other. */
	explicit_bzero(o.token, sizeof(o.token));
	return code;
}

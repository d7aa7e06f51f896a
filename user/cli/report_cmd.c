// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope report FILE`: the report of a recording, on any machine,
 * without root or BPF. The recording is read into the model, the advisor
 * runs on it with the calibration it was made with (or --calibration's,
 * "what would this mean there"), and the same renderers print it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calib/calib_host.h"
#include "calib/calib_store.h"
#include "commands.h"
#include "common/errors.h"
#include "common/outfile.h"
#include "report/advice.h"
#include "report/folded.h"
#include "report/html.h"
#include "report/pprof.h"
#include "report/recording_read.h"
#include "options.h"
#include "outputs.h"
#include "report_advise.h"
#include "top/top_read.h"
#include "top_report.h"
#include "syms/build_id.h"

static const char report_usage[] =
	"usage: spinscope report FILE [--json|--brief] [--folded FILE] [--html FILE] [--pprof FILE]\n"
	"                        [--calibration FILE] [--symbols DIR]\n";

/* The usage line, then the options: the shared ones and files from
 * options.c, then report's own. */
static void print_usage(FILE *out, const struct ss_shared_dest *shared)
{
	fputs(report_usage, out);
	fputs("\nOptions:\n", out);
	options_print_help(out, SS_CMD_REPORT, shared);
	fputs("      --symbols DIR    name frames unnamed at trace time from the binaries or\n"
	      "                       debug files below DIR that carry their build-ids\n", out);
	options_print_help_row(out);
}

struct report_opts {
	const char *path;
	bool json;
	bool brief;
	bool help;
	struct ss_output_paths out;	/* --folded, --html, --pprof */
	const char *calibration_path;
	const char *symbols_dir;
};

static int parse(int argc, char **argv, struct report_opts *o)
{
	static const struct option own[] = {
		{ "symbols", required_argument, NULL, 's' },
	};
	const struct ss_shared_dest shared = { .json = &o->json, .brief = &o->brief, .help = &o->help,
					       .calibration = &o->calibration_path, .out = &o->out };
	struct option longopts[sizeof(own) / sizeof(own[0]) + SS_OPTIONS_EXTRA];
	char err[256];
	int c;

	memset(o, 0, sizeof(*o));
	options_table(longopts, own, sizeof(own) / sizeof(own[0]), SS_CMD_REPORT, &shared);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (options_take(c, optarg, &shared)) {
			if (o->help) {
				print_usage(stdout, &shared);
				return -1;
			}
		} else if (c == 's') {
			o->symbols_dir = optarg;
		} else {
			options_bad(c, argv, "h", err, sizeof(err));
			ss_error(SS_EXIT_USAGE, "report: %s", err);
			fputs(report_usage, stderr);
			return SS_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		ss_error(SS_EXIT_USAGE, "report: expected one recording FILE (spinscope -p PID -o FILE makes one)");
		fputs(report_usage, stderr);
		return SS_EXIT_USAGE;
	}
	o->path = argv[optind];
	return 0;
}

/* A frame trace time could not name: "[unknown]" or "module+0x..". */
static bool unnamed(const char *frame)
{
	return !strcmp(frame, "[unknown]") || !strstr(frame, " (");
}

/* Names the frames that were unnamed at trace time from the binaries or
 * debug files below dir that carry their build-ids. Returns frames named. */
static size_t rename_frames(struct ss_stacks *s, const char *dir)
{
	size_t named = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct ss_stack *st = &s->v[i];

		for (int d = 0; st->where && d < st->depth; d++) {
			const struct ss_frame_where *w = &st->where[d];
			const char *base;
			char buf[512], *copy;
			int fd;

			if (!w->module || !w->build_id[0] || !unnamed(st->frames[d]))
				continue;
			fd = build_id__open_in(dir, w->build_id);
			if (fd < 0)
				continue;
			base = strrchr(w->module, '/');
			if (!build_id__name_offset(fd, w->offset, w->vaddr, base ? base + 1 : w->module,
						   buf, sizeof(buf)) && (copy = strdup(buf))) {
				free(st->frames[d]);
				st->frames[d] = copy;
				named++;
			}
			close(fd);
		}
	}
	return named;
}

/* pprof's view of an address from the frames as recorded: the live
 * --pprof's names, modules, file offsets and build-ids. */
static int pprof_resolve(void *arg, uint64_t ip, struct pprof_frame *out)
{
	const struct recording_addr *a = recording__find_addr(arg, ip);

	if (!a)
		return -ENOENT;
	out->name = a->name;
	out->module = a->module;
	out->module_offset = a->where ? a->where->offset : 0;
	out->build_id = a->where && a->where->build_id[0] ? a->where->build_id : NULL;
	return 0;
}

static int report_failed(void *arg, const char *what, const char *path, const char *why)
{
	return ss_error(SS_EXIT_ERROR, "cannot write %s to %s: %s", what, path, why);
}

static int emit(const struct report_opts *o, struct ss_recording *rec, struct report_advice *ra)
{
	/* pprof names frames as recorded: the live --pprof's names, modules,
	 * file offsets and build-ids. */
	struct ss_output_src src = { .rep = &rec->rep, .resolve = pprof_resolve, .resolve_arg = rec };
	int err = 0;

	rec->rep.advice = ra->advice;
	/* The pages of the live --html, --pprof and --folded: the report
	 * without the recording's sections. */
	err = outputs_write(&o->out, SS_STAGE_REPORT, &src, report_failed, NULL);
	if (err)
		return err;
	rec->rep.advisor_input = ra->advice ? &ra->in.profile : NULL;
	rec->rep.calibration = ra->calibration;
	rec->rep.fingerprint = json_object_object_get(json_object_object_get(rec->doc, "host"),
						      "fingerprint");
	rec->rep.intervals = rec->intervals;
	if (o->json) {
		json_object *doc = report_to_json(&rec->rep);

		err = puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)) == EOF;
		json_object_put(doc);
	} else {
		rec->rep.brief = o->brief;
		report_print_text(&rec->rep, stdout);
	}
	if (err || fflush(stdout) == EOF)
		return ss_error(SS_EXIT_ERROR, "cannot write the report to stdout");
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct ss_recording rec;
	struct report_advice ra;
	json_object *doc = NULL;
	char why[512], inner[256];
	int code = parse(argc, argv, &o);

	if (code)
		return code < 0 ? 0 : code;
	ss_set_json_errors(o.json);
	/* Only looked at (outfile.h), before any work. */
	code = outputs_check(&o.out);
	if (code)
		return code;
	code = recording__open(o.path, &doc, why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	/* A recording of spinscope top: the host table, its page. */
	if (top_read__is_top(doc))
		return top_report_run(o.path, doc, o.json, o.brief, &o.out);
	code = recording__from_json(doc, &rec, inner, sizeof(inner));
	if (code) {
		recording__free(&rec);
		return ss_error(code, "cannot read the recording %s: %s", o.path, inner);
	}
	if (o.symbols_dir) {
		size_t n = rename_frames(&rec.stacks, o.symbols_dir) +
			   rename_frames(&rec.sample_stacks, o.symbols_dir);

		if (recording__index_names(&rec)) {
			recording__free(&rec);
			return ss_error(SS_EXIT_ERROR, "out of memory");
		}

		ss_notice("--symbols %s: %zu frame%s named by build-id", o.symbols_dir, n, n == 1 ? "" : "s");
	}
	code = report_advise(&rec, o.calibration_path, &ra, why, sizeof(why));
	if (code)
		ss_error(code, "%s", why);
	else
		code = emit(&o, &rec, &ra);
	report_advise__free(&ra);
	recording__free(&rec);
	return code;
}

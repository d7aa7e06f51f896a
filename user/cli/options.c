// SPDX-License-Identifier: GPL-2.0
/* The options commands share (see options.h). */
#include <getopt.h>
#include <stdarg.h>
#include <string.h>
#include "common/errors.h"
#include "options.h"
#include "outputs.h"

struct shared_option {
	struct option opt;
	const char *head;	/* --help's left column */
	const char *help;
};

static const struct shared_option shared[SS_NSHARED_OPTIONS] = {
	{ { "json", no_argument, NULL, SS_OPT_JSON }, "      --json",
	  "JSON on stdout instead of text (errors too)" },
	{ { "brief", no_argument, NULL, SS_OPT_BRIEF }, "      --brief",
	  "print only the header and the verdict: each warning\n"
	  "or critical finding in one line, what to do first" },
	{ { "calibration", required_argument, NULL, SS_OPT_CALIBRATION }, "      --calibration FILE",
	  "advise with this calibration, not the stored one\n"
	  "(`spinscope calibrate`) or the recording's" },
	{ { "help", no_argument, NULL, SS_OPT_HELP }, "  -h, --help", "this text" },
};

_Static_assert(SS_NOUTPUTS <= 8, "SS_OPTIONS_EXTRA has room for 8 files");

/* Whether d takes shared row i. */
static bool takes(const struct ss_shared_dest *d, int i)
{
	switch (shared[i].opt.val) {
	case SS_OPT_JSON: return d->json;
	case SS_OPT_BRIEF: return d->brief;
	case SS_OPT_CALIBRATION: return d->calibration;
	default: return d->help;
	}
}

void options_table(struct option *out, const struct option *own, size_t nown, unsigned int cmd,
		   const struct ss_shared_dest *d)
{
	size_t n = nown;

	if (nown)
		memcpy(out, own, nown * sizeof(*own));
	for (int i = 0; i < SS_NSHARED_OPTIONS; i++)
		if (takes(d, i))
			out[n++] = shared[i].opt;
	if (d->out)
		outputs_long_options(out, n, cmd, SS_OPT_OUTPUT);
	else
		memset(&out[n], 0, sizeof(out[n]));
}

bool options_take(int c, const char *optarg, const struct ss_shared_dest *d)
{
	int kind = -1;

	for (int k = 0; d->out && k < SS_NOUTPUTS; k++)
		if (c == SS_OPT_OUTPUT + k || (ss_outputs[k].short_option && c == ss_outputs[k].short_option))
			kind = k;
	if (kind >= 0) {
		d->out->path[kind] = optarg;
		return true;
	}
	if (c == SS_OPT_JSON && d->json)
		*d->json = true;
	else if (c == SS_OPT_BRIEF && d->brief)
		*d->brief = true;
	else if (c == SS_OPT_CALIBRATION && d->calibration)
		*d->calibration = optarg;
	else if (c == SS_OPT_HELP && d->help)
		*d->help = true;
	else
		return false;
	return true;
}

int options_usage_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return SS_EXIT_USAGE;
}

int options_bad(int c, char **argv, const char *short_opts, char *err, size_t errlen)
{
	if (c == ':')
		return options_usage_error(err, errlen, "option '%s' needs a value", argv[optind - 1]);
	/* Inside a group ("-xj") getopt has not moved past the argument yet,
	 * so argv[optind - 1] is the one before it: name the letter. Long
	 * options leave optopt 0 (or their own letter when given a value they
	 * do not take). */
	if (optopt > 0 && optopt < 256 && optopt != ':' && !strchr(short_opts, optopt))
		return options_usage_error(err, errlen, "unknown option '-%c'", optopt);
	return options_usage_error(err, errlen, "unknown option '%s'", argv[optind - 1]);
}

/* A row of --help: head, then the help's lines, the later ones indented
 * to the same column. */
static void help_row(FILE *out, const char *head, const char *help)
{
	const char *line = help;

	/* a long head keeps two spaces before its text, as the rest */
	fprintf(out, strlen(head) < 22 ? "%-22s " : "%s  ", head);
	while (line) {
		const char *nl = strchr(line, '\n');

		fprintf(out, "%.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
		line = nl ? nl + 1 : NULL;
		if (line)
			fprintf(out, "%23s", "");
	}
}

void options_print_help(FILE *out, unsigned int cmd, const struct ss_shared_dest *d)
{
	for (int i = 0; i < SS_NSHARED_OPTIONS; i++)
		if (takes(d, i) && shared[i].opt.val != SS_OPT_HELP)
			help_row(out, shared[i].head, shared[i].help);
	for (int k = 0; d->out && k < SS_NOUTPUTS; k++) {
		const struct ss_output_format *f = &ss_outputs[k];
		char head[48];

		if (!(f->commands & cmd))
			continue;
		if (f->short_option)
			snprintf(head, sizeof(head), "  -%c, --%s FILE", f->short_option, f->option);
		else
			snprintf(head, sizeof(head), "      --%s FILE", f->option);
		help_row(out, head, f->help);
	}
}

void options_print_help_row(FILE *out)
{
	help_row(out, shared[SS_NSHARED_OPTIONS - 1].head, shared[SS_NSHARED_OPTIONS - 1].help);
}

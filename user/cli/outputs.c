// SPDX-License-Identifier: GPL-2.0
/* The table of files a command writes (see outputs.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common/errors.h"
#include "common/outfile.h"
#include "outputs.h"
#include "report/folded.h"
#include "report/html.h"
#include "report/metrics_text.h"
#include "report/recording.h"

static int write_folded(const char *path, const struct ss_output_src *src, char *why, size_t whylen)
{
	const struct ss_report *r = src->rep;

	return folded__save(path, r->name, r->name_arg, r->profile, r->stacks, r->samples, why, whylen);
}

static int write_html(const char *path, const struct ss_output_src *src, char *why, size_t whylen)
{
	return html__save(path, src->rep, why, whylen);
}

static int write_pprof(const char *path, const struct ss_output_src *src, char *why, size_t whylen)
{
	return pprof__write(path, src->rep, src->resolve, src->resolve_arg, why, whylen);
}

static int write_metrics(const char *path, const struct ss_output_src *src, char *why, size_t whylen)
{
	char *text;
	size_t len;
	int err = metrics_text__render(src->rep, &text, &len);

	if (err) {
		snprintf(why, whylen, "%s", strerror(-err));
		return err;
	}
	err = outfile__save(path, text, len, why, whylen);
	free(text);
	return err;
}

static int write_recording(const char *path, const struct ss_output_src *src, char *why, size_t whylen)
{
	return recording__save(path, src->doc, why, whylen);
}

#define TRACING (SS_CMD_TRACE | SS_CMD_DEMO)

const struct ss_output_format ss_outputs[SS_NOUTPUTS] = {
	[SS_OUT_FOLDED] = { "folded", 0, "folded stacks",
			    "write folded stacks (futex wait time, yield sites,\n"
			    "samples) for flamegraph.pl, speedscope or inferno",
			    TRACING | SS_CMD_REPORT, SS_STAGE_REPORT, write_folded },
	[SS_OUT_HTML] = { "html", 0, "the HTML report",
			  "write the report as one self-contained HTML page\n"
			  "(flame graphs, histograms, threads, advice)",
			  TRACING | SS_CMD_REPORT, SS_STAGE_REPORT, write_html },
	[SS_OUT_PPROF] = { "pprof", 0, "the pprof profile",
			   "write a gzipped pprof profile (wait time, yields,\n"
			   "samples) for go tool pprof, Pyroscope or Parca",
			   TRACING | SS_CMD_REPORT, SS_STAGE_REPORT, write_pprof },
	[SS_OUT_METRICS_FILE] = { "metrics-file", 0, "metrics",
				  "write the Prometheus metrics to FILE each interval\n"
				  "(-i, else every second) and at the end, atomically",
				  TRACING, SS_STAGE_REPORT, write_metrics },
	[SS_OUT_RECORDING] = { "output", 'o', "the report",
			       "also write the JSON report to FILE (zstd-compressed\n"
			       "when FILE ends in .zst): the file to take away",
			       TRACING | SS_CMD_TOP, SS_STAGE_DOCUMENT, write_recording },
};

bool outputs_any(const struct ss_output_paths *p, unsigned int kinds)
{
	for (int k = 0; k < SS_NOUTPUTS; k++)
		if (p->path[k] && (!kinds || (kinds & (1u << k))))
			return true;
	return false;
}

int outputs_check(const struct ss_output_paths *p)
{
	char why[512];
	int code;

	for (int k = 0; k < SS_NOUTPUTS; k++)
		if (p->path[k] && (code = outfile__check(p->path[k], why, sizeof(why))))
			return ss_error(code, "cannot write %s to %s: %s", ss_outputs[k].what, p->path[k],
					why);
	return 0;
}

int outputs_write(const struct ss_output_paths *p, enum ss_output_stage stage,
		  const struct ss_output_src *src, outputs_failed_fn failed, void *arg)
{
	char why[1024];
	int code = 0;

	for (int k = 0; k < SS_NOUTPUTS; k++) {
		const struct ss_output_format *f = &ss_outputs[k];

		if (!p->path[k] || f->stage != stage)
			continue;
		why[0] = 0;
		if (f->write(p->path[k], src, why, sizeof(why)))
			code = failed(arg, f->what, p->path[k], why);
	}
	return code;
}

void outputs_long_options(struct option *out, size_t n, unsigned int cmd, int val_base)
{
	for (int k = 0; k < SS_NOUTPUTS; k++)
		if (ss_outputs[k].commands & cmd)
			out[n++] = (struct option){ ss_outputs[k].option, required_argument, NULL,
						    val_base + k };
	memset(&out[n], 0, sizeof(out[n]));
}

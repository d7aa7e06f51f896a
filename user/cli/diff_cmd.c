// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope diff BEFORE AFTER`: two recordings of the same program, say
 * before and after a fix, compared per lock, yield site, thread group and
 * in total, with a verdict per finding that came, went or changed.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "options.h"
#include "top/top_read.h"
#include "top_report.h"
#include "common/errors.h"
#include "report/recording_diff.h"
#include "report/recording_read.h"
#include "report/report.h"

static const char diff_usage[] = "usage: spinscope diff BEFORE AFTER [--json]\n";

static const char *fmt_rate(const struct diff_row *r, double v, char *buf, size_t len)
{
	if (r->unit == DIFF_NS) {
		char ns[32];

		snprintf(buf, len, "%s/s", fmt_ns((__u64)(v > 0 ? v : 0), ns, sizeof(ns)));
	} else {
		snprintf(buf, len, "%.1f/s", v);
	}
	return buf;
}

static const char *sig_word(enum diff_sig s)
{
	return s == DIFF_SIG_YES ? "beyond noise" : s == DIFF_SIG_NO ? "within noise" : "noise unknown";
}

/* after / before; NAN when before is 0. */
static double ratio(const struct diff_row *r)
{
	return r->before > 0 ? r->after / r->before : NAN;
}

/* One verdict line per finding that came, went or changed severity, one
 * per lock whose wait time moved beyond noise, then the overall word. */
static void verdict_lines(const struct recording_diff *d, void (*line)(void *, const char *), void *arg)
{
	char buf[640], a[48], b[48];
	size_t nf = 0;
	/* Nothing moved beyond noise: a severity change is a figure near a
	 * rule's threshold, not a change of the program. */
	bool quiet = d->intervals_before >= 2 && d->intervals_after >= 2 && !d->significant;

	for (size_t i = 0; i < d->nfindings; i++) {
		const struct diff_finding *f = &d->findings[i];

		if (f->change == DIFF_SAME)
			continue;
		nf++;
		if (f->change == DIFF_APPEARED)
			snprintf(buf, sizeof(buf), "appeared: [%s] %s (%s)", f->after, f->title, f->id);
		else if (f->change == DIFF_DISAPPEARED)
			snprintf(buf, sizeof(buf), "disappeared: [%s] %s (%s)", f->before, f->title, f->id);
		else
			snprintf(buf, sizeof(buf), "%s: %s went from %s to %s%s: %s",
				 diff__change_name(f->change), f->id, f->before, f->after,
				 quiet ? " while its figures moved within run-to-run noise (a threshold crossed)" : "",
				 f->title);
		line(arg, buf);
	}
	if (!nf)
		line(arg, "no finding appeared, disappeared or changed severity");
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (r->section != DIFF_LOCKS || strcmp(r->metric, "wait_ns") || r->significant != DIFF_SIG_YES)
			continue;
		snprintf(buf, sizeof(buf), "lock %s: wait time %s %.0f%% (%s -> %s), beyond run-to-run noise",
			 r->name, r->after < r->before ? "fell" : "rose",
			 r->before > 0 ? fabs(100.0 * (r->after - r->before) / r->before) : 100.0,
			 fmt_rate(r, r->before, b, sizeof(b)), fmt_rate(r, r->after, a, sizeof(a)));
		line(arg, buf);
	}
	if (!d->intervals_before || !d->intervals_after)
		line(arg, "significance unknown: record both runs with -i to measure their noise");
	else if (!d->significant)
		line(arg, "no significant change: every difference is within the run-to-run noise");
	else
		snprintf(buf, sizeof(buf), "%zu change%s beyond run-to-run noise", d->significant,
			 d->significant == 1 ? "" : "s"), line(arg, buf);
}

static void print_line(void *arg, const char *s)
{
	fprintf(arg, "  %s\n", s);
}

static void print_text(const struct recording_diff *d, const struct ss_recording *b,
		       const struct ss_recording *a, const char *pb, const char *pa)
{
	static const char *const titles[DIFF_SECTIONS] = {
		"TOTALS", "LOCKS (matched by name)", "YIELD SITES", "THREAD GROUPS (digits in names ignored)",
	};
	int last = -1;
	const char *last_name = NULL;

	printf("spinscope diff: %s (pid %d %s, %.1f s) -> %s (pid %d %s, %.1f s)\n", pb, b->rep.pid,
	       b->rep.comm, b->rep.duration_ns / 1e9, pa, a->rep.pid, a->rep.comm,
	       a->rep.duration_ns / 1e9);
	printf("noise: %zu and %zu intervals; a change counts beyond %.0fx their pooled spread and %.0f%%\n",
	       d->intervals_before, d->intervals_after, DIFF_NOISE_SPREADS, DIFF_MIN_SHARE * 100);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		char vb[48], va[48], rt[16];

		if ((int)r->section != last) {
			printf("\n%s%*s%14s %14s %8s\n", titles[r->section],
			       (int)(40 - strlen(titles[r->section])), "", "before", "after", "ratio");
			last = r->section;
			last_name = NULL;
		}
		if (r->name[0] && (!last_name || strcmp(last_name, r->name)))
			printf("  %s\n", r->name);
		last_name = r->name;
		if (isnan(ratio(r)))
			snprintf(rt, sizeof(rt), "%s", r->after > 0 ? "new" : "-");
		else
			snprintf(rt, sizeof(rt), "%.2f", ratio(r));
		printf("    %-34s %14s %14s %8s  %s\n", r->metric, fmt_rate(r, r->before, vb, sizeof(vb)),
		       fmt_rate(r, r->after, va, sizeof(va)), rt, sig_word(r->significant));
	}
	printf("\nVERDICT\n");
	verdict_lines(d, print_line, stdout);
}

static void json_line(void *arg, const char *s)
{
	json_object_array_add(arg, json_object_new_string(s));
}

static json_object *side_json(const struct ss_recording *r, const char *path)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "pid", json_object_new_int(r->rep.pid));
	json_object_object_add(o, "comm", json_object_new_string(r->rep.comm));
	json_object_object_add(o, "duration_ns", json_object_new_uint64(r->rep.duration_ns));
	return o;
}

static json_object *diff_json(const struct recording_diff *d, const struct ss_recording *b,
			      const struct ss_recording *a, const char *pb, const char *pa)
{
	json_object *root = json_object_new_object(), *sec[DIFF_SECTIONS], *f, *v;

	json_object_object_add(root, "before", side_json(b, pb));
	json_object_object_add(root, "after", side_json(a, pa));
	json_object_object_add(root, "intervals_before", json_object_new_uint64(d->intervals_before));
	json_object_object_add(root, "intervals_after", json_object_new_uint64(d->intervals_after));
	for (int s = 0; s < DIFF_SECTIONS; s++)
		json_object_object_add(root, diff__section_name(s), sec[s] = json_object_new_array());
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		json_object *o = json_object_new_object();

		if (r->name[0])
			json_object_object_add(o, "name", json_object_new_string(r->name));
		json_object_object_add(o, "metric", json_object_new_string(r->metric));
		json_object_object_add(o, "before_per_s", json_object_new_double(r->before));
		json_object_object_add(o, "after_per_s", json_object_new_double(r->after));
		json_object_object_add(o, "ratio", isnan(ratio(r)) ? NULL : json_object_new_double(ratio(r)));
		json_object_object_add(o, "noise_per_s", r->noise < 0 ? NULL : json_object_new_double(r->noise));
		json_object_object_add(o, "significant", r->significant == DIFF_SIG_UNKNOWN ? NULL :
				       json_object_new_boolean(r->significant));
		json_object_array_add(sec[r->section], o);
	}
	f = json_object_new_array();
	for (size_t i = 0; i < d->nfindings; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_string(d->findings[i].id));
		json_object_object_add(o, "title", json_object_new_string(d->findings[i].title));
		json_object_object_add(o, "before", d->findings[i].before ?
				       json_object_new_string(d->findings[i].before) : NULL);
		json_object_object_add(o, "after", d->findings[i].after ?
				       json_object_new_string(d->findings[i].after) : NULL);
		json_object_object_add(o, "change", json_object_new_string(diff__change_name(d->findings[i].change)));
		json_object_array_add(f, o);
	}
	json_object_object_add(root, "findings", f);
	json_object_object_add(root, "significant_changes", json_object_new_uint64(d->significant));
	v = json_object_new_array();
	verdict_lines(d, json_line, v);
	json_object_object_add(root, "verdict", v);
	return root;
}

/* Both recordings parsed, and how many are top's: 0 or an exit code, said. */
static int open_both(const char *const paths[2], json_object *docs[2], int *tops)
{
	char why[512];
	int code;

	docs[0] = docs[1] = NULL;
	*tops = 0;
	for (int i = 0; i < 2; i++) {
		code = recording__open(paths[i], &docs[i], why, sizeof(why));
		if (code) {
			json_object_put(docs[0]);
			return ss_error(code, "%s", why);
		}
		*tops += top_read__is_top(docs[i]);
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	bool json = false, help = false;
	const struct ss_shared_dest shared = { .json = &json, .help = &help };
	struct option longopts[SS_OPTIONS_EXTRA];
	struct ss_recording rec[2];
	json_object *docs[2];
	int tops;
	struct recording_diff d;
	char why[512];
	int c, code = 0;

	options_table(longopts, NULL, 0, SS_CMD_DIFF, &shared);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (!options_take(c, optarg, &shared)) {
			options_bad(c, argv, "h", why, sizeof(why));
			ss_error(SS_EXIT_USAGE, "diff: %s", why);
			fputs(diff_usage, stderr);
			return SS_EXIT_USAGE;
		}
		if (help) {
			fputs(diff_usage, stdout);
			fputs("\nOptions:\n", stdout);
			options_print_help(stdout, SS_CMD_DIFF, &shared);
			options_print_help_row(stdout);
			return 0;
		}
	}
	ss_set_json_errors(json);
	if (optind != argc - 2) {
		ss_error(SS_EXIT_USAGE, "diff: expected two recordings, BEFORE and AFTER (spinscope -p PID -i 1 -o FILE)");
		fputs(diff_usage, stderr);
		return SS_EXIT_USAGE;
	}
	memset(rec, 0, sizeof(rec));
	code = open_both((const char *const *)argv + optind, docs, &tops);
	if (code)
		return code;
	/* Two recordings of spinscope top: process by process. */
	if (tops == 2)
		return top_diff_run((const char *const *)argv + optind, docs, json);
	if (tops) {
		json_object_put(docs[0]);
		json_object_put(docs[1]);
		return ss_error(SS_EXIT_USAGE, "diff: one recording is of spinscope top, the other of "
			       "spinscope -p: compare two of a kind");
	}
	for (int i = 0; i < 2 && !code; i++)
		if ((code = recording__from_json(docs[i], &rec[i], why, sizeof(why)))) {
			ss_error(code, "cannot read the recording %s: %s", argv[optind + i], why);
			if (!i)
				json_object_put(docs[1]);
		}
	if (!code && recording_diff__compute(&rec[0], &rec[1], &d))
		code = ss_error(SS_EXIT_ERROR, "diff: out of memory");
	if (!code) {
		if (json) {
			json_object *o = diff_json(&d, &rec[0], &rec[1], argv[optind], argv[optind + 1]);

			puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(o);
		} else {
			print_text(&d, &rec[0], &rec[1], argv[optind], argv[optind + 1]);
		}
		recording_diff__free(&d);
		if (fflush(stdout) == EOF)
			code = ss_error(SS_EXIT_ERROR, "cannot write the diff to stdout");
	}
	recording__free(&rec[0]);
	recording__free(&rec[1]);
	return code;
}

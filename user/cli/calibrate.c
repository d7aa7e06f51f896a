// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope calibrate`: runs the reference-kernel families on the allowed
 * CPUs, prints a table per family (headline first) or JSON, and saves the
 * results with the host fingerprint for `spinscope -p`. Ctrl-C stops
 * between figures and saves what was measured, marked partial.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "calib/calib_compare.h"
#include "calib/calib_json.h"
#include "calib/calib_lock_words.h"
#include "calib/calib_merge.h"
#include "calib/calib_store.h"
#include "calib/kern/calib_util.h"
#include "calibrate.h"
#include "commands.h"
#include "options.h"
#include "common/errors.h"
#include "calib/kern/fingerprint.h"

const struct calib_family *const calibrate_families[] = {
	&calib_false_sharing,
	&calib_spin_hint,
	&calib_spin_threshold,
	&calib_numa,
	&calib_memory_order,
	&calib_host_costs,
};
const int calibrate_nfamilies = sizeof(calibrate_families) / sizeof(calibrate_families[0]);

static const char usage[] =
	"Usage: spinscope calibrate [--quick|--full] [--only FAMILY,...] [--cpus LIST]\n"
	"                           [--json] [-o FILE] [--force] [--show]\n"
	"       spinscope calibrate --compare A.json B.json\n"
	"Measures what spinning, padding, NUMA placement and memory ordering cost on\n"
	"this host, and saves the results for 'spinscope -p'.\n"
	"  --quick        short run, about 8 s on a quiet 2-CPU host (default)\n"
	"  --full         longer, steadier run (minutes)\n"
	"  --only LIST    run only these families: false_sharing, spin_hint,\n"
	"                 spin_threshold, numa, memory_order, host_costs\n"
	"  --cpus LIST    use only these CPUs, e.g. 0-3,6 (default: all allowed)\n"
	"  --json         print {schema, host, results} as JSON\n"
	"  -o FILE        save to FILE (default: /var/lib/spinscope/calibration.json\n"
	"                 as root, else $XDG_CACHE_HOME/spinscope/calibration.json)\n"
	"  --force        replace stored families even when this run's host was busier,\n"
	"                 or they are from a --full run and this one is --quick\n"
	"  --show         print the saved results again, with when and under what load\n"
	"                 each family was measured; measures nothing\n"
	"  --compare A B  print two calibrations' headline figures side by side, with\n"
	"                 ratios and which differences exceed their measured noise\n"
	"  -h, --help     this text\n"
	"Ctrl-C stops early and saves what was measured, marked partial (exit 1),\n"
	"never over a complete stored family.\n";

static int parse_only(const char *list, unsigned *mask)
{
	char buf[256], *save = NULL;

	*mask = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < calibrate_nfamilies; i++)
			if (!strcmp(tok, calibrate_families[i]->key))
				break;
		if (i == calibrate_nfamilies)
			return ss_error(SS_EXIT_USAGE,
					"unknown family '%s' in --only: choose from false_sharing, "
					"spin_hint, spin_threshold, numa, memory_order, host_costs", tok);
		*mask |= 1u << i;
	}
	if (!*mask)
		return ss_error(SS_EXIT_USAGE, "--only needs at least one family, e.g. --only spin_hint");
	return 0;
}

static void cpulist_text(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
		int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c, e);
		c = e;
	}
}

static int parse_cpus(const char *list, cpu_set_t *cpus)
{
	cpu_set_t allowed, want;
	char text[256];

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return ss_error(SS_EXIT_ERROR, "cannot read this process's CPU affinity: %s",
				strerror(errno));
	if (calib__parse_cpulist(list, &want))
		return ss_error(SS_EXIT_USAGE, "bad --cpus list '%s': give CPU numbers and ranges, e.g. 0-3,6",
				list);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &want) && !CPU_ISSET(c, &allowed)) {
			cpulist_text(&allowed, text, sizeof(text));
			return ss_error(SS_EXIT_USAGE, "--cpus: CPU %d is not available to this process "
					"(allowed: %s)", c, text);
		}
	*cpus = want;
	return 0;
}

int calibrate__parse_args(int argc, char **argv, struct calibrate_opts *o)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "full", no_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'O' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "show", no_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'F' },
		{ "compare", required_argument, NULL, 'C' },
	};
	/* --json and --help as every command has them (options.c) */
	const struct ss_shared_dest shared = { .json = &o->json, .help = &o->help };
	struct option table[sizeof(longopts) / sizeof(longopts[0]) + SS_OPTIONS_EXTRA];
	bool quick = false, full = false;
	int opt, err;

	memset(o, 0, sizeof(*o));
	o->only = (1u << calibrate_nfamilies) - 1;
	if (sched_getaffinity(0, sizeof(o->cpus), &o->cpus))
		return ss_error(SS_EXIT_ERROR, "cannot read this process's CPU affinity: %s",
				strerror(errno));
	optind = 0;	/* getopt may have run before (tests call this twice) */
	opterr = 0;
	options_table(table, longopts, sizeof(longopts) / sizeof(longopts[0]), SS_CMD_CALIBRATE, &shared);
	while ((opt = getopt_long(argc, argv, ":ho:", table, NULL)) != -1) {
		if (options_take(opt, optarg, &shared))
			continue;
		switch (opt) {
		case 'q': quick = true; break;
		case 'f': full = true; break;
		case 's': o->show = true; break;
		case 'F': o->force = true; break;
		case 'C': o->compare[0] = optarg; break;
		case 'o': o->path = optarg; break;
		case 'O':
			if ((err = parse_only(optarg, &o->only)))
				return err;
			break;
		case 'c':
			if ((err = parse_cpus(optarg, &o->cpus)))
				return err;
			break;
		case ':':
			return ss_error(SS_EXIT_USAGE, "%s needs a value: see 'spinscope calibrate --help'",
					argv[optind - 1]);
		default:
			return ss_error(SS_EXIT_USAGE, "unknown option '%s': see 'spinscope calibrate --help'",
					argv[optind - 1]);
		}
	}
	/* --compare A B: the second file is the one operand. */
	if (o->compare[0] && optind < argc)
		o->compare[1] = argv[optind++];
	if (o->compare[0] && !o->compare[1])
		return ss_error(SS_EXIT_USAGE, "--compare needs two files: spinscope calibrate --compare A.json B.json");
	if (optind < argc)
		return ss_error(SS_EXIT_USAGE, "unexpected argument '%s': see 'spinscope calibrate --help'",
				argv[optind]);
	if (quick && full)
		return ss_error(SS_EXIT_USAGE, "--quick and --full exclude each other: choose one");
	o->quick = !full;
	return 0;
}

/* --- running ------------------------------------------------------------ */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct progress {
	bool on;		/* stderr is a terminal */
	const char *name;
	double budget_left;	/* seconds of later families */
	double budget_now;	/* this family's */
};

static void progress_draw(void *arg, double done)
{
	struct progress *p = arg;
	double left = p->budget_left + p->budget_now * (1 - (done < 1 ? done : 1));
	char bar[21];
	int fill = (int)(done * 20);

	if (!p->on)
		return;
	for (int i = 0; i < 20; i++)
		bar[i] = i < fill ? '#' : '-';
	bar[20] = '\0';
	fprintf(stderr, "\r\033[K[%s] %-15s about %.0f s left", bar, p->name, left + 0.5);
	fflush(stderr);
}

static void progress_clear(struct progress *p)
{
	if (p->on) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

/* Skipped families and parts, for the closing summary. */
static void collect_skips(const char *key, json_object *result, char *buf, size_t len)
{
	json_object *parts, *v;
	size_t n = strlen(buf);

	if (json_object_object_get_ex(result, "skipped", &v) && json_object_get_boolean(v)) {
		snprintf(buf + n, len - n, "%s  %s: %s\n", "", key,
			 calib_json__string(result, "reason", "no reason given"));
		return;
	}
	if (!json_object_object_get_ex(result, "skipped_parts", &parts) ||
	    !json_object_is_type(parts, json_type_array))
		return;
	for (size_t i = 0; i < calib_json__len(parts); i++) {
		json_object *p = calib_json__at(parts, i);

		n = strlen(buf);
		snprintf(buf + n, len - n, "  %s, %s: %s\n", key, calib_json__string(p, "what", "?"),
			 calib_json__string(p, "reason", "no reason given"));
	}
}

/* "2026-12-01 12:26 UTC": when a family started, for --show and the notes. */
static json_object *utc_now(void)
{
	char text[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm);
	return json_object_new_string(text);
}

/* The family's conditions (calib_conditions.h) and its busy warning. */
static void add_conditions(json_object *r, const struct calib_busy_sample *b0, int online)
{
	struct calib_busy_sample b1;
	struct calib_busy busy;
	char w[256];

	if (calib_busy__read(NULL, &b1))
		return;
	calib_busy__judge(b0, &b1, online, &busy);
	json_object_object_add(r, "busy", calib_busy__json(&busy));
	if (busy.busy) {
		snprintf(w, sizeof(w), "host busy while measuring: %s; the figures may be off", busy.why);
		json_object_object_add(r, "warning", json_object_new_string(w));
	}
}

/* The expected time of family f under ctx. */
static double family_seconds(const struct calib_family *f, const struct calib_ctx *ctx)
{
	if (f->expected_seconds)
		return f->expected_seconds(ctx);
	return ctx->quick ? f->quick_seconds : f->full_seconds;
}

/* What the families are run with: the options' mode and CPUs. */
static struct calib_ctx ctx_of(const struct calibrate_opts *o)
{
	return (struct calib_ctx){ .quick = o->quick, .cpus = o->cpus,
				   .ncpus = CPU_COUNT(&o->cpus), .stop = &stop_requested };
}

static double budget_of(const struct calibrate_opts *o)
{
	struct calib_ctx ctx = ctx_of(o);
	double s = 0;

	for (int i = 0; i < calibrate_nfamilies; i++)
		if (o->only & (1u << i))
			s += family_seconds(calibrate_families[i], &ctx);
	return s;
}

static int run_families(const struct calibrate_opts *o, json_object *results, bool *failed)
{
	struct calib_ctx ctx = ctx_of(o);
	struct progress prog = { .on = isatty(2) };
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	ctx.progress = progress_draw;
	ctx.progress_arg = &prog;
	prog.budget_left = budget_of(o);
	for (int i = 0; i < calibrate_nfamilies && !stop_requested; i++) {
		const struct calib_family *f = calibrate_families[i];
		struct calib_busy_sample b0;
		json_object *r;
		uint64_t t0;
		int err;

		if (!(o->only & (1u << i)))
			continue;
		prog.name = f->key;
		prog.budget_now = family_seconds(f, &ctx);
		prog.budget_left -= prog.budget_now;
		progress_draw(&prog, 0);
		r = json_object_new_object();
		json_object_object_add(r, "measured_at", utc_now());
		/* What the store weighs it by (calib_merge.h). */
		json_object_object_add(r, "mode", json_object_new_string(o->quick ? "quick" : "full"));
		calib_busy__read(NULL, &b0);
		t0 = calib__now_ns();
		err = f->run(&ctx, r);
		json_object_object_add(r, "seconds",
				       json_object_new_double((double)(calib__now_ns() - t0) / 1e9));
		add_conditions(r, &b0, (int)(online > 0 ? online : 1));
		if (err) {
			json_object_object_add(r, "error", json_object_new_string(strerror(-err)));
			*failed = true;
		}
		if (stop_requested)
			json_object_object_add(r, "partial", json_object_new_boolean(1));
		json_object_object_add(results, f->key, r);
	}
	progress_clear(&prog);
	return 0;
}

/* --- output ------------------------------------------------------------- */

static void print_host(const json_object *host, FILE *out)
{
	struct ss_fingerprint fp;

	if (calib_store__host_from_json(host, &fp))
		return;
	fprintf(out, "host: %s (%s family %d model %d stepping %d%s%s), %d cores, %d threads, "
		"%d node%s, cache line %d B\n", fp.model_name, fp.vendor, fp.family, fp.model,
		fp.stepping, fp.microcode[0] ? ", microcode " : "", fp.microcode, fp.cores, fp.threads,
		fp.nodes, fp.nodes == 1 ? "" : "s", fp.cache_line);
	fprintf(out, "      kernel %s, %s%s, governor %s, load %.2f, steal %.1f%%\n", fp.kernel,
		fp.hypervisor ? "hypervisor " : "bare metal", fp.hypervisor ? (fp.hypervisor_name[0] ?
		fp.hypervisor_name : "(unnamed)") : "", fp.governor, fp.load1, fp.steal_frac * 100);
}

static void print_text(const json_object *doc, unsigned only, FILE *out)
{
	json_object *results = NULL, *host = NULL, *v;
	char skips[4096] = "", cond[256];

	json_object_object_get_ex(doc, "host", &host);
	json_object_object_get_ex(doc, "results", &results);
	print_host(host, out);
	for (int i = 0; i < calibrate_nfamilies; i++) {
		const struct calib_family *f = calibrate_families[i];
		json_object *r;

		if (!(only & (1u << i)) || !json_object_object_get_ex(results, f->key, &r))
			continue;
		fprintf(out, "\n%s [%s]%s\n", f->title, f->key,
			json_object_object_get_ex(r, "partial", &v) ? " (partial: interrupted)" : "");
		collect_skips(f->key, r, skips, sizeof(skips));
		fprintf(out, "  measured %s\n", calib_merge__conditions(r, cond, sizeof(cond)));
		if (json_object_object_get_ex(r, "skipped", &v) && json_object_get_boolean(v)) {
			fprintf(out, "  skipped: %s\n", calib_json__string(r, "reason", "no reason given"));
			continue;
		}
		if (json_object_object_get_ex(r, "error", &v))
			fprintf(out, "  failed: %s\n", json_object_get_string(v));
		else
			f->print(r, out);
		calib_json__print_warnings(r, out);
	}
	if (skips[0])
		fprintf(out, "\nskipped:\n%s", skips);
}

static int print_doc(const json_object *doc, const struct calibrate_opts *o)
{
	if (o->json) {
		printf("%s\n", json_object_to_json_string_ext((json_object *)doc,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		return 0;
	}
	print_text(doc, o->only, stdout);
	return 0;
}

/* Loads a calibration document; on failure one line saying why, and the
 * exit code. */
static int load_doc(const char *path, json_object **doc)
{
	int err = calib_store__load(path, doc);

	if (err == -ENOENT)
		return ss_error(SS_EXIT_ERROR, "no calibration saved at %s: run 'spinscope calibrate'", path);
	if (err == -EINVAL)
		return ss_error(SS_EXIT_ERROR, "%s is not a spinscope calibration of schema %d",
				path, CALIB_SCHEMA);
	if (err == -EBADMSG)
		return ss_error(SS_EXIT_ERROR, "%s is not valid JSON: not a spinscope calibration", path);
	if (err == -EFBIG)
		return ss_error(SS_EXIT_ERROR, "%s is larger than %d MiB: not a spinscope calibration",
				path, CALIB_STORE_MAX_BYTES >> 20);
	if (err == -EISDIR || err == -ENXIO)
		return ss_error(SS_EXIT_ERROR, "%s is not a regular file: give a calibration file", path);
	if (err)
		return ss_error(SS_EXIT_ERROR, "cannot read %s: %s", path, strerror(-err));
	return 0;
}

/* What a trace's advice will quote from these results as the lock
 * strategy, per contention level (calib_lock_words.h). */
static void print_lock_advice(const json_object *doc, bool this_host)
{
	json_object *results = NULL;
	char light[320], heavy[320];

	json_object_object_get_ex(doc, "results", &results);
	calib_lock__advice_words(results, false, light, sizeof(light));
	calib_lock__advice_words(results, true, heavy, sizeof(heavy));
	if (!light[0] && !heavy[0])
		return;
	/* Another host's results are not used by traces here. */
	printf("\nlock strategy the advice %s: light contention: %s; heavy contention: %s\n",
	       this_host ? "will quote" : "would quote on the host that measured these results",
	       light[0] ? light : "none", heavy[0] ? heavy : "none");
}

static int show_saved(const struct calibrate_opts *o, const char *path)
{
	struct ss_fingerprint saved, here;
	json_object *doc, *host = NULL;
	char why[512];
	bool this_host = true;
	int err = load_doc(path, &doc);

	if (err)
		return err;
	json_object_object_get_ex(doc, "host", &host);
	if (!calib_store__host_from_json(host, &saved) && !fingerprint__read(NULL, &here) &&
	    !fingerprint__match(&saved, &here, why, sizeof(why))) {
		ss_warn("these results were measured on another host (%s): 'spinscope -p' will not use them",
			why);
		this_host = false;
	}
	print_doc(doc, o);
	if (!o->json) {
		print_lock_advice(doc, this_host);
		printf("\n(saved %s in %s)\n", calib_json__string(doc, "created", "?"), path);
	}
	json_object_put(doc);
	return SS_EXIT_OK;
}

/* --compare A B: both loaded (one line and exit 1 when one cannot be),
 * printed side by side; measures nothing. */
static int compare_files(const struct calibrate_opts *o)
{
	json_object *a = NULL, *b = NULL;
	int err = load_doc(o->compare[0], &a);

	if (!err)
		err = load_doc(o->compare[1], &b);
	if (!err)
		calib_compare__print(a, o->compare[0], b, o->compare[1], o->json, stdout);
	json_object_put(a);
	json_object_put(b);
	return err;
}

/*
 * The results to save: this run's families merged into the stored ones of
 * this very host (calib_merge.h: a busier, interrupted or failed family
 * never replaces a good one unless --force), and one note per family kept.
 */
static json_object *merge_with_stored(const char *path, json_object *fresh, bool force,
				      struct calib_merge_note *notes, size_t max, size_t *nnotes)
{
	json_object *old = NULL, *merged;
	char why[256];

	if (calib_store__load_matching_at(path, NULL, &old, why, sizeof(why)))
		old = NULL;	/* none, unreadable or another host's: nothing to keep */
	merged = calib_merge__results(old, fresh, force, notes, max, nnotes);
	json_object_put(old);
	return merged;
}

static bool any_partial(const json_object *results)
{
	json_object_object_foreach((json_object *)results, key, val) {
		(void)key;
		if (json_object_get_boolean(json_object_object_get(val, "partial")))
			return true;
	}
	return false;
}

/* The notes as "not_saved" in the printed document, and on stderr. */
static void report_kept(json_object *doc, const struct calib_merge_note *notes, size_t n)
{
	json_object *arr;

	if (!n)
		return;
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "family", json_object_new_string(notes[i].family));
		json_object_object_add(o, "why", json_object_new_string(notes[i].text));
		json_object_array_add(arr, o);
		ss_warn("%s", notes[i].text);
	}
	json_object_object_add(doc, "not_saved", arr);
}

/* The families' results, measured with Ctrl-C and SIGTERM asking them to
 * stop (stop_requested) rather than ending the process. */
static json_object *run_stoppable(const struct calibrate_opts *o, bool *failed)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	json_object *results;

	/* No SA_RESTART: a kernel sleeping in a syscall sees EINTR and
	 * checks the stop flag. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	stop_requested = 0;
	results = json_object_new_object();
	run_families(o, results, failed);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return results;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_opts o;
	struct ss_fingerprint fp;
	json_object *results, *doc, *merged, *saved;
	struct calib_merge_note notes[16];
	size_t nnotes = 0;
	char path[4096], why[512];
	bool failed = false, partial;
	int err;

	if ((err = calibrate__parse_args(argc, argv, &o)))
		return err;
	if (o.help) {
		fputs(usage, stdout);
		return SS_EXIT_OK;
	}
	ss_set_json_errors(o.json);
	if (o.compare[0])
		return compare_files(&o);
	if (o.path)
		snprintf(path, sizeof(path), "%s", o.path);
	else if (calib_store__default_path(path, sizeof(path)))
		return ss_error(SS_EXIT_USAGE, "no place to save results: HOME is not set; give -o FILE");
	if (o.show)
		return show_saved(&o, path);
	/* A name we may not write fails now, not after minutes of measuring. */
	if ((err = calib_store__check(path, why, sizeof(why))))
		return ss_error(err, "cannot save the results to %s: %s; give -o FILE", path, why);
	if ((err = fingerprint__read(NULL, &fp)))
		return ss_error(SS_EXIT_ERROR, "cannot read the host fingerprint from /proc/cpuinfo: %s",
				strerror(-err));
	if (geteuid() != 0 && !o.json)
		fprintf(stderr, "spinscope: not root: figures that need BPF are skipped and listed at the end\n");
	if (!o.json) {
		double s = budget_of(&o);
		char when[48];

		if (s < 1)
			snprintf(when, sizeof(when), "under a second");
		else
			snprintf(when, sizeof(when), "about %.0f s", s + 0.5);
		fprintf(stderr, "spinscope: calibrating (%s): %s on a quiet host, longer on a busy "
			"one; Ctrl-C stops and keeps what is done\n", o.quick ? "--quick" : "--full",
			when);
	}
	results = run_stoppable(&o, &failed);
	partial = stop_requested;
	merged = merge_with_stored(path, results, o.force, notes, sizeof(notes) / sizeof(notes[0]),
				   &nnotes);
	saved = merged ? calib_store__document(&fp, merged, any_partial(merged)) : NULL;
	doc = calib_store__document(&fp, results, partial);
	if (!doc || !saved) {
		json_object_put(doc);
		json_object_put(saved);
		return ss_error(SS_EXIT_ERROR, "out of memory building the results");
	}
	err = calib_store__save(path, saved, why, sizeof(why));
	json_object_put(saved);
	report_kept(doc, notes, nnotes);
	print_doc(doc, &o);
	json_object_put(doc);
	if (err)
		return ss_error(SS_EXIT_ERROR, "cannot save the results to %s: %s; give -o FILE",
				path, why);
	if (!o.json)
		printf("\nsaved to %s%s\n", path, partial ? " (partial)" : "");
	/* The document on stdout already says "partial" or "error": a second
	 * JSON object after it would only break its parsing. */
	ss_set_json_errors(false);
	if (partial && nnotes)
		return ss_error(SS_EXIT_ERROR, "calibration interrupted: the stored complete families were "
				"kept (see above), the rest saved to %s marked partial", path);
	if (partial)
		return ss_error(SS_EXIT_ERROR, "calibration interrupted: partial results saved to %s", path);
	if (failed)
		return ss_error(SS_EXIT_ERROR, "a family failed (see 'failed:' above); other results saved to %s",
				path);
	return SS_EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * --html, read by a real browser: headless Chromium (Debian's chromium,
 * no network, a fresh profile) loads the page spinscope demo wrote from a
 * file, runs its script and dumps the DOM. The page holds one flame graph
 * per stack kind whose root total equals the JSON report's total for that
 * kind and the sum of the --folded lines of the same run; a search and a
 * zoom given in the address weigh what the folded lines say they weigh; the
 * browser logged no console message (no script error, no blocked fetch).
 * A screenshot is taken too: docs/html-report.png is one of these. And
 * `spinscope report` of the recording writes the very page the trace wrote.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "tracetest.h"

#define CHROMIUM "/usr/bin/chromium"
#define SEARCH "Lock"			/* any case: __lll_lock_wait, demo_locked_update */
#define ZOOM "demo_mutex_worker"

struct kind {
	const char *name;		/* root frame of the folded lines */
	unsigned long long json_total;	/* what the JSON report says */
	unsigned long long folded;	/* sum of its folded lines */
	unsigned long long matched;	/* ... of lines with a frame holding SEARCH */
	unsigned long long zoom;	/* heaviest node named ZOOM, else the total */
	struct { char path[2048]; unsigned long long sum; } nodes[64];
	int nnodes;
};

/* Adds one "kind;f1;...;leaf COUNT" line to its kind's sums. */
static void add_line(char *line, struct kind *kinds, int nkinds)
{
	char *sp = strrchr(line, ' '), *semi = strchr(line, ';'), *f;
	unsigned long long n;
	struct kind *k = NULL;
	bool matched = false;

	assert_non_null(sp);
	n = strtoull(sp + 1, NULL, 10);
	*sp = '\0';
	assert_non_null(semi);
	*semi = '\0';
	for (int i = 0; i < nkinds; i++)
		if (!strcmp(line, kinds[i].name))
			k = &kinds[i];
	if (!k)
		fail_msg("folded line of an unexpected kind: %s", line);
	*semi = ';';
	k->folded += n;
	for (f = semi + 1; f; f = strchr(f, ';') ? strchr(f, ';') + 1 : NULL) {
		size_t len = strcspn(f, ";");
		char name[512];

		snprintf(name, sizeof(name), "%.*s", (int)len, f);
		matched |= strcasestr(name, SEARCH) != NULL;
		/* The node is its path from the root: sum each such prefix. */
		if (len == strlen(ZOOM) && !strncmp(f, ZOOM, len)) {
			int j, plen = (int)(f + len - line);

			for (j = 0; j < k->nnodes && strncmp(k->nodes[j].path, line, plen); j++)
				;
			if (j == k->nnodes) {
				assert_true(k->nnodes < 64);
				snprintf(k->nodes[k->nnodes++].path, sizeof(k->nodes[0].path), "%.*s", plen, line);
			}
			k->nodes[j].sum += n;
		}
	}
	if (matched)
		k->matched += n;
}

static void read_folded(const char *path, struct kind *kinds, int nkinds)
{
	char line[8192];
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		add_line(line, kinds, nkinds);
	}
	fclose(f);
	for (int i = 0; i < nkinds; i++) {
		kinds[i].zoom = kinds[i].nnodes ? 0 : kinds[i].folded;
		for (int j = 0; j < kinds[i].nnodes; j++)
			if (kinds[i].nodes[j].sum > kinds[i].zoom)
				kinds[i].zoom = kinds[i].nodes[j].sum;
	}
}

/* The value of attribute attr in the tag that starts at tag. */
static unsigned long long attr_u64(const char *tag, const char *attr)
{
	char key[64];
	const char *v, *end = strchr(tag, '>');

	snprintf(key, sizeof(key), " %s=\"", attr);
	v = strstr(tag, key);
	if (!v || v > end)
		fail_msg("no %s in %.*s", attr, (int)(end - tag + 1), tag);
	return strtoull(v + strlen(key), NULL, 10);
}

/* Runs the browser on url with extra arguments; its stdout is returned. */
static char *chromium(const char *url, const char *extra1, const char *extra2, char **err)
{
	char dir[] = "/tmp/ss-chromium-XXXXXX", udd[128];
	const char *args[] = { CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
			       "--disable-background-networking", "--disable-component-update",
			       "--disable-sync", "--no-first-run", udd,
			       "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr",
			       "--v=0", extra1, extra2, url, NULL };
	const char *rm[] = { "/bin/rm", "-rf", dir, NULL };
	char *out, *rmout, *rmerr;
	int rc;

	assert_non_null(mkdtemp(dir));
	snprintf(udd, sizeof(udd), "--user-data-dir=%s", dir);
	if (!extra2) {
		args[13] = url;
		args[14] = NULL;
	}
	rc = tt_run(args, &out, err, 120000);
	tt_run(rm, &rmout, &rmerr, 30000);
	free(rmout);
	free(rmerr);
	if (rc)
		fail_msg("chromium exited with %d: %s", rc, *err);
	return out;
}

/* The wakes of every release site in the JSON report (futex-release's total). */
static unsigned long long release_wakes(json_object *doc)
{
	json_object *fx = tt_get(doc, "futexes");
	unsigned long long n = 0;

	for (size_t i = 0; i < json_object_array_length(fx); i++) {
		json_object *sites = NULL;

		/* Only lock words whose wakes found waiters have the key. */
		json_object_object_get_ex(json_object_array_get_idx(fx, i), "release_sites", &sites);

		for (size_t k = 0; sites && k < json_object_array_length(sites); k++)
			n += tt_u64(json_object_array_get_idx(sites, k), "wakes");
	}
	return n;
}

static void test_html_report_in_chromium(void **state)
{
	char html[] = "/tmp/ss-html-XXXXXX.html", folded[] = "/tmp/ss-folded-XXXXXX";
	const char *args[] = { NULL, "demo", "-d", "1", "--json", "--no-calibrate",
			       "--calibration", "/nonexistent/spinscope-calibration.json",
			       "--html", html, "--folded", folded, NULL };
	/* In the page's order: futex-release (the demo's mutex convoy's
	 * release sites) comes after the kinds always shown. */
	struct kind kinds[4] = { { .name = "futex-wait-ns" }, { .name = "sched-yield" },
				 { .name = "samples-cpu-clock" }, { .name = "futex-release" } };
	int nkinds;
	char url[256], shot[4200], *out, *err, *dom, *p;
	json_object *doc;
	unsigned char png[24];
	bool partial = false;
	int n = 0, rc;
	FILE *f;

	TL_REQUIRE_BPF();
	if (access(CHROMIUM, X_OK))
		fail_msg("%s is missing: `make test` installs it (Debian package chromium)", CHROMIUM);
	close(mkstemps(html, 5));	/* a browser reads .html as a page */
	close(mkstemp(folded));
	args[0] = tl_path("spinscope");
	rc = tt_run(args, &out, &err, 60000);
	if (rc)
		fail_msg("spinscope demo exited with %d: %s", rc, err);
	doc = tt_parse_report(out);
	kinds[0].json_total = tt_u64(doc, "totals.futex_wait_ns");
	kinds[1].json_total = tt_u64(doc, "totals.sched_yield");
	kinds[2].json_total = tt_u64(doc, "samples.total");
	kinds[3].json_total = release_wakes(doc);
	nkinds = kinds[3].json_total ? 4 : 3;
	free(out);
	free(err);
	read_folded(folded, kinds, nkinds);

	snprintf(url, sizeof(url), "file://%s#search=%s&zoom=%s", html, SEARCH, ZOOM);
	dom = chromium(url, "--dump-dom", NULL, &err);
	if (strstr(err, "CONSOLE"))
		fail_msg("the browser console was not silent: %s", err);
	if (!strstr(dom, "<body data-ready=\"1\">"))
		fail_msg("the page's script did not finish: %.2000s", dom);
	/* The page leads with the verdict: its first card, naming the first
	 * warning or critical finding as the text report does. */
	p = strstr(dom, "<section class=\"card");
	if (!p || strncmp(p, "<section class=\"card verdict\"", strlen("<section class=\"card verdict\"")))
		fail_msg("the page's first card is not the verdict: %.300s", p ? p : dom);
	if (json_object_array_length(tt_get(doc, "verdict.findings"))) {
		json_object *first = json_object_array_get_idx(tt_get(doc, "verdict.findings"), 0);
		const char *what = json_object_get_string(tt_get(first, "what"));

		if (!strstr(p, what) || strstr(p, what) > strstr(p, "</section>"))
			fail_msg("the verdict card does not name %s: %.600s", what, p);
	}
	for (p = dom; (p = strstr(p, "<section class=\"card flamegraph\"")); p++, n++) {
		struct kind *k = &kinds[n < nkinds ? n : nkinds - 1];
		char want[80];

		assert_true(n < nkinds);
		snprintf(want, sizeof(want), "data-kind=\"%s\"", k->name);
		if (!strstr(p, want) || strstr(p, want) > strchr(p, '>'))
			fail_msg("flame graph %d is not %s", n, k->name);
		print_message("# %s: page %llu, folded %llu, JSON %llu; '%s' %llu; zoom %llu\n",
			      k->name, attr_u64(p, "data-total"), k->folded, k->json_total, SEARCH,
			      k->matched, k->zoom);
		assert_true(k->folded > 0);
		assert_int_equal(attr_u64(p, "data-total"), k->folded);
		if (k->folded != k->json_total)
			fail_msg("%s: the flame graph's root is %llu, the JSON report's total %llu; dropped: %s",
				 k->name, k->folded, k->json_total,
				 json_object_to_json_string(tt_get(doc, "dropped")));
		assert_int_equal(attr_u64(p, "data-matched"), k->matched);
		partial |= k->matched && k->matched < k->folded;
		assert_int_equal(attr_u64(p, "data-zoom-value"), k->zoom);
	}
	assert_int_equal(n, nkinds);
	/* The search picked some frames of a kind and not others. */
	assert_true(partial);
	assert_non_null(strstr(dom, "class=\"fr match\""));
	free(dom);
	free(err);

	/* A laptop-sized screenshot of the page as it opens. */
	snprintf(shot, sizeof(shot), "--screenshot=%s", tl_path("html-report.png"));
	snprintf(url, sizeof(url), "file://%s", html);
	free(chromium(url, shot, "--window-size=1280,1500", &err));
	if (strstr(err, "CONSOLE"))
		fail_msg("the browser console was not silent: %s", err);
	free(err);
	f = fopen(tl_path("html-report.png"), "rb");
	assert_non_null(f);
	assert_int_equal(fread(png, 1, sizeof(png), f), sizeof(png));
	fclose(f);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	/* IHDR width: the window's. */
	assert_int_equal((png[16] << 24) | (png[17] << 16) | (png[18] << 8) | png[19], 1280);
	json_object_put(doc);
	unlink(html);
	unlink(folded);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;

	assert_non_null(f);
	*len = 0;
	for (size_t cap = 0, n = 1; n;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	}
	fclose(f);
	return buf;
}

/* `spinscope report REC --html` writes the page the live trace wrote. */
static void test_report_html_equals_live(void **state)
{
	char rec[] = "/tmp/ss-rec-XXXXXX.json.zst", live[] = "/tmp/ss-live-XXXXXX.html";
	char again[] = "/tmp/ss-again-XXXXXX.html", *out, *err, *a, *b;
	const char *report[] = { NULL, "report", rec, "--html", again, NULL };
	struct tt_workload w;
	struct tt_trace t;
	size_t na, nb;

	TL_REQUIRE_BPF();
	close(mkstemps(rec, 9));
	close(mkstemps(live, 5));
	close(mkstemps(again, 5));
	tt_workload_start(&w, "hot_lock", TT_ARGS("4", "1", "20", "30"));
	tt_workload_go(&w);
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", "1", "--no-calibrate", "--json",
				   "-o", rec, "--html", live));
	tt_trace_end(&t, 0, 60000);
	tt_workload_end(&w);
	if (t.rc)
		fail_msg("spinscope exited with %d: %s", t.rc, t.err);
	tt_trace_free(&t);
	report[0] = tl_path("spinscope");
	if (tt_run(report, &out, &err, 60000))
		fail_msg("spinscope report failed: %s", err);
	a = slurp(live, &na);
	b = slurp(again, &nb);
	print_message("# live page %zu bytes, report's %zu\n", na, nb);
	/* The mutex waits are in the page. */
	assert_non_null(memmem(a, na, "__lll_lock_wait\",", 17));
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
	free(out);
	free(err);
	unlink(rec);
	unlink(live);
	unlink(again);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_html_report_in_chromium, tt_teardown),
		cmocka_unit_test_teardown(test_report_html_equals_live, tt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

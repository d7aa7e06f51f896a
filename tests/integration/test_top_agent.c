// SPDX-License-Identifier: GPL-2.0
/*
 * The host agent (`spinscope top --metrics`) end to end: scraped over
 * HTTP, its text passes promtool, its labelled series stay within the top
 * N and its counters only grow; SIGTERM ends it with 0; a taken port is
 * one line and exit 2; and a real Prometheus server (Debian's) scraping it
 * on 127.0.0.1 and evaluating packaging/spinscope-top.rules.yml fires the
 * lock-wait alert for the lock-heavy process and no alert for the idle
 * pool or for processes under the thresholds.
 *
 * The agent is, by default, this binary (--fake-agent ADDR) serving canned
 * refreshes (tests/lib/top_fake.c): no BPF needed. SPINSCOPE_TOP_AGENT=real
 * runs `spinscope top --metrics ADDR` instead, beside a hot_lock workload
 * (the lock-heavy one) and a condvar_pool (the idle one).
 *
 * Prometheus evaluates the rules with their windows and `for` shortened
 * (2m -> 10s, `for: 5s`) so that an alert fires within a test's time;
 * promtool test rules (tests/pkg/test_top_unit.sh) covers the real ones.
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tracetest.h"
#include "report/metrics_http.h"
#include "top/top_agent.h"
#include "top/top_series.h"
#include "top_fake.h"

#define TOOL_TIMEOUT_MS 60000
#define END_TIMEOUT_MS 20000
#define WAIT_S 120		/* a loaded host: Prometheus starts slowly */
#define TOP_N 3

struct agent {
	struct tl_proc proc;
	char addr[64];
	const char *token_file;		/* --metrics-token-file; NULL: none */
	bool real;
	const char *locky, *idle;	/* comm of the lock-heavy and of the idle process */
	struct tt_workload hot, pool;
};

static char self[4096];

/* The agent (this binary's fake, or spinscope top with
 * SPINSCOPE_TOP_AGENT=real) on port; token_file: what scrapes must send. */
static void agent_start(struct agent *a, int port, const char *token_file)
{
	char topn[16];

	memset(a, 0, sizeof(*a));
	a->token_file = token_file;
	a->real = getenv("SPINSCOPE_TOP_AGENT") && !strcmp(getenv("SPINSCOPE_TOP_AGENT"), "real");
	snprintf(a->addr, sizeof(a->addr), "127.0.0.1:%d", port);
	snprintf(topn, sizeof(topn), "%d", TOP_N);
	a->locky = a->real ? "hot_lock" : "locky";
	a->idle = a->real ? "condvar_pool" : "idlepool";
	if (a->real) {
		TL_REQUIRE_BPF();
		tt_workload_start(&a->hot, "hot_lock", TT_ARGS("4", "1", "200", "600"));
		tt_workload_start(&a->pool, "condvar_pool", TT_ARGS("8", "10", "600"));
		tt_workload_go(&a->hot);
		tt_workload_go(&a->pool);
		assert_int_equal(tl_spawn(&a->proc, (char *const[]){ (char *)tl_path("spinscope"), "top",
				"--metrics", a->addr, "--top-n", topn,
				token_file ? "--metrics-token-file" : NULL, (char *)token_file, NULL }), 0);
	} else {
		assert_int_equal(tl_spawn(&a->proc, (char *const[]){ self, "--fake-agent", a->addr, topn,
									(char *)token_file, NULL }), 0);
	}
}

static int agent_stop(struct agent *a, int sig)
{
	int rc;

	tl_kill(&a->proc, sig);
	rc = tl_wait(&a->proc);
	close(a->proc.out_fd);
	close(a->proc.err_fd);
	if (a->real) {
		tt_workload_end(&a->hot);
		tt_workload_end(&a->pool);
	}
	return rc;
}

/* url's body, or NULL where the request failed or got an error status;
 * auth: an Authorization header's value to send, or NULL. */
static char *http_get_auth(const char *url, const char *auth)
{
	char *out = NULL, *err = NULL, header[512];
	int rc;

	snprintf(header, sizeof(header), "Authorization: %s", auth ? auth : "");
	rc = auth ? tt_run(TT_ARGS("/usr/bin/curl", "-sf", "--max-time", "5", "-H", header, url), &out, &err,
			   TOOL_TIMEOUT_MS)
		  : tt_run(TT_ARGS("/usr/bin/curl", "-sf", "--max-time", "5", url), &out, &err, TOOL_TIMEOUT_MS);

	free(err);
	if (rc) {
		free(out);
		return NULL;
	}
	return out;
}

static char *http_get(const char *url)
{
	return http_get_auth(url, NULL);
}

/* The value of the first line starting with prefix, or -1. */
static double value_of(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, strlen(prefix))) {
			const char *v = strchrnul(l, '\n');

			while (v > l && v[-1] != ' ')
				v--;
			return strtod(v, NULL);
		}
	return -1;
}

/* A scrape taken after at least `refreshes` refreshes; fails after WAIT_S. */
static char *scrape_after(struct agent *a, double refreshes)
{
	char url[128];
	time_t until = time(NULL) + WAIT_S;

	snprintf(url, sizeof(url), "http://%s/metrics", a->addr);
	while (time(NULL) < until) {
		char *text = http_get(url);

		if (text && value_of(text, "spinscope_top_refreshes_total ") >= refreshes)
			return text;
		free(text);
		usleep(100000);
	}
	fail_msg("no scrape of %s showed %g refreshes within %d s", url, refreshes, WAIT_S);
	return NULL;
}

static int count_series(const char *text, const char *family)
{
	int n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += !strncmp(l, family, strlen(family)) && l[strlen(family)] == '{';
	return n;
}

static void assert_promtool_accepts(const char *text)
{
	char path[] = "/tmp/ss-top-agent-XXXXXX", cmd[128];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "exec /usr/bin/promtool check metrics < '%s'", path);
	if (system(cmd))
		fail_msg("promtool check metrics refused the scrape:\n%s", text);
	unlink(path);
}

static void test_scrapes_are_valid_bounded_and_monotonic(void **state)
{
	char locky[128];
	struct agent a;
	char *t1, *t2;
	double r1, v1, v2;

	agent_start(&a, tt_free_port(), NULL);
	t1 = scrape_after(&a, 2);
	r1 = value_of(t1, "spinscope_top_refreshes_total ");
	t2 = scrape_after(&a, r1 + 2);
	snprintf(locky, sizeof(locky), "spinscope_top_lock_wait_seconds_total{comm=\"%s\"", a.locky);
	v1 = value_of(t1, locky);
	v2 = value_of(t2, locky);
	print_message("# %s: %g s after %g refreshes, %g s later\n", a.locky, v1, r1, v2);
	assert_true(v1 > 0 && v2 > v1);
	/* At most N by lock wait, N by spinning, N by run-queue delay, and "other". */
	assert_true(count_series(t2, "spinscope_top_lock_wait_seconds_total") <= 3 * TOP_N + 1);
	assert_true(value_of(t2, "spinscope_top_lock_wait_seconds_total{other=\"true\"}") >= 0);
	assert_promtool_accepts(t2);
	free(t1);
	free(t2);
	/* SIGTERM: the agent returns, exit 0. */
	assert_int_equal(agent_stop(&a, SIGTERM), 0);
}

static void test_taken_port_is_one_line_and_exit_2(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc;
	char *err;
	struct agent a;

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	agent_start(&a, ntohs(sa.sin_port), NULL);
	rc = tl_wait(&a.proc);
	err = tl_read_all(a.proc.err_fd);
	close(a.proc.out_fd);
	close(a.proc.err_fd);
	close(fd);
	if (a.real) {
		tt_workload_end(&a.hot);
		tt_workload_end(&a.pool);
	}
	assert_int_equal(rc, 2);
	if (!strstr(err, "cannot serve metrics on") || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("expected one line naming the address, got: %s", err);
	free(err);
}

/* ---- the token --------------------------------------------------------- */

#define TOKEN "tok-3f9a2c71e5"

/* The test's token file: removed by token_teardown however the test ends. */
static char token_path[64];

/* A token file, mode 0600, its path into path (64 bytes) and token_path. */
static void write_token(char *path)
{
	int fd;

	snprintf(path, 64, "/tmp/ss-top-token-XXXXXX");
	fd = mkstemp(path);	/* 0600 */
	assert_true(fd >= 0);
	snprintf(token_path, sizeof(token_path), "%s", path);
	assert_int_equal(write(fd, TOKEN "\n", sizeof(TOKEN)), (ssize_t)sizeof(TOKEN));
	close(fd);
}

static int token_teardown(void **state)
{
	if (token_path[0])
		unlink(token_path);
	token_path[0] = 0;
	return tt_teardown(state);
}

/* --metrics-token-file: a scrape without the token, or with another, gets
 * 401 and no series; with it, the page. */
static void test_token_guards_the_page(void **state)
{
	char token[64], url[128];
	struct agent a;
	char *text, *none, *wrong;

	write_token(token);
	agent_start(&a, tt_free_port(), token);
	snprintf(url, sizeof(url), "http://%s/metrics", a.addr);
	for (int tries = 0; tries < 600; tries++) {	/* up to 60 s: a loaded host */
		text = http_get_auth(url, "Bearer " TOKEN);
		if (text && strstr(text, "spinscope_top_refreshes_total"))
			break;
		free(text);
		text = NULL;
		usleep(100000);
	}
	none = http_get(url);
	wrong = http_get_auth(url, "Bearer tok-3f9a2c71e6");
	assert_int_equal(agent_stop(&a, SIGTERM), 0);
	if (!text)
		fail_msg("no page with the token within 60 s");
	assert_null(none);	/* curl -f: an error status */
	assert_null(wrong);
	free(text);
}

/* A token file others can read, or one given without --metrics: one line,
 * exit 2, before anything is attached. */
static void test_token_file_errors(void **state)
{
	char token[64], *out, *err;
	int rc;

	write_token(token);
	assert_int_equal(chmod(token, 0644), 0);
	rc = tt_run(TT_ARGS(tl_path("spinscope"), "top", "--metrics", "127.0.0.1:1", "--metrics-token-file", token),
		    &out, &err, TOOL_TIMEOUT_MS);
	assert_int_equal(rc, 2);
	if (!strstr(err, "chmod 600") || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("expected one line asking for chmod 600, got: %s", err);
	free(out);
	free(err);
	rc = tt_run(TT_ARGS(tl_path("spinscope"), "top", "-b", "--metrics-token-file", token), &out, &err,
		    TOOL_TIMEOUT_MS);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "add --metrics"));
	free(out);
	free(err);
	rc = tt_run(TT_ARGS(tl_path("spinscope"), "-p", "1", "--metrics-token-file", token), &out, &err,
		    TOOL_TIMEOUT_MS);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "add --metrics"));
	free(out);
	free(err);
}

/* ---- a real Prometheus ------------------------------------------------ */

struct prom {
	struct tl_proc proc;
	char dir[64], api[128];
};

/* The rules as shipped, their windows and `for` shortened. */
static void write_rules(const char *path)
{
	char *out, *err;
	FILE *f;

	assert_int_equal(tt_run(TT_ARGS("/bin/sed", "-E", "-e", "s/\\[[0-9]+m\\]/[10s]/g", "-e",
					"s/for: [0-9]+m/for: 5s/", "packaging/spinscope-top.rules.yml"),
				&out, &err, TOOL_TIMEOUT_MS), 0);
	assert_non_null(strstr(out, "for: 5s"));
	assert_non_null(f = fopen(path, "w"));
	fputs(out, f);
	fclose(f);
	free(out);
	free(err);
}

static void prom_start(struct prom *p, const char *target, const char *token_file)
{
	char cfg[256], rules[256], storage[300], config[300], listen[64];
	int port = tt_free_port();
	FILE *f;

	snprintf(p->dir, sizeof(p->dir), "/tmp/ss-top-prom-XXXXXX");
	assert_non_null(mkdtemp(p->dir));
	snprintf(rules, sizeof(rules), "%s/rules.yml", p->dir);
	write_rules(rules);
	snprintf(cfg, sizeof(cfg), "%s/prometheus.yml", p->dir);
	assert_non_null(f = fopen(cfg, "w"));
	fprintf(f, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
		   "rule_files:\n  - %s\n"
		   "scrape_configs:\n  - job_name: spinscope-top\n"
		   "    authorization:\n      credentials_file: %s\n"
		   "    static_configs:\n"
		   "      - targets: ['%s']\n", rules, token_file, target);
	fclose(f);
	snprintf(config, sizeof(config), "--config.file=%s", cfg);
	snprintf(storage, sizeof(storage), "--storage.tsdb.path=%s/tsdb", p->dir);
	snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", port);
	snprintf(p->api, sizeof(p->api), "http://127.0.0.1:%d/api/v1", port);
	assert_int_equal(tl_spawn(&p->proc, (char *const[]){ "/usr/bin/prometheus", config, storage,
						      listen, "--log.level=warn", NULL }), 0);
}

static void prom_stop(struct prom *p)
{
	char *out, *err;

	tl_kill(&p->proc, SIGTERM);
	tl_wait(&p->proc);
	close(p->proc.out_fd);
	close(p->proc.err_fd);
	tt_run(TT_ARGS("/bin/rm", "-rf", p->dir), &out, &err, TOOL_TIMEOUT_MS);
	free(out);
	free(err);
}

/* The alerts Prometheus holds now (firing or pending), or NULL. */
static json_object *alerts(struct prom *p)
{
	char url[192], *text;
	json_object *doc, *data, *list;

	snprintf(url, sizeof(url), "%s/alerts", p->api);
	if (!(text = http_get(url)))
		return NULL;
	doc = json_tokener_parse(text);
	free(text);
	if (!doc || !json_object_object_get_ex(doc, "data", &data) ||
	    !json_object_object_get_ex(data, "alerts", &list)) {
		json_object_put(doc);
		return NULL;
	}
	json_object_get(list);
	json_object_put(doc);
	return list;
}

static const char *label(json_object *alert, const char *name)
{
	json_object *labels, *v;

	if (!json_object_object_get_ex(alert, "labels", &labels) ||
	    !json_object_object_get_ex(labels, name, &v))
		return "";
	return json_object_get_string(v);
}

static bool firing(json_object *list, const char *alertname, const char *comm)
{
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *al = json_object_array_get_idx(list, i), *st;

		if (!strcmp(label(al, "alertname"), alertname) && !strcmp(label(al, "comm"), comm) &&
		    json_object_object_get_ex(al, "state", &st) &&
		    !strcmp(json_object_get_string(st), "firing"))
			return true;
	}
	return false;
}

/* Every alert Prometheus holds, checked against the processes built to
 * trip one: with the fake, exactly those; for real, never the idle pool. */
static void assert_only_expected(json_object *list, struct agent *a)
{
	static const char *const expected[][2] = {
		{ "SpinscopeLockWaitHeavy", "locky" }, { "SpinscopeSpinStorm", "spinner" },
		{ "SpinscopeOversubscribed", "hog" },
	};

	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *al = json_object_array_get_idx(list, i);
		const char *name = label(al, "alertname"), *comm = label(al, "comm");
		bool ok = !a->real ? false : strcmp(comm, a->idle) != 0;

		for (size_t e = 0; !a->real && e < sizeof(expected) / sizeof(expected[0]); e++)
			ok |= !strcmp(name, expected[e][0]) && !strcmp(comm, expected[e][1]);
		if (!ok)
			fail_msg("unexpected alert %s for comm=\"%s\" (other=\"%s\")", name, comm,
				 label(al, "other"));
	}
}

static void test_prometheus_fires_the_lock_wait_alert(void **state)
{
	char token[64];
	struct agent a;
	struct prom p;
	json_object *list = NULL;
	time_t t0 = time(NULL), until = t0 + WAIT_S;
	bool all = false;

	if (access("/usr/bin/prometheus", X_OK)) {
		print_message("skip: /usr/bin/prometheus is not installed (apt-get install prometheus)\n");
		skip();
	}
	/* The agent asks for a token, which Prometheus sends from its file:
	 * no alert fires unless it scrapes with it. */
	write_token(token);
	agent_start(&a, tt_free_port(), token);
	prom_start(&p, a.addr, token);
	while (time(NULL) < until && !all) {
		json_object_put(list);
		list = alerts(&p);
		all = firing(list, "SpinscopeLockWaitHeavy", a.locky) &&
		      (a.real || (firing(list, "SpinscopeSpinStorm", "spinner") &&
				  firing(list, "SpinscopeOversubscribed", "hog")));
		if (!all)
			usleep(250000);
	}
	print_message("# after %lld s, %zu alerts:\n", (long long)(time(NULL) - t0),
		      list ? json_object_array_length(list) : 0);
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *al = json_object_array_get_idx(list, i), *st = NULL;

		json_object_object_get_ex(al, "state", &st);
		print_message("#   %s comm=\"%s\" %s\n", label(al, "alertname"), label(al, "comm"),
			      st ? json_object_get_string(st) : "?");
	}
	prom_stop(&p);
	assert_int_equal(agent_stop(&a, SIGTERM), 0);
	if (!all)
		fail_msg("the expected alerts did not fire within %d s", WAIT_S);
	assert_only_expected(list, &a);
	json_object_put(list);
}

/* This binary as the agent, fed canned refreshes every 500 ms. */
static int fake_agent(const char *addr, const char *topn, const char *token_file)
{
	struct top_agent_opts o = { .listen = addr, .top_n = (unsigned int)strtoul(topn, NULL, 10) };
	char token[METRICS_HTTP_TOKEN_MAX], why[512];
	struct top_fake f;
	int rc;

	if (token_file) {
		if (metrics_http__read_token(token_file, token, why, sizeof(why))) {
			fprintf(stderr, "%s\n", why);
			return 2;
		}
		o.token = token;
	}
	if (top_fake_init(&f, 500, 40))
		return 7;
	rc = top_agent_run(top_fake_refresh, &f, &o);
	top_fake_free(&f);
	return rc;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_scrapes_are_valid_bounded_and_monotonic, tt_teardown),
		cmocka_unit_test_teardown(test_taken_port_is_one_line_and_exit_2, tt_teardown),
		cmocka_unit_test_teardown(test_token_guards_the_page, token_teardown),
		cmocka_unit_test_teardown(test_token_file_errors, token_teardown),
		cmocka_unit_test_teardown(test_prometheus_fires_the_lock_wait_alert, token_teardown),
	};
	ssize_t n;

	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--fake-agent"))
		return fake_agent(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}

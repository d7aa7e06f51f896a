// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's series without a server: which label sets are labelled (the
 * top N by lock wait, by spinning and by run-queue delay, never an idle
 * one), that labelled
 * plus "other" is exactly what the refreshes measured, that counters only
 * grow, that churn keeps the series bounded (a series out of the top N
 * goes after the grace and restarts from 0 if it comes back), that label
 * values are cleaned and escaped, and that promtool accepts the text.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "top/top_series.h"
#include "top_fake.h"

static const struct top_series *find(const struct top_series_set *s, const char *comm)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].comm, comm))
			return &s->v[i];
	return NULL;
}

/* The value of the line starting with prefix in text, or -1. */
static double value_of(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, strlen(prefix)))
			return strtod(strchr(l + strlen(prefix), ' '), NULL);
	return -1;
}

static void test_top_n_by_lock_wait_spinning_and_runq(void **state)
{
	struct top_series_set s;
	struct top_snapshot snap;
	struct top_fake f;
	uint32_t labelled = 0;

	assert_int_equal(top_fake_init(&f, 2000, 100), 0);
	top_fake_fill(&f, &snap);
	top_series_init(&s, 3);
	assert_int_equal(top_series_update(&s, &snap), 0);
	/* At most 3 by lock wait, 3 by spinning, 3 by run-queue delay. */
	assert_true(s.n >= 4 && s.n <= 9);
	assert_non_null(find(&s, "locky"));
	assert_non_null(find(&s, "spinner"));
	assert_non_null(find(&s, "hog"));	/* waits for CPUs */
	assert_null(find(&s, "idlepool"));	/* waits for events only */
	for (size_t i = 0; i < s.n; i++)
		labelled += s.v[i].processes;
	assert_int_equal(labelled + s.other.processes, TOP_FAKE_FIXED + 100);
	assert_string_equal(find(&s, "locky")->verdict, "futex-contention");
	assert_int_equal(find(&s, "locky")->threads, 4);
	top_series_free(&s);
	top_fake_free(&f);
}

/* Labelled and "other" together hold every count and nanosecond of every
 * refresh, exactly. */
static void test_nothing_is_lost_in_the_sums(void **state)
{
	enum { REFRESHES = 7 };
	uint64_t want[TOP_NCOUNTERS] = { 0 }, got[TOP_NCOUNTERS] = { 0 };
	struct top_series_set s;
	struct top_snapshot snap;
	struct top_fake f;

	assert_int_equal(top_fake_init(&f, 1500, 60), 0);
	top_series_init(&s, 5);
	for (int r = 0; r < REFRESHES; r++) {
		top_fake_fill(&f, &snap);
		assert_int_equal(top_series_update(&s, &snap), 0);
		for (size_t i = 0; i < snap.nprocs; i++) {
			want[TOP_C_lock_wait_ns] += snap.procs[i].lock_wait_ns;
			want[TOP_C_yields] += snap.procs[i].yields;
			want[TOP_C_oncpu_ns] += snap.procs[i].oncpu_ns;
			want[TOP_C_woken] += snap.procs[i].woken;
		}
	}
	for (size_t i = 0; i <= s.n; i++)
		for (int c = 0; c < TOP_NCOUNTERS; c++)
			got[c] += (i < s.n ? &s.v[i] : &s.other)->total[c];
	assert_int_equal(s.dropped_series, 0);	/* same leaders every refresh */
	assert_int_equal(got[TOP_C_lock_wait_ns], want[TOP_C_lock_wait_ns]);
	assert_int_equal(got[TOP_C_yields], want[TOP_C_yields]);
	assert_int_equal(got[TOP_C_oncpu_ns], want[TOP_C_oncpu_ns]);
	assert_int_equal(got[TOP_C_woken], want[TOP_C_woken]);
	assert_int_equal(find(&s, "locky")->total[TOP_C_lock_wait_ns],
			 REFRESHES * f.procs[0].lock_wait_ns);
	top_series_free(&s);
	top_fake_free(&f);
}

/* 300 refreshes, each with a new process on top: never more than
 * TOP_SERIES_MAX(N) series; one gone past the grace and back restarts. */
static void test_churn_stays_bounded(void **state)
{
	enum { N = 4, REFRESHES = 300 };
	struct top_proc procs[3];
	struct top_snapshot snap = { .interval_ns = 1000000000, .procs = procs, .nprocs = 3 };
	struct top_series_set s;
	size_t most = 0;

	top_series_init(&s, N);
	for (int r = 0; r < REFRESHES; r++) {
		memset(procs, 0, sizeof(procs));
		/* A steady lock waiter, a new one each refresh, and "comeback"
		 * only in refreshes 0 and 100. */
		snprintf(procs[0].comm, sizeof(procs[0].comm), "steady");
		procs[0].lock_wait_ns = 1000;
		snprintf(procs[1].comm, sizeof(procs[1].comm), "new%d", r);
		procs[1].lock_wait_ns = 2000;
		snprintf(procs[2].comm, sizeof(procs[2].comm), "comeback");
		procs[2].lock_wait_ns = r == 0 || r == 100 ? 5000 : 0;
		assert_int_equal(top_series_update(&s, &snap), 0);
		most = s.n > most ? s.n : most;
		if (r == 1 + TOP_SERIES_GRACE)
			assert_null(find(&s, "new0"));
		if (r == 99)
			assert_null(find(&s, "comeback"));
		if (r == 100)
			assert_int_equal(find(&s, "comeback")->total[TOP_C_lock_wait_ns], 5000);
	}
	print_message("# %zu series at most, %llu dropped\n", most, (unsigned long long)s.dropped_series);
	assert_true(most <= TOP_SERIES_MAX(N));
	assert_true(most >= 2 + TOP_SERIES_GRACE - 1);	/* the grace holds some */
	assert_int_equal(find(&s, "steady")->total[TOP_C_lock_wait_ns], REFRESHES * 1000);
	assert_true(s.dropped_series >= REFRESHES - TOP_SERIES_MAX(N));
	top_series_free(&s);
}

/* More in the grace than the cap holds: the longest out of the top N goes
 * first, and this refresh's leaders are always labelled. */
static void test_cap_evicts_the_longest_out(void **state)
{
	enum { N = 1, REFRESHES = 50 };
	static const char *const kinds[] = { "lead", "spin", "starve" };
	struct top_proc procs[3];
	struct top_snapshot snap = { .interval_ns = 1000000000, .procs = procs, .nprocs = 3 };
	struct top_series_set s;
	char name[16];

	top_series_init(&s, N);
	for (int r = 0; r < REFRESHES; r++) {
		memset(procs, 0, sizeof(procs));
		for (int k = 0; k < 3; k++)
			snprintf(procs[k].comm, sizeof(procs[k].comm), "%s%d", kinds[k], r);
		procs[0].lock_wait_ns = 100;
		procs[1].yields = 7;
		procs[2].runq_ns = 300;
		assert_int_equal(top_series_update(&s, &snap), 0);
		assert_true(s.n <= TOP_SERIES_MAX(N));
		for (int k = 0; k < 3; k++)
			assert_non_null(find(&s, procs[k].comm));
		/* 3 a refresh, 5 kept: none of the refresh before last. */
		for (int k = 0; r >= 2 && k < 3; k++) {
			snprintf(name, sizeof(name), "%s%d", kinds[k], r - 2);
			assert_null(find(&s, name));
		}
	}
	assert_int_equal(s.n, TOP_SERIES_MAX(N));
	assert_int_equal(s.dropped_series, 3 * REFRESHES - TOP_SERIES_MAX(N));
	assert_int_equal(s.other.total[TOP_C_yields], 0);	/* all labelled on their refresh */
	top_series_free(&s);
}

static char *render(struct top_series_set *s)
{
	char *text;
	size_t len;

	assert_int_equal(top_series_render(s, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

/* Escaped labels, counters that grow, and promtool's approval. */
static void test_text_is_escaped_monotonic_and_valid(void **state)
{
	const char *odd = "spinscope_top_yields_total{comm=\"odd?[31m\",container=\"k8s:pod/a\\\"b\\\\c\",unit=\"odd.service\"}";
	const char *locky = "spinscope_top_lock_wait_seconds_total{comm=\"locky\",";
	struct top_series_set s;
	struct top_snapshot snap;
	struct top_fake f;
	char *t1, *t2, path[] = "/tmp/ss-top-series-XXXXXX", cmd[128];
	FILE *fp;
	int fd;

	assert_int_equal(top_fake_init(&f, 2000, 0), 0);
	top_series_init(&s, 20);
	top_fake_fill(&f, &snap);
	assert_int_equal(top_series_update(&s, &snap), 0);
	t1 = render(&s);
	assert_int_equal(top_series_update(&s, &snap), 0);
	t2 = render(&s);
	assert_true(value_of(t1, odd) == 2);	/* 1 yield a second, 2 s */
	assert_true(value_of(t2, odd) == 4);
	assert_true(value_of(t1, locky) == 6.0 && value_of(t2, locky) == 12.0);
	assert_non_null(strstr(t2, "spinscope_top_verdict{comm=\"locky\",container=\"docker:3f2a9c0d1e7b\","
				   "unit=\"docker-3f2a9c0d1e7b.scope\",verdict=\"futex-contention\",severity=\"critical\"} 1\n"));
	assert_true(value_of(t2, "spinscope_top_refreshes_total") == 2);
	assert_true(value_of(t2, "spinscope_top_drops_total") == 6);
	if (access("/usr/bin/promtool", X_OK)) {
		print_message("skip: promtool is not installed (apt-get install prometheus)\n");
	} else {
		assert_true((fd = mkstemp(path)) >= 0);
		assert_non_null(fp = fdopen(fd, "w"));
		fputs(t2, fp);
		fclose(fp);
		snprintf(cmd, sizeof(cmd), "/usr/bin/promtool check metrics < %s", path);
		if (system(cmd))
			fail_msg("promtool check metrics refused the text:\n%s", t2);
		unlink(path);
	}
	free(t1);
	free(t2);
	top_series_free(&s);
	top_fake_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_n_by_lock_wait_spinning_and_runq),
		cmocka_unit_test(test_nothing_is_lost_in_the_sums),
		cmocka_unit_test(test_churn_stays_bounded),
		cmocka_unit_test(test_cap_evicts_the_longest_out),
		cmocka_unit_test(test_text_is_escaped_monotonic_and_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

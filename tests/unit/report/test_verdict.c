// SPDX-License-Identifier: GPL-2.0
/*
 * verdict.c on hand-made advisor reports: the text block (one line per
 * warning or critical finding, then the first thing to do; one line for a
 * healthy process), the one-line form of -i, the first sentence of a
 * recommendation, and the JSON "verdict" object.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/verdict.h"

static struct adv_finding *add(struct adv_report *r, const char *id, enum adv_severity sev,
			       const char *what, const char *where, const char *cost,
			       const char *rec)
{
	struct adv_finding *f = &r->findings[r->n++];

	memset(f, 0, sizeof(*f));
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->severity = sev;
	snprintf(f->title, sizeof(f->title), "title of %s", id);
	snprintf(f->what, sizeof(f->what), "%s", what);
	snprintf(f->where, sizeof(f->where), "%s", where);
	snprintf(f->cost, sizeof(f->cost), "%s", cost);
	snprintf(f->recommendation, sizeof(f->recommendation), "%s", rec);
	return f;
}

static char *render(const struct adv_report *r, bool line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (line)
		verdict__print_line(r, f);
	else
		verdict__print_text(r, f);
	fclose(f);
	return buf;
}

static void test_findings_then_first_thing_to_do(void **state)
{
	static struct adv_report r;
	char *out;

	(void)state;
	add(&r, "futex-contention", ADV_CRITICAL, "lock contention", "update in app",
	    "3 threads lost 6 s of 12 s waiting on it (50% of their time)",
	    "Shorten the critical section in update, e.g. move I/O out. Then trace again.");
	add(&r, "spin-yield", ADV_WARNING, "sched_yield spin loop", "", "0.40 of 2 CPUs spent spinning",
	    "Park instead.");
	add(&r, "host-busy", ADV_INFO, "busy host", "", "", "Trace again on a quieter host.");
	out = render(&r, false);
	assert_string_equal(out,
			    "VERDICT\n"
			    "  CRITICAL lock contention in update in app: 3 threads lost 6 s of 12 s waiting on it (50% of their time)\n"
			    "  WARNING  sched_yield spin loop: 0.40 of 2 CPUs spent spinning\n"
			    "  first: Shorten the critical section in update, e.g. move I/O out.\n\n");
	free(out);
	out = render(&r, true);
	assert_string_equal(out, "verdict: CRITICAL lock contention in update in app: 3 threads lost 6 s of 12 s waiting on it (50% of their time) (+1 more); first: Shorten the critical section in update, e.g. move I/O out.\n");
	free(out);
}

static void test_healthy_is_one_line(void **state)
{
	static struct adv_report r;
	char *out;

	(void)state;
	out = render(&r, false);
	assert_string_equal(out, "VERDICT\n  healthy: no warning or critical finding\n\n");
	free(out);
	add(&r, "host-busy", ADV_INFO, "busy host", "", "", "Trace again on a quieter host.");
	out = render(&r, false);
	assert_string_equal(out, "VERDICT\n  healthy: no warning or critical finding (notes under ADVICE below)\n\n");
	free(out);
	out = render(&r, true);
	assert_string_equal(out, "verdict: healthy\n");
	free(out);
}

/* A finding the advisor gave no verdict words is said by its title. */
static void test_title_when_no_words(void **state)
{
	static struct adv_report r;
	char *out;

	(void)state;
	add(&r, "jvm-runtime", ADV_WARNING, "", "", "", "Reuse large arrays.");
	out = render(&r, false);
	assert_non_null(strstr(out, "  WARNING  title of jvm-runtime\n"));
	free(out);
}

static void test_first_sentence(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(verdict__first_sentence("Spin 0.5 us. Then park.", buf, sizeof(buf)),
			    "Spin 0.5 us.");
	assert_string_equal(verdict__first_sentence("Run `x`. `y` next.", buf, sizeof(buf)), "Run `x`.");
	assert_string_equal(verdict__first_sentence("One sentence", buf, sizeof(buf)), "One sentence");
}

static void test_json(void **state)
{
	static struct adv_report r;
	json_object *v, *f;

	(void)state;
	v = verdict__to_json(&r);
	assert_true(json_object_get_boolean(json_object_object_get(v, "healthy")));
	assert_int_equal(json_object_array_length(json_object_object_get(v, "findings")), 0);
	assert_null(json_object_object_get(v, "first_action"));
	json_object_put(v);
	add(&r, "spin-loop", ADV_CRITICAL, "busy-wait spin loop", "spin_lock (app)", "", "Bound the spin. Then block.");
	add(&r, "host-busy", ADV_INFO, "busy host", "", "", "Trace again.");
	v = verdict__to_json(&r);
	assert_false(json_object_get_boolean(json_object_object_get(v, "healthy")));
	assert_int_equal(json_object_array_length(json_object_object_get(v, "findings")), 1);
	f = json_object_array_get_idx(json_object_object_get(v, "findings"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(f, "id")), "spin-loop");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "severity")), "critical");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "where")), "spin_lock (app)");
	assert_null(json_object_object_get(f, "cost"));
	assert_string_equal(json_object_get_string(json_object_object_get(v, "first_action")),
			    "Bound the spin.");
	json_object_put(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_findings_then_first_thing_to_do),
		cmocka_unit_test(test_healthy_is_one_line),
		cmocka_unit_test(test_title_when_no_words),
		cmocka_unit_test(test_first_sentence),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

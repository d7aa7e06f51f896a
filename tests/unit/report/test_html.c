// SPDX-License-Identifier: GPL-2.0
/*
 * html.c on a report built by hand whose names are hostile (they come from
 * the target's binaries): the embedded JSON cannot end its <script> element
 * nor break a JavaScript parser, it reads back equal, and the flame data
 * holds every kind with its folded stacks, uncollected ones included.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/html.h"
#include "tracetest.h"

#define EVIL "</script><script>alert(1)</script><!--&\xe2\x80\xa8\xe2\x80\xa9"

static const struct host_info host = {
	.hostname = "testhost", .kernel = "6.1.0-test", .machine = "x86_64",
	.cpu_model = "Test CPU", .cpus = 2,
};

static __u64 ips7[2] = { 0x401000, 0x402000 };
static struct ss_stack stack_v[] = { { .id = 7, .depth = 2, .ips = ips7 } };
static const struct ss_stacks stacks = { .v = stack_v, .n = 1, .cap = 1 };

/* The leaf is named hostilely, its caller plainly. */
static const char *sym(void *arg, __u64 ip, const char **module)
{
	*module = "/usr/bin/app";
	return ip == 0x401000 ? "evil" EVIL : "main";
}

static char *render(void)
{
	struct ss_thread th = { .tid = 11, .sched_yield = 45, .comm = "x</script>" };
	struct ss_yield_site ys[2] = { { .stack_id = 7, .count = 40 }, { .stack_id = -14, .count = 5 } };
	struct ss_profile p = { .start_ns = 1, .now_ns = 1000000001, .threads = &th, .nthreads = 1,
				.yields = ys, .nyields = 2 };
	struct ss_report r = { .host = &host, .pid = 10, .comm = "app" EVIL, .duration_ns = 1000000000,
			       .profile = &p, .stacks = &stacks, .name = sym };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	profile_finish(&p);
	assert_int_equal(html__write(f, &r), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_script_json_escapes(void **state)
{
	const char *in = "{\"a\":\"" "\\u003c/script>" EVIL "\"}";
	json_object *want = json_tokener_parse(in), *got;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(want);
	assert_int_equal(html__write_script_json(f, in), 0);
	fclose(f);
	assert_null(strpbrk(buf, "<>&"));
	assert_null(strstr(buf, "\xe2\x80\xa8"));
	assert_null(strstr(buf, "\xe2\x80\xa9"));
	assert_non_null(strstr(buf, "\\u2028\\u2029"));
	got = json_tokener_parse(buf);
	assert_non_null(got);
	assert_true(json_object_equal(want, got));
	json_object_put(want);
	json_object_put(got);
	free(buf);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void test_page_embeds_escaped_report(void **state)
{
	char *page = render(), *start, *end;
	json_object *doc, *flames, *fl, *st;

	/* The page's own two script elements end, no other. */
	assert_int_equal(count(page, "</script"), 2);
	assert_int_equal(count(page, "<script"), 2);
	assert_null(strstr(page, "\xe2\x80\xa8"));
	/* Nothing to fetch: no src or href attribute, no link element. */
	assert_null(strstr(page, " src="));
	assert_null(strstr(page, "href="));
	assert_null(strstr(page, "<link"));
	start = strstr(page, "<script type=\"application/json\" id=\"ss-data\">");
	assert_non_null(start);
	start = strchr(start, '>') + 1;
	end = strstr(start, "</script>");
	*end = '\0';
	doc = json_tokener_parse(start);
	assert_non_null(doc);
	assert_string_equal(json_object_get_string(tt_get(doc, "report.target.comm")),
			    "app" EVIL);
	assert_int_equal(json_object_get_int(tt_get(doc, "hist_slots")), SS_HIST_SLOTS);
	flames = tt_get(doc, "flames");
	/* futex wait and yields always; no samples (none in this report). */
	assert_int_equal(json_object_array_length(flames), 2);
	fl = json_object_array_get_idx(flames, 0);
	assert_string_equal(json_object_get_string(tt_get(fl, "kind")), "futex-wait-ns");
	assert_string_equal(json_object_get_string(tt_get(fl, "unit")), "ns");
	assert_int_equal(json_object_array_length(tt_get(fl, "stacks")), 0);
	fl = json_object_array_get_idx(flames, 1);
	assert_string_equal(json_object_get_string(tt_get(fl, "kind")), "sched-yield");
	st = tt_get(fl, "stacks");
	/* Sorted as folded.c sorts; the stack never collected keeps its 5. */
	assert_int_equal(json_object_array_length(st), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    json_object_array_get_idx(st, 0), 0)), "[no user stack]");
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(
				 json_object_array_get_idx(st, 0), 1)), 5);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    json_object_array_get_idx(st, 1), 0)), "main;evil" EVIL);
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(
				 json_object_array_get_idx(st, 1), 1)), 40);
	json_object_put(doc);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script_json_escapes),
		cmocka_unit_test(test_page_embeds_escaped_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * samples_report.c on a hand-made samples_result and a fake symbolizer:
 * ranking by leaf address and by function, the JSON object, folded stacks
 * (root first, call sites named at ip - 1, equal lines merged) and text.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/samples_report.h"

/* A fake address space: two functions and main in /bin/app, libc, a
 * library without symbols, and a function with a hostile name. */
static const struct fake_sym {
	__u64 lo, hi;
	const char *name, *module;
} fake_syms[] = {
	{ 0x1000, 0x1100, "fA", "/bin/app" },
	{ 0x2000, 0x2100, "main", "/bin/app" },
	{ 0x2100, 0x2200, "fB", "/bin/app" },
	{ 0x2f00, 0x3100, "__libc_start_main", "/lib/libc.so.6" },
	{ 0x5000, 0x6000, NULL, "/lib/libx.so" },
	{ 0x7000, 0x7100, "odd;name\nhere", "/bin/app" },
	{ 0x8000, 0x8100, NULL, "[vdso]" },
	{ 0x8100, 0x8200, "__vdso_clock_gettime", "[vdso]" },
};

static int fake_calls;

static const char *fake_symbolize(void *arg, __u64 ip, const char **module)
{
	fake_calls++;
	assert_ptr_equal(arg, &fake_calls);
	for (size_t i = 0; i < sizeof(fake_syms) / sizeof(fake_syms[0]); i++)
		if (ip >= fake_syms[i].lo && ip < fake_syms[i].hi) {
			*module = fake_syms[i].module;
			return fake_syms[i].name;
		}
	*module = NULL;
	return NULL;
}

/* Leaf first, as the kernel stores them. Stack 2 returns to 0x2100, the
 * first byte after main: only ip - 1 names the caller (main) right. */
static const __u64 st1[] = { 0x1010, 0x2005, 0x3001 };
static const __u64 st2[] = { 0x1020, 0x2100, 0x3001 };
static const __u64 st3[] = { 0x5000, 0x2005, 0x3001 };
static const __u64 st4[] = { 0x7010, 0x3001 };
static const __u64 st5[] = { 0x9000 };

static struct samples_stack stacks[] = {
	{ .tid = 10, .stack_id = 1, .count = 50, .depth = 3, .ips = st1 },
	{ .tid = 11, .stack_id = 1, .count = 30, .depth = 3, .ips = st1 },
	{ .tid = 10, .stack_id = 2, .count = 15, .depth = 3, .ips = st2 },
	{ .tid = 10, .stack_id = 3, .count = 4, .depth = 3, .ips = st3 },
	{ .tid = 12, .stack_id = -14, .count = 1 },
};

static struct samples_thread threads[] = {
	{ .tid = 10, .samples = 69, .has_counters = true, .slices = 7,
	  .counter = { 100, 1000, 50000 } },
	{ .tid = 11, .samples = 30 },
	{ .tid = 12, .samples = 1 },
};

static void make_result(struct samples_result *r)
{
	memset(r, 0, sizeof(*r));
	r->event = "cpu-clock";
	r->available = true;
	r->period = 1001001;
	r->cpus = 2;
	r->total = 100;
	r->drops[SS_SAMPLE_DROP_STACK_FAIL] = 1;
	r->stacks = stacks;
	r->nr_stacks = sizeof(stacks) / sizeof(stacks[0]);
	r->threads = threads;
	r->nr_threads = sizeof(threads) / sizeof(threads[0]);
	r->counters_available = true;
	r->counter_names[0] = "cache-misses";
	r->counter_names[1] = "cache-references";
	r->counter_names[2] = "instructions";
}

static void test_rank_leaves(void **state)
{
	struct samples_result r;
	struct samples_leaf *v;
	long n;

	make_result(&r);
	n = samples__rank_leaves(&r, &v);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].ip, 0x1010);
	assert_int_equal(v[0].count, 80);	/* two threads, one address */
	assert_int_equal(v[1].ip, 0x1020);
	assert_int_equal(v[1].count, 15);
	assert_int_equal(v[2].ip, 0x5000);
	assert_int_equal(v[2].count, 4);
	free(v);

	/* Equal counts: lower address first. */
	struct samples_stack tie[] = {
		{ .stack_id = 1, .count = 5, .depth = 1, .ips = st5 },
		{ .stack_id = 2, .count = 5, .depth = 1, .ips = st4 },
	};
	r.stacks = tie;
	r.nr_stacks = 2;
	assert_int_equal(samples__rank_leaves(&r, &v), 2);
	assert_int_equal(v[0].ip, 0x7010);
	assert_int_equal(v[1].ip, 0x9000);
	free(v);

	r.nr_stacks = 0;
	assert_int_equal(samples__rank_leaves(&r, &v), 0);
	free(v);
}

static void test_top_by_function(void **state)
{
	struct samples_result r;
	struct samples_top *t;
	long n;

	make_result(&r);
	fake_calls = 0;
	n = samples__top(&r, fake_symbolize, &fake_calls, &t);
	assert_int_equal(n, 3);
	assert_string_equal(t[0].symbol, "fA");		/* 0x1010 and 0x1020 */
	assert_string_equal(t[0].module, "/bin/app");
	assert_int_equal(t[0].count, 95);
	assert_string_equal(t[1].symbol, "[unknown]");	/* module known, no symbol */
	assert_string_equal(t[1].module, "/lib/libx.so");
	assert_int_equal(t[1].count, 4);
	assert_string_equal(t[2].symbol, "[no user stack]");
	assert_null(t[2].module);
	assert_int_equal(t[2].count, 1);
	assert_int_equal(fake_calls, 4);		/* leaves only */
	samples__top_free(t, n);

	/* Without a symbolizer: raw addresses. */
	n = samples__top(&r, NULL, NULL, &t);
	assert_int_equal(n, 4);
	assert_string_equal(t[0].symbol, "0x1010");
	assert_int_equal(t[0].count, 80);
	assert_null(t[0].module);
	samples__top_free(t, n);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("JSON key '%s' missing", key);
	return v;
}

static void test_json(void **state)
{
	struct samples_result r;
	json_object *o, *top, *e, *th, *d;
	json_object *parsed;

	make_result(&r);
	o = samples__to_json(&r, fake_symbolize, &fake_calls);
	assert_non_null(o);
	/* Round trip through text: what a consumer sees. */
	parsed = json_tokener_parse(json_object_to_json_string(o));
	json_object_put(o);
	assert_non_null(parsed);
	o = parsed;

	assert_string_equal(json_object_get_string(get(o, "event")), "cpu-clock");
	assert_true(json_object_get_boolean(get(o, "available")));
	assert_false(json_object_object_get_ex(o, "reason", NULL));
	assert_int_equal(json_object_get_uint64(get(o, "period")), 1001001);
	assert_null(get(o, "frequency_hz"));
	assert_int_equal(json_object_get_int(get(o, "cpus")), 2);
	assert_int_equal(json_object_get_uint64(get(o, "total")), 100);

	d = get(o, "dropped");
	assert_int_equal(json_object_get_uint64(get(d, "stack_failed")), 1);
	assert_int_equal(json_object_get_uint64(get(d, "counts_map_full")), 0);
	assert_int_equal(json_object_object_length(d), SS_SAMPLE_DROPS);

	top = get(o, "top");
	assert_int_equal(json_object_array_length(top), 3);
	e = json_object_array_get_idx(top, 0);
	assert_string_equal(json_object_get_string(get(e, "symbol")), "fA");
	assert_string_equal(json_object_get_string(get(e, "module")), "/bin/app");
	assert_int_equal(json_object_get_uint64(get(e, "count")), 95);
	e = json_object_array_get_idx(top, 2);
	assert_string_equal(json_object_get_string(get(e, "symbol")), "[no user stack]");
	assert_null(get(e, "module"));

	th = get(o, "threads");
	assert_int_equal(json_object_array_length(th), 3);
	e = json_object_array_get_idx(th, 0);
	assert_int_equal(json_object_get_int(get(e, "tid")), 10);
	assert_int_equal(json_object_get_uint64(get(e, "samples")), 69);
	assert_int_equal(json_object_get_uint64(get(get(e, "counters"), "cache-misses")), 100);
	assert_int_equal(json_object_get_uint64(get(get(e, "counters"), "instructions")), 50000);
	assert_float_equal(json_object_get_double(get(e, "miss_ratio")), 0.1, 1e-9);
	assert_float_equal(json_object_get_double(get(e, "misses_per_kilo_instructions")), 2.0, 1e-9);
	e = json_object_array_get_idx(th, 1);
	assert_false(json_object_object_get_ex(e, "counters", NULL));
	assert_false(json_object_object_get_ex(e, "miss_ratio", NULL));

	assert_true(json_object_get_boolean(get(get(o, "counters"), "available")));
	assert_int_equal(json_object_array_length(get(get(o, "counters"), "events")), 3);
	assert_false(json_object_object_get_ex(get(o, "counters"), "reason", NULL));
	json_object_put(o);
}

static void test_json_unavailable_and_freq(void **state)
{
	struct samples_result r;
	json_object *o;

	memset(&r, 0, sizeof(r));
	r.event = "cache-misses";
	r.period = 10007;
	snprintf(r.reason, sizeof(r.reason), "hardware event cache-misses not supported");
	snprintf(r.counters_reason, sizeof(r.counters_reason), "no PMU");
	o = samples__to_json(&r, fake_symbolize, &fake_calls);
	assert_non_null(o);
	assert_false(json_object_get_boolean(get(o, "available")));
	assert_string_equal(json_object_get_string(get(o, "reason")),
			    "hardware event cache-misses not supported");
	assert_int_equal(json_object_get_uint64(get(o, "total")), 0);
	assert_int_equal(json_object_array_length(get(o, "top")), 0);
	assert_false(json_object_get_boolean(get(get(o, "counters"), "available")));
	assert_string_equal(json_object_get_string(get(get(o, "counters"), "reason")), "no PMU");
	json_object_put(o);

	make_result(&r);
	r.period = 0;
	r.freq = 999;
	o = samples__to_json(&r, NULL, NULL);
	assert_null(get(o, "period"));
	assert_int_equal(json_object_get_int(get(o, "frequency_hz")), 999);
	json_object_put(o);
}

/* Writes folded output into a string. */
static char *folded(const struct samples_result *r, samples_symbolize_fn sym, void *arg,
		    const char *kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(samples__write_folded(r, f, sym, arg, kind), 0);
	fclose(f);
	return buf;
}

static void test_folded(void **state)
{
	struct samples_result r;
	char *out;

	make_result(&r);
	/* Stacks 1 and 2 fold into one line: ip - 1 puts 0x2100 in main. */
	out = folded(&r, fake_symbolize, &fake_calls, "samples");
	assert_string_equal(out,
			    "samples;[no user stack] 1\n"
			    "samples;__libc_start_main;main;[libx.so] 4\n"
			    "samples;__libc_start_main;main;fA 95\n");
	free(out);
	out = folded(&r, fake_symbolize, &fake_calls, "samples;");
	assert_non_null(strstr(out, "samples;__libc_start_main;main;fA 95\n"));
	free(out);

	/* No kind frame; hostile names cannot break the format. */
	struct samples_stack odd[] = {
		{ .tid = 1, .stack_id = 7, .count = 3, .depth = 2, .ips = st4 },
		{ .tid = 1, .stack_id = 8, .count = 2, .depth = 1, .ips = st5 },
	};
	r.stacks = odd;
	r.nr_stacks = 2;
	out = folded(&r, fake_symbolize, &fake_calls, NULL);
	assert_string_equal(out, "[unknown] 2\n__libc_start_main;odd:name here 3\n");
	free(out);

	/* Without a symbolizer: addresses, call sites as they are minus one. */
	out = folded(&r, NULL, NULL, "samples");
	assert_string_equal(out, "samples;0x3000;0x7010 3\nsamples;0x9000 2\n");
	free(out);
}

static char *text(const struct samples_result *r, int top_n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(samples__print_text(r, f, fake_symbolize, &fake_calls, top_n), 0);
	fclose(f);
	return buf;
}

/* Every sample names something the user owns: the vDSO's unnamed code by
 * what it does, JIT code without a perf map by how to get one, the
 * runtime's named code (libc, the vDSO) with the user's caller; a leaf of
 * the user's own as it is. */
static void test_text_attributes_leaves_to_the_users_caller(void **state)
{
	static const __u64 vdso[] = { 0x8010, 0x1010, 0x3001 };	/* unnamed vDSO <- fA */
	static const __u64 named[] = { 0x8110, 0x2005, 0x3001 };	/* __vdso_clock_gettime <- main */
	static const __u64 jit[] = { 0xa000, 0xa100, 0x2005 };	/* anonymous <- anonymous <- main */
	static const __u64 lone[] = { 0x8010 };			/* no caller at all */
	static const __u64 own[] = { 0x1010, 0x2005 };
	struct samples_stack st[] = {
		{ .tid = 1, .stack_id = 1, .count = 40, .depth = 3, .ips = vdso },
		{ .tid = 1, .stack_id = 2, .count = 30, .depth = 3, .ips = named },
		{ .tid = 1, .stack_id = 3, .count = 20, .depth = 3, .ips = jit },
		{ .tid = 1, .stack_id = 4, .count = 6, .depth = 1, .ips = lone },
		{ .tid = 1, .stack_id = 5, .count = 4, .depth = 2, .ips = own },
	};
	struct samples_result r;
	char *out;

	make_result(&r);
	r.stacks = st;
	r.nr_stacks = sizeof(st) / sizeof(st[0]);
	r.counters_available = false;
	out = text(&r, 10);
	print_message("%s", out);
	assert_non_null(strstr(out, "      40  40.0%  clock read in the vDSO, called from fA\n"));
	assert_non_null(strstr(out, "      30  30.0%  __vdso_clock_gettime ([vdso]), called from main\n"));
	assert_non_null(strstr(out, "      20  20.0%  JIT or anonymous code, no perf map (have the "
				    "runtime write /tmp/perf-PID.map"));
	assert_non_null(strstr(out, "), called from main\n"));
	assert_non_null(strstr(out, "       6   6.0%  clock read in the vDSO\n"));
	assert_non_null(strstr(out, "       4   4.0%  fA (/bin/app)\n"));
	assert_null(strstr(out, "[unknown]"));
	free(out);
}

static void test_text(void **state)
{
	struct samples_result r;
	char *out;

	make_result(&r);
	out = text(&r, 2);
	assert_non_null(strstr(out, "Samples (cpu-clock, one sample every 1001001 ns on CPU, "
				    "2 CPUs): 100 samples of the target\n"));
	assert_non_null(strstr(out, "      95  95.0%  fA (/bin/app)\n"));
	/* An unnamed leaf is attributed to the user's caller. */
	assert_non_null(strstr(out, "       4   4.0%  [unknown] (libx.so), called from main\n"));
	assert_non_null(strstr(out, "  ... 1 more functions\n"));
	assert_null(strstr(out, "[no user stack]"));
	assert_non_null(strstr(out, "dropped: 1 samples without a user stack (unreadable)"));
	/* 100 misses of 1000 references, 2 per 1000 instructions. */
	assert_non_null(strstr(out, "      10"));
	assert_non_null(strstr(out, "10.00%     2.00\n"));
	free(out);

	memset(&r, 0, sizeof(r));
	r.event = "cache-misses";
	snprintf(r.reason, sizeof(r.reason), "hardware event cache-misses not supported on this host");
	snprintf(r.counters_reason, sizeof(r.counters_reason), "no PMU here");
	r.counter_names[0] = "cache-misses";
	r.counter_names[1] = "cache-references";
	r.counter_names[2] = "instructions";
	out = text(&r, 10);
	assert_string_equal(out,
			    "Samples (cache-misses): not available: hardware event cache-misses "
			    "not supported on this host\n"
			    "Per-thread cache-miss ratio: not available: no PMU here\n");
	free(out);
}

/* CPUs online for part of the trace: named in JSON and text; an empty
 * list when none. */
static void test_cpus_offline(void **state)
{
	int offline[] = { 1, 3 };
	struct samples_result r;
	json_object *o, *a;
	char *out;

	make_result(&r);
	o = samples__to_json(&r, NULL, NULL);
	assert_int_equal(json_object_array_length(get(o, "cpus_offline")), 0);
	json_object_put(o);
	out = text(&r, 2);
	assert_null(strstr(out, "hotplug"));
	free(out);

	r.cpus_offline = offline;
	r.nr_cpus_offline = 2;
	o = samples__to_json(&r, NULL, NULL);
	a = get(o, "cpus_offline");
	assert_int_equal(json_object_array_length(a), 2);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(a, 0)), 1);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(a, 1)), 3);
	json_object_put(o);
	out = text(&r, 2);
	assert_non_null(strstr(out, "  CPU hotplug: CPU 1,3 offline for part of the trace"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpus_offline),
		cmocka_unit_test(test_rank_leaves),
		cmocka_unit_test(test_top_by_function),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_unavailable_and_freq),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_attributes_leaves_to_the_users_caller),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

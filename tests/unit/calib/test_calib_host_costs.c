// SPDX-License-Identifier: GPL-2.0
/*
 * host_costs: the kernels' books (every handoff counted once, every CAS of
 * the ping-pong landed, every yield made), the CPU-pair plan, and the
 * family's result keys. Where BPF can run, the tracing-cost figure must be
 * measured (the family itself checks that the tracer saw every call);
 * elsewhere it must be skipped with its reason. No timing is asserted.
 */
#include "testlib.h"
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib/calib.h"
#include "calib/kern/calib_host_kern.h"
#include "calib/calib_json.h"

static cpu_set_t allowed;
static int ncpus;

static int setup(void **state)
{
	sched_getaffinity(0, sizeof(allowed), &allowed);
	ncpus = CPU_COUNT(&allowed);
	return 0;
}

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;

	assert_int_equal(calib__parse_cpulist(list, &s), 0);
	return s;
}

static void test_pairs_plan(void **state)
{
	struct calib_hc_pair p[64];
	cpu_set_t s = cpus("0-3");
	int n;

	n = calib_hc__pairs(&s, 100, p, 64);
	assert_int_equal(n, 6);
	for (int i = 0; i < n; i++) {
		assert_true(p[i].a < p[i].b);
		for (int j = 0; j < i; j++)
			assert_false(p[i].a == p[j].a && p[i].b == p[j].b);
	}
	/* Cut short: the first CPU against the others comes first. */
	n = calib_hc__pairs(&s, 3, p, 64);
	assert_int_equal(n, 3);
	assert_int_equal(p[0].a, 0);
	assert_int_equal(p[0].b, 1);
	assert_int_equal(p[2].b, 3);
	/* Sparse sets: then neighbours among the rest. */
	s = cpus("0,2,4,6,8");
	n = calib_hc__pairs(&s, 5, p, 64);
	assert_int_equal(n, 5);
	assert_int_equal(p[3].a, 0);
	assert_int_equal(p[3].b, 8);
	assert_int_equal(p[4].a, 2);
	assert_int_equal(p[4].b, 4);
	assert_int_equal(calib_hc__pairs(&s, 100, p, 64), 10);
	assert_int_equal(calib_hc__pairs(&s, 100, p, 4), 4);	/* cap */
	s = cpus("5");
	assert_int_equal(calib_hc__pairs(&s, 100, p, 64), 0);
}

static void test_handoff_books(void **state)
{
	struct calib_hc_handoff h;
	int cpu0 = calib__nth_cpu(&allowed, 0);

	assert_int_equal(calib_hc__futex_handoff(cpu0, cpu0, true, 50, &h), 0);
	/* Every handoff is either timed (the wakee had slept) or dropped. */
	assert_int_equal(h.valid + h.raced, 100);
	assert_true(h.valid >= 1);
	assert_true(h.median_ns > 0 && h.p90_ns >= h.median_ns);
	assert_int_equal(h.cpu_waker, cpu0);
	assert_int_equal(h.cpu_wakee, cpu0);
	if (ncpus >= 2) {
		int cpu1 = calib__nth_cpu(&allowed, 1);

		assert_int_equal(calib_hc__futex_handoff(cpu0, cpu1, false, 50, &h), 0);
		assert_int_equal(h.valid + h.raced, 100);
		assert_int_equal(h.cpu_wakee, cpu1);
	}
	assert_int_equal(calib_hc__futex_handoff(cpu0, cpu0, false, 50, &h), -EINVAL);
	assert_int_equal(calib_hc__futex_handoff(cpu0, cpu0, true, 0, &h), -EINVAL);
}

static void test_yield_books(void **state)
{
	struct calib_hc_yield y;
	int cpu0 = calib__nth_cpu(&allowed, 0);

	uint64_t t0 = calib__now_ns();

	/* All 1000 calls, unless the time box (a loaded host) ended them
	 * first; then at least the 16 made before the clock is checked. */
	assert_int_equal(calib_hc__yield(cpu0, false, 1000, &y), 0);
	if (calib__now_ns() - t0 < CALIB_HC_YIELD_MAX_NS)
		assert_int_equal(y.yields, 1000);
	assert_true(y.yields >= 16 && y.yields <= 1000);
	assert_true(y.ns_per_yield > 0);
	t0 = calib__now_ns();
	assert_int_equal(calib_hc__yield(cpu0, true, 1000, &y), 0);
	if (calib__now_ns() - t0 < CALIB_HC_YIELD_MAX_NS)
		assert_int_equal(y.yields, 2000);
	assert_true(y.yields >= 32 && y.yields <= 2000);
	assert_true(y.switches_per_yield >= 0);
	assert_int_equal(calib_hc__yield(cpu0, true, 0, &y), -EINVAL);
}

static void test_c2c_books(void **state)
{
	double ns = 0;
	uint64_t final = 0;
	int cpu0 = calib__nth_cpu(&allowed, 0);

	assert_int_equal(calib_hc__c2c(cpu0, cpu0, 10, &ns, &final), -EINVAL);
	if (ncpus < 2)
		return;
	assert_int_equal(calib_hc__c2c(cpu0, calib__nth_cpu(&allowed, 1), 5000, &ns, &final), 0);
	assert_int_equal(final, 10000);
	assert_true(ns > 0);
}

static void check_figure(json_object *o, const char *a, const char *b, const char *key)
{
	json_object *x = o;
	struct calib_stats st;

	if (a)
		assert_true(json_object_object_get_ex(x, a, &x));
	if (b)
		assert_true(json_object_object_get_ex(x, b, &x));
	assert_true(calib_stats__from_json(x, key, &st, NULL));
	assert_true(st.n >= 1 && st.median > 0);
}

static void test_family_result(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct calib_ctx ctx = { .quick = true, .stop = &stop, .cpus = allowed, .ncpus = ncpus };
	json_object *r = json_object_new_object(), *s, *tr, *v;
	const char *no_bpf = tl_bpf_unavailable();
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(calib_host_costs.run(&ctx, r), 0);
	check_figure(r, "futex_handoff", "same_cpu", "ns");
	check_figure(r, "sched_yield", "alone", "ns");
	check_figure(r, "sched_yield", "with_peer", "ns");
	if (ncpus >= 2) {
		json_object *c2c, *pairs;

		check_figure(r, "futex_handoff", "cross_cpu", "ns");
		assert_true(json_object_object_get_ex(r, "c2c", &c2c));
		assert_true(json_object_object_get_ex(c2c, "pairs", &pairs));
		assert_int_equal(json_object_array_length(pairs),
				 ncpus * (ncpus - 1) / 2 < 16 ? ncpus * (ncpus - 1) / 2 : 16);
		check_figure(json_object_array_get_idx(pairs, 0), NULL, NULL, "round_trip_ns");
		assert_true(calib_json__double(c2c, "median_ns", 0) > 0);
	}
	assert_non_null(strstr(calib_json__string(r, "headline", ""), "futex handoff: "));
	/* The flat figures the advisor reads. */
	assert_true(json_object_object_get_ex(r, "summary", &s));
	assert_true(calib_json__double(s, "futex_handoff_same_cpu_ns", 0) > 0);
	assert_true(calib_json__double(s, "yield_alone_ns", 0) > 0);
	assert_true(calib_json__double(s, "yield_with_peer_ns", 0) > 0);
	assert_true(json_object_object_get_ex(s, "c2c_median_ns", NULL));
	assert_true(json_object_object_get_ex(s, "tracing_ns_per_event", &v));
	assert_true(json_object_object_get_ex(r, "tracing", &tr));
	if (no_bpf) {
		json_object *parts;

		assert_true(json_object_get_boolean(json_object_object_get(tr, "skipped")));
		assert_true(json_object_object_get_ex(r, "skipped_parts", &parts));
		assert_string_equal(calib_json__string(json_object_array_get_idx(parts, 0), "what", ""),
				    "tracing cost per event");
	} else {
		/* BPF runs here: the figure is measured, with its parts. */
		assert_false(json_object_object_get_ex(tr, "skipped", NULL));
		check_figure(tr, NULL, NULL, "futex_call_off_ns");
		check_figure(tr, NULL, NULL, "futex_call_on_ns");
		check_figure(tr, NULL, NULL, "yield_call_on_ns");
		assert_true(calib_stats__from_json(tr, "ns_per_event", &(struct calib_stats){ 0 },
						   NULL));
		assert_non_null(v);
	}
	f = open_memstream(&text, &len);
	calib_host_costs.print(r, f);
	fclose(f);
	assert_true(strncmp(text, "  futex handoff: ", 17) == 0);
	assert_non_null(strstr(text, "\n  sched_yield: "));
	assert_non_null(strstr(text, "\n  tracing by spinscope: "));
	free(text);
	json_object_put(r);
}

/* Without privileges only the tracing figure is skipped, with the reason
 * naming what is missing. Run in a child that drops its effective
 * capabilities (root keeps them otherwise). */
static void test_tracing_skipped_without_privileges(void **state)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct data[2];
		volatile sig_atomic_t stop = 0;
		struct calib_ctx ctx = { .quick = true, .stop = &stop };
		json_object *r = json_object_new_object(), *tr, *parts;
		bool ok;

		memset(data, 0, sizeof(data));
		syscall(SYS_capget, &hdr, data);
		data[0].effective = data[1].effective = 0;
		if (syscall(SYS_capset, &hdr, data))
			_exit(2);
		CPU_ZERO(&ctx.cpus);
		CPU_SET(calib__nth_cpu(&allowed, 0), &ctx.cpus);
		ctx.ncpus = 1;
		ok = calib_host_costs.run(&ctx, r) == 0 &&
		     json_object_object_get_ex(r, "tracing", &tr) &&
		     json_object_get_boolean(json_object_object_get(tr, "skipped")) &&
		     strstr(calib_json__string(tr, "reason", ""), "CAP_BPF") &&
		     json_object_object_get_ex(r, "skipped_parts", &parts) &&
		     json_object_array_length(parts) == 3 &&	/* + cross-CPU handoff, c2c */
		     calib_stats__from_json(json_object_object_get(json_object_object_get(r,
				"futex_handoff"), "same_cpu"), "ns", &(struct calib_stats){ 0 }, NULL);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_plan),
		cmocka_unit_test(test_handoff_books),
		cmocka_unit_test(test_yield_books),
		cmocka_unit_test(test_c2c_books),
		cmocka_unit_test(test_family_result),
		cmocka_unit_test(test_tracing_skipped_without_privileges),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

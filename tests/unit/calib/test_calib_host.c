// SPDX-License-Identifier: GPL-2.0
/*
 * calib_host.c: a stored calibration (the JSON files in tests/fixtures/advice,
 * shaped like `spinscope calibrate --json` writes them, reduced by hand) turned
 * into the advisor's struct adv_host, figure by figure: a full x86 VM run
 * with a skipped family, a partial run (null tracing and core-to-core
 * figures, a best strategy without spins, missing keys), families that
 * failed with an error, and a two-node AArch64 host. Then which families
 * calib_host__needed() asks to measure for a report's findings.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "calib/calib_host.h"
#include "calib/calib_store.h"

#define FIX "tests/fixtures/advice/"

/* The fixture as calib_store loads it (schema and results checked, host
 * fingerprint complete), filled into *h as trace_cmd.c does. */
static void load(const char *name, const char *machine, struct adv_host *h)
{
	json_object *doc = NULL, *results = NULL, *host = NULL;
	struct ss_fingerprint fp;
	char path[256];

	snprintf(path, sizeof(path), FIX "%s", name);
	if (calib_store__load(path, &doc))
		fail_msg("%s is not a calibration document (run from the repository root)", path);
	assert_true(json_object_object_get_ex(doc, "host", &host));
	assert_int_equal(calib_store__host_from_json(host, &fp), 0);
	assert_true(json_object_object_get_ex(doc, "results", &results));
	memset(h, 0, sizeof(*h));
	calib_host__fill(results, machine, h);
	json_object_put(doc);
}

static const struct adv_hint *hint(const struct adv_host *h, const char *name)
{
	for (size_t i = 0; i < h->spin_hint.nhints; i++)
		if (!strcmp(h->spin_hint.hints[i].name, name))
			return &h->spin_hint.hints[i];
	fail_msg("no hint '%s' among %zu", name, h->spin_hint.nhints);
	return NULL;
}

static void test_full_x86_vm(void **state)
{
	struct adv_host h;

	load("calib-x86-vm.json", "x86_64", &h);
	assert_true(h.present);
	assert_true(h.matches);

	assert_true(h.false_sharing.present);
	assert_float_equal(h.false_sharing.ratio_2t, 3.6, 1e-9);
	/* null: no interference size was claimed */
	assert_int_equal(h.false_sharing.interference_bytes, 0);
	assert_int_equal(h.false_sharing.cache_line_bytes, 64);
	/* The headline is the atomic row (overlap 0.41), not the plain one
	 * (0.95) of the same thread count. */
	assert_false(h.false_sharing.concurrent);

	assert_true(h.spin_hint.present);
	assert_string_equal(h.spin_hint.arch, "x86_64");
	assert_int_equal(h.spin_hint.nhints, 5);
	assert_true(hint(&h, "pause")->available);
	assert_float_equal(hint(&h, "pause")->ns, 13.25, 1e-9);
	assert_float_equal(hint(&h, "nop")->ns, 0.335, 1e-9);
	/* What the CPU lacks is listed, not available, and costs nothing. */
	assert_false(hint(&h, "tpause")->available);
	assert_float_equal(hint(&h, "tpause")->ns, 0, 0);
	assert_false(hint(&h, "umwait")->available);
	assert_false(hint(&h, "mwaitx")->available);

	assert_true(h.spin_threshold.present);
	assert_string_equal(h.spin_threshold.light.strategy, "spin_yield_repeat");
	assert_int_equal(h.spin_threshold.light.n, 7);
	assert_float_equal(h.spin_threshold.light.throughput, 6280000.0, 1e-3);
	assert_float_equal(h.spin_threshold.light.mutex_throughput, 4667000.0, 1e-3);
	assert_string_equal(h.spin_threshold.heavy.strategy, "spin_then_park");
	assert_int_equal(h.spin_threshold.heavy.n, 31);
	assert_float_equal(h.spin_threshold.heavy.throughput, 5425000.0, 1e-3);
	assert_float_equal(h.spin_threshold.heavy.mutex_throughput, 3100000.0, 1e-3);

	assert_true(h.host_costs.present);
	assert_float_equal(h.host_costs.futex_handoff_same_ns, 2938.0, 1e-9);
	assert_float_equal(h.host_costs.futex_handoff_cross_ns, 28206.0, 1e-9);
	assert_float_equal(h.host_costs.yield_alone_ns, 727.0, 1e-9);
	assert_float_equal(h.host_costs.yield_peer_ns, 2070.0, 1e-9);
	assert_float_equal(h.host_costs.cacheline_rtt_ns, 157.5, 1e-9);
	assert_float_equal(h.host_costs.trace_event_ns, 247.5, 1e-9);

	/* One node: skipped, with its reason, so not present. */
	assert_false(h.numa.present);
	assert_int_equal(h.numa.nodes, 0);

	assert_true(h.memory_order.present);
	assert_float_equal(h.memory_order.relaxed_store_ns, 0.334, 1e-9);
	assert_float_equal(h.memory_order.release_store_ns, 0.334, 1e-9);
	assert_float_equal(h.memory_order.seq_cst_store_ns, 5.68, 1e-9);
	assert_float_equal(h.memory_order.store_fence_ns, 8.19, 1e-9);
	assert_float_equal(h.memory_order.cas_seq_cst_ns, 6.39, 1e-9);
	assert_float_equal(h.memory_order.cas_release_ns, 6.38, 1e-9);
}

static void test_partial_run(void **state)
{
	struct adv_host h;

	load("calib-partial.json", "x86_64", &h);
	/* Not root: tracing was not measured (null), nor the core-to-core
	 * round trip (time box): 0, never a guess. */
	assert_true(h.host_costs.present);
	assert_float_equal(h.host_costs.trace_event_ns, 0, 0);
	assert_float_equal(h.host_costs.cacheline_rtt_ns, 0, 0);
	assert_float_equal(h.host_costs.futex_handoff_cross_ns, 28206.0, 1e-9);
	assert_float_equal(h.host_costs.yield_alone_ns, 727.0, 1e-9);

	/* Pure spin has no spin count (null); a level without a best has
	 * none; a level without the mutex figure has no yardstick. */
	assert_true(h.spin_threshold.present);
	assert_string_equal(h.spin_threshold.light.strategy, "spin");
	assert_int_equal(h.spin_threshold.light.n, 0);
	assert_float_equal(h.spin_threshold.light.throughput, 4122000.0, 1e-3);
	assert_float_equal(h.spin_threshold.light.mutex_throughput, 0, 0);
	assert_string_equal(h.spin_threshold.heavy.strategy, "");
	assert_float_equal(h.spin_threshold.heavy.throughput, 0, 0);
	assert_float_equal(h.spin_threshold.heavy.mutex_throughput, 3100000.0, 1e-3);

	/* Rows without an overlap figure: not known to have run at once. */
	assert_true(h.false_sharing.present);
	assert_float_equal(h.false_sharing.ratio_2t, 3.6, 1e-9);
	assert_false(h.false_sharing.concurrent);

	/* Families not run at all. */
	assert_false(h.spin_hint.present);
	assert_int_equal(h.spin_hint.nhints, 0);
	assert_false(h.numa.present);
	assert_false(h.memory_order.present);
}

/* A family that failed carries "error" and none of its figures: it was
 * not measured, and must be measured again rather than read as zeros. */
static void test_failed_families(void **state)
{
	struct adv_host h;

	load("calib-failed.json", "x86_64", &h);
	assert_false(h.false_sharing.present);
	assert_float_equal(h.false_sharing.ratio_2t, 0, 0);
	assert_false(h.spin_hint.present);
	assert_int_equal(h.spin_hint.nhints, 0);
	assert_false(h.spin_threshold.present);
	/* Interrupted before it measured anything. */
	assert_false(h.memory_order.present);
	/* Tracing cost below zero is noise, not a cost. */
	assert_true(h.host_costs.present);
	assert_float_equal(h.host_costs.trace_event_ns, 0, 0);
	assert_float_equal(h.host_costs.futex_handoff_same_ns, 2938.0, 1e-9);
}

static void test_arm64_two_nodes(void **state)
{
	struct adv_host h;

	load("calib-arm64-2node.json", "aarch64", &h);
	assert_true(h.spin_hint.present);
	assert_string_equal(h.spin_hint.arch, "aarch64");
	assert_int_equal(h.spin_hint.nhints, 5);
	assert_float_equal(hint(&h, "sb")->ns, 6.9, 1e-9);
	assert_float_equal(hint(&h, "isb")->ns, 11.9, 1e-9);
	assert_float_equal(hint(&h, "wfe")->ns, 45.0, 1e-9);
	assert_true(hint(&h, "yield")->available);

	assert_true(h.numa.present);
	assert_int_equal(h.numa.nodes, 2);
	assert_float_equal(h.numa.local_ns, 110.0, 1e-9);
	assert_float_equal(h.numa.remote_ns, 180.0, 1e-9);
	assert_float_equal(h.numa.interleaved_ns, 145.0, 1e-9);
	assert_float_equal(h.numa.local_gbs, 95.0, 1e-9);
	assert_float_equal(h.numa.remote_gbs, 60.0, 1e-9);
	assert_float_equal(h.numa.interleaved_gbs, 150.0, 1e-9);

	assert_false(h.host_costs.present);
	assert_false(h.false_sharing.present);
}

/* A results object with nothing usable in it. */
static void test_empty_and_odd_results(void **state)
{
	json_object *r = json_tokener_parse(
		"{\"host_costs\": {\"skipped\": true, \"reason\": \"no BPF\"},"
		" \"numa\": {\"node_count\": 2},"
		" \"false_sharing\": {\"ratio_unpadded_padded\": null},"
		" \"spin_threshold\": {\"skipped\": false, \"contention\": {}},"
		" \"future_family\": {\"figure\": 1}}");
	struct adv_host h;

	assert_non_null(r);
	memset(&h, 0, sizeof(h));
	calib_host__fill(r, "x86_64", &h);
	assert_true(h.present);
	assert_false(h.host_costs.present);
	assert_false(h.numa.present);
	assert_false(h.false_sharing.present);
	/* Measured, but neither level settled on a best strategy. */
	assert_true(h.spin_threshold.present);
	assert_string_equal(h.spin_threshold.light.strategy, "");
	assert_string_equal(h.spin_threshold.heavy.strategy, "");
	json_object_put(r);

	r = json_object_new_object();
	memset(&h, 0, sizeof(h));
	calib_host__fill(r, "x86_64", &h);
	assert_true(h.present);
	assert_false(h.host_costs.present || h.spin_hint.present || h.spin_threshold.present ||
		     h.false_sharing.present || h.numa.present || h.memory_order.present);
	json_object_put(r);
}

/* ---- calib_host__needed ------------------------------------------------- */

static struct adv_report *report_of(const char *const ids[], const enum adv_severity sev[])
{
	struct adv_report *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	for (size_t i = 0; ids[i]; i++) {
		snprintf(r->findings[i].id, sizeof(r->findings[i].id), "%s", ids[i]);
		r->findings[i].severity = sev ? sev[i] : ADV_WARNING;
		r->n++;
	}
	return r;
}

static const char *needed(const struct adv_report *r, const struct adv_host *h)
{
	static char buf[128];

	return calib_host__needed(r, h, buf, sizeof(buf));
}

static void test_needed_without_calibration(void **state)
{
	static const char *const ids[] = { "futex-contention", "spin-yield", "false-sharing",
					   "spin-hint", "oversubscription", "memory-order", NULL };
	struct adv_report *r = report_of(ids, NULL);
	struct adv_host none = { 0 };

	/* In the findings' order, each family once. */
	assert_string_equal(needed(r, &none),
			    "host_costs,spin_threshold,false_sharing,spin_hint,memory_order");
	free(r);
}

static void test_needed_only_what_is_missing(void **state)
{
	static const char *const ids[] = { "spin-yield", "futex-contention", "false-sharing", NULL };
	struct adv_report *r = report_of(ids, NULL);
	struct adv_host h;

	load("calib-partial.json", "x86_64", &h);
	/* host_costs, spin_threshold and false_sharing are all there. */
	assert_string_equal(needed(r, &h), "");
	free(r);

	static const char *const ids2[] = { "spin-hint", "spin-yield", "memory-order", NULL };
	r = report_of(ids2, NULL);
	assert_string_equal(needed(r, &h), "spin_hint,memory_order");
	free(r);

	/* Failed families are measured again. */
	static const char *const ids3[] = { "false-sharing", "spin-yield", "futex-contention", NULL };
	r = report_of(ids3, NULL);
	load("calib-failed.json", "x86_64", &h);
	assert_string_equal(needed(r, &h), "false_sharing,spin_threshold");
	free(r);
}

/* Figures of another host are not used: everything the findings rest on
 * is measured here. */
static void test_needed_with_mismatched_host(void **state)
{
	static const char *const ids[] = { "futex-contention", "oversubscription", NULL };
	struct adv_report *r = report_of(ids, NULL);
	struct adv_host h;

	load("calib-x86-vm.json", "x86_64", &h);
	assert_string_equal(needed(r, &h), "");
	h.matches = false;
	snprintf(h.mismatch_reason, sizeof(h.mismatch_reason), "kernel differs");
	assert_string_equal(needed(r, &h), "host_costs");
	free(r);
}

/* NUMA on one node is said without measuring; on several it needs numa.
 * A finding no family serves asks for nothing. */
static void test_needed_numa_and_unknown(void **state)
{
	static const char *const ids[] = { "numa-placement", "made-up-finding", NULL };
	static const enum adv_severity info[] = { ADV_INFO, ADV_WARNING };
	static const enum adv_severity warn[] = { ADV_WARNING, ADV_WARNING };
	struct adv_host none = { 0 };
	struct adv_report *r = report_of(ids, info);

	assert_string_equal(needed(r, &none), "");
	free(r);
	r = report_of(ids, warn);
	assert_string_equal(needed(r, &none), "numa");
	free(r);
	r = report_of((const char *const[]){ NULL }, NULL);
	assert_string_equal(needed(r, &none), "");
	free(r);
}

/* A short buffer is cut, never overrun. */
static void test_needed_short_buffer(void **state)
{
	static const char *const ids[] = { "spin-yield", "false-sharing", "spin-hint", NULL };
	struct adv_report *r = report_of(ids, NULL);
	struct adv_host none = { 0 };
	struct {
		char buf[12];
		char guard[8];
	} b;

	memset(&b, 'x', sizeof(b));
	calib_host__needed(r, &none, b.buf, sizeof(b.buf));
	assert_true(strlen(b.buf) < sizeof(b.buf));
	assert_memory_equal(b.guard, "xxxxxxxx", sizeof(b.guard));
	assert_int_equal(strncmp(b.buf, "host_costs", 10), 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_x86_vm),
		cmocka_unit_test(test_partial_run),
		cmocka_unit_test(test_failed_families),
		cmocka_unit_test(test_arm64_two_nodes),
		cmocka_unit_test(test_empty_and_odd_results),
		cmocka_unit_test(test_needed_without_calibration),
		cmocka_unit_test(test_needed_only_what_is_missing),
		cmocka_unit_test(test_needed_with_mismatched_host),
		cmocka_unit_test(test_needed_numa_and_unknown),
		cmocka_unit_test(test_needed_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

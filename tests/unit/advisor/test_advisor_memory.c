// SPDX-License-Identifier: GPL-2.0
/* The false-sharing, numa-placement and memory-order rules. */
#include "advisor_fixture.h"

static void two_counters(struct fx *fx)
{
	fx_thread(fx, "counter", 0.9, 0.05);
	fx_thread(fx, "counter", 0.9, 0.05);
}

static void test_false_sharing_with_pmu_names_the_hot_spot(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	two_counters(fx);
	fx_sample(fx, "cache-misses", 10000, "bump_counter (demo)", 4500, true);
	fx_sample(fx, "cache-misses", 10000, "memcpy (libc.so.6)", 900, false);
	fx_host(fx);
	f = fx_run_get(fx, "false-sharing");
	fx_print(f);
	assert_non_null(f);
	/* 45% of misses, and padding measured to gain 3.2x here: critical. */
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_string_equal(fx_evidence(f, "cache-miss hot spot"),
			    "bump_counter (demo): 45% of 10k cache-misses samples");
	assert_string_equal(fx_evidence(f, "unpadded/padded"), "3.2x at 2 threads");
	assert_string_equal(fx_evidence(f, "destructive interference"),
			    "128 bytes (cache line 64 bytes per sysfs)");
	assert_true(fx_says(f, "_Alignas(128)"));
	assert_true(fx_says(f, "perf c2c record -p 4242"));
	assert_true(f->confidence >= 0.8);
	fx_free(fx);
}

static void test_false_sharing_warning_below_the_critical_share(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	two_counters(fx);
	fx_sample(fx, "cache-misses", 10000, "bump_counter (demo)", 1500, true);
	fx_host(fx);
	fx->p.target.is_jvm = true;
	f = fx_run_get(fx, "false-sharing");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_true(fx_says(f, "-XX:-RestrictContended"));
	assert_true(fx_says(f, "-XX:ContendedPaddingWidth=128"));
	fx_free(fx);
}

/* Misses only in code not known to write shared data: nothing to say. */
static void test_false_sharing_silent_with_pmu_and_no_shared_writer(void **state)
{
	struct fx *fx = fx_new(5, 4);

	two_counters(fx);
	fx_sample(fx, "cache-misses", 10000, "memcpy (libc.so.6)", 6000, false);
	fx_sample(fx, "cache-misses", 10000, "bump_counter (demo)", 300, true);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "false-sharing"));
	fx_free(fx);
}

/* No PMU and no data addresses: nothing to say, and nothing said. */
static void test_false_sharing_without_evidence_is_silent(void **state)
{
	struct fx *fx = fx_new(5, 2);

	two_counters(fx);
	fx_no_pmu(fx);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "false-sharing"));
	fx_free(fx);
}

/* cpu-clock samples in the counter-increment function without data
 * addresses (--no-data-addresses): possible, informational. */
static void test_false_sharing_cpu_clock_mentions_the_writer(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	two_counters(fx);
	fx_sample(fx, "cpu-clock", 2000, "bump_counter (demo)", 1700, true);
	fx_host(fx);
	f = fx_run_get(fx, "false-sharing");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	assert_true(fx_says(f, "85% of on-CPU time in bump_counter (demo)"));
	assert_string_equal(fx_evidence(f, "samples"), "cpu-clock counts time, not cache misses");
	assert_true(f->confidence < 0.5);
	fx_free(fx);
}

/* Data addresses: two threads write counters 8 bytes apart. The finding
 * names the line, both variables, the threads, the function, this host's
 * ratio, and the fix in C at this host's interference size. */
static void test_false_sharing_from_data_addresses_names_the_line(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	two_counters(fx);
	fx_sample(fx, "cpu-clock", 2000, "bump_counter (demo)", 1900, true);
	fx_two_counters(fx, 8, 1800);
	fx_host(fx);
	f = fx_run_get(fx, "false-sharing");
	fx_print(f);
	assert_non_null(f);
	assert_true(f->severity >= ADV_WARNING);
	assert_true(fx_says(f, "threads 101 and 102 write counters (demo) and counters+8 (demo)"));
	assert_true(fx_says(f, "0x404000, 128 bytes"));
	assert_true(fx_says(f, "thread 102 writes +8..+15"));
	assert_true(fx_says(f, "bump_counter (demo)"));
	assert_true(fx_says(f, "3.2x"));
	assert_true(fx_says(f, "`_Alignas(128)`"));
	assert_null(fx_get(fx, "true-sharing"));
	fx_free(fx);
}

/* The same counters on lines of their own: silent. So are lines too few
 * samples show. */
static void test_false_sharing_padded_or_rare_is_silent(void **state)
{
	struct fx *padded = fx_new(5, 2), *rare = fx_new(5, 2);

	two_counters(padded);
	fx_two_counters(padded, 128, 1800);
	fx_host(padded);
	fx_run(padded);
	assert_null(fx_get(padded, "false-sharing"));
	assert_null(fx_get(padded, "true-sharing"));
	two_counters(rare);
	fx_access(rare, 101, 0x404000, 8, true, "counters (demo)", "f (demo)", 40, 2000);
	fx_access(rare, 102, 0x404008, 8, true, "counters+8 (demo)", "f (demo)", 4, 2000);
	fx_host(rare);
	fx_run(rare);
	assert_null(fx_get(rare, "false-sharing"));
	fx_free(padded);
	fx_free(rare);
}

/* One thread polls a flag, another writes the counter beside it. */
static void test_false_sharing_read_write(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_finding *f;

	two_counters(fx);
	fx_access(fx, 101, 0x404100, 4, false, "pair (demo)", "poll_flag (demo)", 900, 2000);
	fx_access(fx, 102, 0x404108, 8, true, "pair+8 (demo)", "bump_counter (demo)", 900, 2000);
	fx_host(fx);
	f = fx_run_get(fx, "false-sharing");
	fx_print(f);
	assert_non_null(f);
	assert_true(fx_says(f, "(read/write): thread 102 writes pair+8 (demo) while thread 101 reads pair (demo)"));
	fx_free(fx);
}

/* Both threads add to one counter: true sharing, and no advice to pad or
 * align. The heap record case names its offsets. */
static void test_true_sharing_and_heap_records(void **state)
{
	struct fx *fx = fx_new(5, 2), *heap = fx_new(5, 2);
	const struct adv_finding *f;

	two_counters(fx);
	fx_access(fx, 101, 0x404200, 8, true, "hits (demo)", "bump_counter (demo)", 900, 2000);
	fx_access(fx, 102, 0x404200, 8, true, "hits (demo)", "bump_counter (demo)", 900, 2000);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "false-sharing"));
	f = fx_get(fx, "true-sharing");
	fx_print(f);
	assert_non_null(f);
	assert_true(fx_says(f, "one counter shared by 2 threads (hits (demo), written in bump_counter (demo)): per-thread counters merged on read"));
	assert_true(fx_says(f, "per-thread counters merged on read"));
	assert_null(strstr(f->recommendation, "pad"));
	assert_null(strstr(f->recommendation, "align"));
	/* A word both take with cmpxchg is a lock, and glibc's own words
	 * are not the user's data: neither is said. */
	snprintf(fx->data[0].insn, sizeof(fx->data[0].insn), "lock cmpxchg dword ptr [rdi], edx");
	snprintf(fx->data[1].insn, sizeof(fx->data[1].insn), "lock cmpxchg dword ptr [rdi], edx");
	fx_run(fx);
	assert_null(fx_get(fx, "true-sharing"));
	fx->data[0].runtime = fx->data[1].runtime = true;
	snprintf(fx->data[1].data, sizeof(fx->data[1].data), "x");
	fx->data[1].addr += 8;
	fx_run(fx);
	assert_null(fx_get(fx, "false-sharing"));
	two_counters(heap);
	fx_access(heap, 101, 0x7f0000001000, 8, true, "a heap block", "bump_record (demo)", 900, 2000);
	fx_access(heap, 102, 0x7f0000001030, 8, true, "a heap block", "bump_record (demo)", 900, 2000);
	fx_host(heap);
	f = fx_run_get(heap, "false-sharing");
	fx_print(f);
	assert_non_null(f);
	assert_true(fx_says(f, "a heap block at line offset +48"));
	assert_true(fx_says(f, "aligned_alloc(128"));
	fx_free(fx);
	fx_free(heap);
}

static void test_false_sharing_silent_when_healthy(void **state)
{
	fx_assert_silent_when_healthy("false-sharing");
}

/* One node says nothing about the program: no finding at all (the
 * report's host line says the host has one node). */
static void test_numa_one_node_is_no_finding(void **state)
{
	struct fx *fx = fx_new(5, 2);
	const struct adv_report *r;
	int n = 0;

	fx_computer(fx);
	fx_host(fx);
	r = fx_run(fx);
	for (size_t i = 0; i < r->n; i++) {
		if (strstr(r->findings[i].id, "numa"))
			n++;
		/* No other finding talks about NUMA. */
		if (!strstr(r->findings[i].id, "numa"))
			assert_false(fx_says(&r->findings[i], "NUMA"));
	}
	assert_int_equal(n, 0);
	fx_free(fx);
}

static void two_nodes(struct fx *fx, uint64_t p0, uint64_t p1, uint64_t c0, uint64_t c1)
{
	fx->p.numa.nodes = 2;
	fx->p.numa.pages[0] = p0;
	fx->p.numa.pages[1] = p1;
	fx->p.numa.cpus_used[0] = c0;
	fx->p.numa.cpus_used[1] = c1;
	fx->h.numa = (struct adv_host_numa){ .present = true, .nodes = 2, .local_ns = 90,
					     .remote_ns = 150, .interleaved_ns = 120,
					     .local_gbs = 20, .remote_gbs = 11, .interleaved_gbs = 26 };
}

/* Memory on node 0, threads on both: interleave. Expected remote share
 * 0.5 x 0.9 + 0.5 x 0.1 = 50%, latency 120 ns vs 90 local: +33%. */
static void test_numa_concentrated_memory_spread_threads_interleave(void **state)
{
	struct fx *fx = fx_new(5, 8);
	const struct adv_finding *f;

	fx_computer(fx);
	fx_host(fx);
	two_nodes(fx, 90000, 10000, 4, 4);
	fx->p.target.is_jvm = true;
	f = fx_run_get(fx, "numa-placement");
	fx_print(f);
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_string_equal(fx_evidence(f, "memory (numa_maps)"), "node0 90%, node1 10% of 100k pages");
	assert_string_equal(fx_evidence(f, "remote accesses"), "50% expected (threads touching pages evenly)");
	assert_string_equal(fx_evidence(f, "latency over all-local"), "33% expected now");
	assert_true(fx_says(f, "numactl --interleave=all"));
	assert_true(fx_says(f, "-XX:+UseNUMA"));
	fx_free(fx);
}

/* Threads on node 1 only, memory on node 0: bind, 90% remote, +60%. */
static void test_numa_threads_on_one_node_bind(void **state)
{
	struct fx *fx = fx_new(5, 8);
	const struct adv_finding *f;

	fx_computer(fx);
	fx_host(fx);
	two_nodes(fx, 90000, 10000, 0, 4);
	f = fx_run_get(fx, "numa-placement");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_true(fx_says(f, "--membind=1"));
	assert_true(fx_says(f, "migratepages 4242 all 1"));
	fx_free(fx);
}

static void test_numa_local_placement_is_left_alone(void **state)
{
	struct fx *fx = fx_new(5, 8);
	const struct adv_finding *f;

	fx_computer(fx);
	fx_host(fx);
	two_nodes(fx, 97000, 3000, 4, 0);
	f = fx_run_get(fx, "numa-placement");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	assert_true(fx_says(f, "Leave the placement alone"));
	fx_free(fx);
}

static void test_memory_order_fires_on_fence_heavy_code(void **state)
{
	struct fx *fx = fx_new(5, 4);
	const struct adv_finding *f;

	fx_computer(fx);
	fx_fence(fx, "heal_reference (gc)", 0.3);
	fx_host(fx);
	f = fx_run_get(fx, "memory-order");
	fx_print(f);
	assert_non_null(f);
	/* 30% in code whose seq_cst stores cost 19 ns against 0.3 ns: up to
	 * 30% x 98% saved, a warning. */
	assert_int_equal(f->severity, ADV_WARNING);
	assert_string_equal(fx_evidence(f, "possible saving"), "up to 30% of on-CPU time");
	assert_true(fx_says(f, "memory_order_release"));
	/* On this (x86) calibration CAS costs the same in any order. */
	assert_true(fx_says(f, "costs the same whatever its ordering"));
	fx_free(fx);
}

static void test_memory_order_silent_without_fence_hot_spots(void **state)
{
	struct fx *fx = fx_new(5, 4);

	fx_computer(fx);
	fx_fence(fx, "rare_publish (app)", 0.02);
	fx_host(fx);
	fx_run(fx);
	assert_null(fx_get(fx, "memory-order"));
	fx_free(fx);
	fx_assert_silent_when_healthy("memory-order");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_false_sharing_with_pmu_names_the_hot_spot),
		cmocka_unit_test(test_false_sharing_warning_below_the_critical_share),
		cmocka_unit_test(test_false_sharing_silent_with_pmu_and_no_shared_writer),
		cmocka_unit_test(test_false_sharing_without_evidence_is_silent),
		cmocka_unit_test(test_false_sharing_cpu_clock_mentions_the_writer),
		cmocka_unit_test(test_false_sharing_from_data_addresses_names_the_line),
		cmocka_unit_test(test_false_sharing_padded_or_rare_is_silent),
		cmocka_unit_test(test_false_sharing_read_write),
		cmocka_unit_test(test_true_sharing_and_heap_records),
		cmocka_unit_test(test_false_sharing_silent_when_healthy),
		cmocka_unit_test(test_numa_one_node_is_no_finding),
		cmocka_unit_test(test_numa_concentrated_memory_spread_threads_interleave),
		cmocka_unit_test(test_numa_threads_on_one_node_bind),
		cmocka_unit_test(test_numa_local_placement_is_left_alone),
		cmocka_unit_test(test_memory_order_fires_on_fence_heavy_code),
		cmocka_unit_test(test_memory_order_silent_without_fence_hot_spots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

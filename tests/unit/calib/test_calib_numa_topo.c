// SPDX-License-Identifier: GPL-2.0
/*
 * calib_numa_topo.c on fake sysfs trees (tests/fixtures/sysfs-*): 1, 2 and
 * 4 nodes, a CXL-style memory-only node, a node without memory, and a
 * kernel without NUMA; the plan of cases each yields; and the judgement of
 * page placements. Runs from the repository root, as `make test` does.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib/kern/calib_numa_topo.h"
#include "calib/kern/calib_util.h"

#define FIX "tests/fixtures/"

static struct numa_topo topo;
static struct numa_plan plan;
static char why[256];

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;

	assert_int_equal(calib__parse_cpulist(list, &s), 0);
	return s;
}

static void read_fixture(const char *name)
{
	char root[128];

	snprintf(root, sizeof(root), FIX "%s", name);
	assert_int_equal(numa_topo__read(root, &topo, why, sizeof(why)), 0);
}

static int count_kind(enum numa_case_kind k)
{
	int n = 0;

	for (int i = 0; i < plan.ncases; i++)
		n += plan.cases[i].kind == k;
	return n;
}

static const struct numa_case *find_case(enum numa_case_kind k, int cpu_node, int mem_node)
{
	for (int i = 0; i < plan.ncases; i++)
		if (plan.cases[i].kind == k && plan.cases[i].cpu_node == cpu_node &&
		    plan.cases[i].mem_node == mem_node)
			return &plan.cases[i];
	return NULL;
}

static void test_one_node_skips(void **state)
{
	cpu_set_t all = cpus("0-1");

	read_fixture("sysfs-numa-1node");
	assert_int_equal(topo.nnodes, 1);
	assert_int_equal(topo.id[0], 0);
	assert_int_equal(CPU_COUNT(&topo.cpus[0]), 2);
	assert_int_equal(topo.distance[0][0], 10);
	assert_false(topo.fake_single);
	numa_plan__make(&topo, &all, true, 0, &plan);
	assert_true(plan.skip);
	assert_int_equal(plan.ncases, 0);
	assert_non_null(strstr(plan.why, "one NUMA node"));
}

static void test_no_numa_kernel(void **state)
{
	cpu_set_t all = cpus("0-3");

	read_fixture("sysfs-nonuma");
	assert_true(topo.fake_single);
	assert_int_equal(topo.nnodes, 1);
	assert_int_equal(CPU_COUNT(&topo.cpus[0]), 4);
	numa_plan__make(&topo, &all, false, 0, &plan);
	assert_true(plan.skip);
}

static void test_two_nodes(void **state)
{
	cpu_set_t all = cpus("0-15");
	const struct numa_case *c;

	read_fixture("sysfs-numa-2node");
	assert_int_equal(topo.nnodes, 2);
	assert_true(CPU_ISSET(9, &topo.cpus[0]));
	assert_true(CPU_ISSET(12, &topo.cpus[1]));
	assert_int_equal(CPU_COUNT(&topo.cpus[1]), 8);
	assert_int_equal(topo.distance[0][1], 21);
	assert_int_equal(topo.distance[1][0], 21);
	assert_int_equal(numa_topo__memory_nodes(&topo), 2);

	numa_plan__make(&topo, &all, true, 2, &plan);
	assert_false(plan.skip);
	assert_int_equal(count_kind(NUMA_LOCAL), 2);
	assert_int_equal(count_kind(NUMA_REMOTE), 2);
	c = find_case(NUMA_LOCAL, 1, 1);
	assert_non_null(c);
	assert_int_equal(c->cpu, 4);		/* first CPU of node 1 */
	assert_int_equal(c->distance, 10);
	c = find_case(NUMA_REMOTE, 0, 1);
	assert_non_null(c);
	assert_int_equal(c->cpu, 0);
	assert_int_equal(c->distance, 21);
	assert_non_null(find_case(NUMA_REMOTE, 1, 0));
	/* Teams: two CPUs per node, all memory on node 0 for the baseline. */
	c = find_case(NUMA_ONE_NODE, -1, 0);
	assert_non_null(c);
	assert_int_equal(c->team_size, 4);
	assert_true(CPU_ISSET(0, &c->team) && CPU_ISSET(1, &c->team));
	assert_true(CPU_ISSET(4, &c->team) && CPU_ISSET(5, &c->team));
	assert_int_equal(count_kind(NUMA_INTERLEAVE), 1);
	assert_int_equal(count_kind(NUMA_FIRST_TOUCH), 1);
	assert_int_equal(plan.ncases, 7);
}

/* --cpus limited to node 1: local on node 1 only, remote from node 1 only,
 * and the team lives on node 1 alone. */
static void test_two_nodes_cpus_restricted(void **state)
{
	cpu_set_t some = cpus("5,13");

	read_fixture("sysfs-numa-2node");
	numa_plan__make(&topo, &some, false, 0, &plan);
	assert_false(plan.skip);
	assert_int_equal(count_kind(NUMA_LOCAL), 1);
	assert_non_null(find_case(NUMA_LOCAL, 1, 1));
	assert_int_equal(find_case(NUMA_LOCAL, 1, 1)->cpu, 5);
	assert_int_equal(count_kind(NUMA_REMOTE), 1);
	assert_non_null(find_case(NUMA_REMOTE, 1, 0));
	assert_int_equal(find_case(NUMA_INTERLEAVE, -1, -1)->team_size, 2);
}

static void test_four_nodes(void **state)
{
	cpu_set_t all = cpus("0-15");

	read_fixture("sysfs-numa-4node");
	assert_int_equal(topo.nnodes, 4);
	assert_int_equal(topo.distance[0][3], 22);
	assert_int_equal(topo.distance[2][1], 22);
	assert_int_equal(topo.distance[3][1], 16);
	assert_true(CPU_ISSET(14, &topo.cpus[3]));

	/* Full: every ordered pair. */
	numa_plan__make(&topo, &all, false, 0, &plan);
	assert_int_equal(count_kind(NUMA_LOCAL), 4);
	assert_int_equal(count_kind(NUMA_REMOTE), 12);
	assert_int_equal(find_case(NUMA_INTERLEAVE, -1, -1)->team_size, 16);
	assert_int_equal(find_case(NUMA_REMOTE, 0, 3)->distance, 22);
	/* Quick: one pair per distance class (16 and 22) from each node. */
	numa_plan__make(&topo, &all, true, 1, &plan);
	assert_int_equal(count_kind(NUMA_REMOTE), 8);
	for (int n = 0; n < 4; n++) {
		int d16 = 0, d22 = 0;

		for (int i = 0; i < plan.ncases; i++) {
			const struct numa_case *c = &plan.cases[i];

			if (c->kind != NUMA_REMOTE || c->cpu_node != n)
				continue;
			d16 += c->distance == 16;
			d22 += c->distance == 22;
		}
		assert_int_equal(d16, 1);
		assert_int_equal(d22, 1);
	}
	assert_int_equal(find_case(NUMA_FIRST_TOUCH, -1, -1)->team_size, 4);
}

/* A CPU-less memory node (CXL): a memory target, never a CPU node. */
static void test_memory_only_node(void **state)
{
	cpu_set_t all = cpus("0-7");

	read_fixture("sysfs-numa-cxl");
	assert_int_equal(topo.nnodes, 3);
	assert_int_equal(CPU_COUNT(&topo.cpus[2]), 0);
	assert_true(topo.has_memory[2]);
	numa_plan__make(&topo, &all, false, 0, &plan);
	assert_int_equal(count_kind(NUMA_LOCAL), 2);
	assert_null(find_case(NUMA_LOCAL, 2, 2));
	assert_int_equal(count_kind(NUMA_REMOTE), 4);
	assert_int_equal(find_case(NUMA_REMOTE, 0, 2)->distance, 14);
	assert_int_equal(find_case(NUMA_REMOTE, 1, 2)->distance, 24);
	assert_null(find_case(NUMA_REMOTE, 2, 0));
}

/* Two nodes, one without memory: nothing to compare. */
static void test_memoryless_node_skips(void **state)
{
	cpu_set_t all = cpus("0-3");

	read_fixture("sysfs-numa-memless");
	assert_int_equal(topo.nnodes, 2);
	assert_false(topo.has_memory[1]);
	numa_plan__make(&topo, &all, true, 0, &plan);
	assert_true(plan.skip);
	assert_non_null(strstr(plan.why, "only one NUMA node"));
}

static void test_missing_tree(void **state)
{
	assert_true(numa_topo__read(FIX "no-such-tree", &topo, why, sizeof(why)) < 0);
	assert_true(why[0] != '\0');
}

static void test_placement_bind_and_first_touch(void **state)
{
	int status[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	int expect[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct numa_placement r;

	read_fixture("sysfs-numa-2node");
	numa_placement__check(&topo, status, expect, 8, 0, &r);
	assert_true(r.ok);
	assert_int_equal(r.as_expected, 8);
	assert_int_equal(r.per_node[1], 8);
	/* One page on the wrong node: fails strict, passes with 1/8 allowed. */
	status[3] = 0;
	numa_placement__check(&topo, status, expect, 8, 0, &r);
	assert_false(r.ok);
	assert_int_equal(r.misplaced, 1);
	assert_non_null(strstr(r.why, "1 of 8 pages"));
	numa_placement__check(&topo, status, expect, 8, 0.125, &r);
	assert_true(r.ok);
	/* Not present (never touched): counted as missing. */
	status[3] = -ENOENT;
	numa_placement__check(&topo, status, expect, 8, 0, &r);
	assert_false(r.ok);
	assert_int_equal(r.missing, 1);
	/* First touch: half the pages belong to each thread's node. */
	for (int i = 0; i < 8; i++)
		status[i] = expect[i] = i < 4 ? 0 : 1;
	numa_placement__check(&topo, status, expect, 8, 0, &r);
	assert_true(r.ok);
	assert_int_equal(r.per_node[0], 4);
	numa_placement__check(&topo, status, expect, 0, 0, &r);
	assert_false(r.ok);
}

static void test_placement_interleave(void **state)
{
	int nodes[4] = { 0, 1, 2, 3 };
	int status[400];
	struct numa_placement r;

	read_fixture("sysfs-numa-4node");
	for (int i = 0; i < 400; i++)
		status[i] = i % 4;
	numa_placement__check_interleave(&topo, status, 400, nodes, 4, 0.1, &r);
	assert_true(r.ok);
	assert_int_equal(r.per_node[2], 100);
	/* All on one node: the policy did not take. */
	for (int i = 0; i < 400; i++)
		status[i] = 0;
	numa_placement__check_interleave(&topo, status, 400, nodes, 4, 0.1, &r);
	assert_false(r.ok);
	assert_non_null(strstr(r.why, "uneven"));
	/* A page outside the set (interleave over 0,1 only). */
	for (int i = 0; i < 400; i++)
		status[i] = i % 2;
	status[7] = 3;
	numa_placement__check_interleave(&topo, status, 400, nodes, 2, 0.1, &r);
	assert_false(r.ok);
	assert_int_equal(r.misplaced, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node_skips),
		cmocka_unit_test(test_no_numa_kernel),
		cmocka_unit_test(test_two_nodes),
		cmocka_unit_test(test_two_nodes_cpus_restricted),
		cmocka_unit_test(test_four_nodes),
		cmocka_unit_test(test_memory_only_node),
		cmocka_unit_test(test_memoryless_node_skips),
		cmocka_unit_test(test_missing_tree),
		cmocka_unit_test(test_placement_bind_and_first_touch),
		cmocka_unit_test(test_placement_interleave),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

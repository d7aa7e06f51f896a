// SPDX-License-Identifier: GPL-2.0
/*
 * The numa family on the real kernel: each placement (bind, interleave,
 * first touch) is applied with mbind, verified with move_pages, and timed,
 * on the node of the first allowed CPU with small buffers; a node that
 * does not exist is refused with its reason; and on a one-node host the
 * family skips saying so (with several nodes it runs every planned case).
 * No timing is asserted, only that figures exist.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib/calib.h"
#include "calib/calib_json.h"
#include "calib/calib_numa.h"
#include "calib/kern/calib_util.h"

#define MIB (1024ULL * 1024)

static struct numa_topo topo;
static struct calib_ctx ctx = { .quick = true };
static int home_node;	/* node of the first allowed CPU */

static int setup(void **state)
{
	char why[256];
	int cpu;

	sched_getaffinity(0, sizeof(ctx.cpus), &ctx.cpus);
	ctx.ncpus = CPU_COUNT(&ctx.cpus);
	if (numa_topo__read(NULL, &topo, why, sizeof(why)))
		return -1;
	cpu = calib__nth_cpu(&ctx.cpus, 0);
	for (int i = 0; i < topo.nnodes; i++)
		if (CPU_ISSET(cpu, &topo.cpus[i]))
			home_node = topo.id[i];
	return 0;
}

static struct numa_case make_case(enum numa_case_kind kind)
{
	struct numa_case c = { .kind = kind, .cpu_node = -1, .mem_node = -1 };
	int i = numa_topo__index(&topo, home_node);

	if (kind <= NUMA_REMOTE) {
		c.cpu_node = c.mem_node = home_node;
		c.cpu = calib__nth_cpu(&ctx.cpus, 0);
	} else {
		/* The allowed CPUs of the home node, at most two. */
		CPU_AND(&c.team, &topo.cpus[i], &ctx.cpus);
		while (CPU_COUNT(&c.team) > 2)
			CPU_CLR(calib__nth_cpu(&c.team, 2), &c.team);
		c.team_size = CPU_COUNT(&c.team);
		if (kind == NUMA_ONE_NODE)
			c.mem_node = home_node;
	}
	return c;
}

static void check_measured(json_object *o, bool chase, int pages_expected_on_home)
{
	json_object *pl, *per, *v;
	struct calib_stats st;
	char key[16];

	assert_false(json_object_object_get_ex(o, "skipped", NULL));
	assert_true(json_object_object_get_ex(o, "placement", &pl));
	assert_true(json_object_get_boolean(json_object_object_get(pl, "ok")));
	assert_int_equal((int)calib_json__double(pl, "pages_checked", 0), pages_expected_on_home);
	assert_true(json_object_object_get_ex(pl, "pages_per_node", &per));
	snprintf(key, sizeof(key), "%d", home_node);
	assert_true(json_object_object_get_ex(per, key, &v));
	assert_int_equal(json_object_get_int(v), pages_expected_on_home);
	assert_true(calib_stats__from_json(o, "bandwidth_gbs", &st, NULL));
	assert_int_equal(st.n, 3);
	assert_true(st.median > 0);
	assert_int_equal(calib_stats__from_json(o, "latency_ns", &st, NULL), chase);
	if (chase)
		assert_true(st.median > 0);
}

static void test_bind_local(void **state)
{
	struct numa_case c = make_case(NUMA_LOCAL);
	json_object *o = json_object_new_object();

	assert_int_equal(calib_numa__case(&ctx, &topo, &c, 8 * MIB, 3, 20000, o), 0);
	/* 1024 of the 2048 pages sampled, all on the home node. */
	check_measured(o, true, 1024);
	assert_string_equal(calib_json__string(o, "kind", ""), "local");
	json_object_put(o);
}

static void test_interleave_and_teams(void **state)
{
	struct numa_case c;
	json_object *o;
	int mem_nodes = numa_topo__memory_nodes(&topo);

	/* Interleave over every memory node: on one node, all pages there. */
	if (mem_nodes == 1) {
		c = make_case(NUMA_INTERLEAVE);
		o = json_object_new_object();
		assert_int_equal(calib_numa__case(&ctx, &topo, &c, 8 * MIB, 3, 20000, o), 0);
		check_measured(o, true, 1024);
		json_object_put(o);
	}
	c = make_case(NUMA_ONE_NODE);
	o = json_object_new_object();
	assert_int_equal(calib_numa__case(&ctx, &topo, &c, 8 * MIB, 3, 20000, o), 0);
	check_measured(o, false, 1024);
	assert_int_equal((int)calib_json__double(o, "threads", 0), c.team_size);
	json_object_put(o);
}

/* First touch: every member writes its own 2 MiB-aligned slice, so the
 * pages follow the members' node; pages past the last slice are left out. */
static void test_first_touch(void **state)
{
	struct numa_case c = make_case(NUMA_FIRST_TOUCH);
	json_object *o = json_object_new_object();

	assert_int_equal(calib_numa__case(&ctx, &topo, &c, 8 * MIB, 3, 20000, o), 0);
	check_measured(o, false, 1024);
	json_object_put(o);
}

static void test_missing_node_refused(void **state)
{
	struct numa_case c = make_case(NUMA_REMOTE);
	json_object *o = json_object_new_object();

	c.mem_node = NUMA_MAX_NODES - 1;	/* no host has this node online */
	assert_int_equal(calib_numa__case(&ctx, &topo, &c, 8 * MIB, 3, 20000, o), 0);
	assert_true(json_object_get_boolean(json_object_object_get(o, "skipped")));
	assert_non_null(strstr(calib_json__string(o, "reason", ""), "cannot place the memory"));
	assert_false(json_object_object_get_ex(o, "bandwidth_gbs", NULL));
	json_object_put(o);
}

static void test_bad_arguments(void **state)
{
	struct numa_case c = make_case(NUMA_LOCAL);
	json_object *o = json_object_new_object();

	assert_int_equal(calib_numa__case(&ctx, &topo, &c, 8 * MIB, 0, 1, o), -EINVAL);
	assert_int_equal(calib_numa__case(&ctx, &topo, &c, 4096, 3, 1, o), -EINVAL);
	json_object_put(o);
}

/* The family: on a one-node host it skips with that reason and still
 * reports the topology (and expects no time); on more nodes it measures
 * every planned case. */
static void test_family(void **state)
{
	json_object *r = json_object_new_object(), *nodes;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(calib_numa.run(&ctx, r), 0);
	assert_int_equal((int)calib_json__double(r, "node_count", 0), topo.nnodes);
	/* The estimate said up front counts it exactly when it runs. */
	assert_true(json_object_get_boolean(json_object_object_get(r, "skipped")) ==
		    (calib_numa.expected_seconds(&ctx) == 0));
	if (numa_topo__memory_nodes(&topo) > 1) {
		json_object *cases;

		/* Several nodes: every planned case placed, verified, timed. */
		assert_false(json_object_object_get_ex(r, "skipped", NULL));
		assert_true(json_object_object_get_ex(r, "cases", &cases));
		assert_true(json_object_array_length(cases) >= 5);
		for (size_t i = 0; i < json_object_array_length(cases); i++) {
			json_object *c = json_object_array_get_idx(cases, i), *pl;

			assert_true(json_object_object_get_ex(c, "placement", &pl));
			assert_true(json_object_get_boolean(json_object_object_get(pl, "ok")));
			assert_true(json_object_object_get_ex(c, "bandwidth_gbs", NULL));
		}
		assert_true(json_object_object_get_ex(r, "summary", NULL));
		assert_true(calib_json__double(json_object_object_get(r, "summary"),
					       "interleave_bandwidth_gbs", 0) > 0);
		/* The table, as TAP comments: the two-node guest's log shows it. */
		f = open_memstream(&text, &len);
		calib_numa.print(r, f);
		fclose(f);
		for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			print_message("# %s\n", line);
		free(text);
		json_object_put(r);
		return;
	}
	assert_true(json_object_get_boolean(json_object_object_get(r, "skipped")));
	assert_non_null(strstr(calib_json__string(r, "reason", ""), "one NUMA node"));
	assert_true(json_object_object_get_ex(r, "nodes", &nodes));
	assert_int_equal(json_object_array_length(nodes), topo.nnodes);
	f = open_memstream(&text, &len);
	calib_numa.print(r, f);
	fclose(f);
	assert_true(strncmp(text, "  skipped: this host has one NUMA node", 38) == 0);
	free(text);
	json_object_put(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_local),
		cmocka_unit_test(test_interleave_and_teams),
		cmocka_unit_test(test_first_touch),
		cmocka_unit_test(test_missing_node_refused),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_family),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

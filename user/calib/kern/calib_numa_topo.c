// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA topology from sysfs, the plan of what to measure, and the judgement
 * of page placements (calib_numa_topo.h). Pure functions over files and
 * arrays, so the tests cover 1-, 2- and 4-node hosts on any machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib_numa_topo.h"
#include "calib_util.h"

int numa_topo__index(const struct numa_topo *t, int id)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->id[i] == id)
			return i;
	return -1;
}

int numa_topo__memory_nodes(const struct numa_topo *t)
{
	int n = 0;

	for (int i = 0; i < t->nnodes; i++)
		n += t->has_memory[i];
	return n;
}

/* CONFIG_NUMA=n: one node with every online CPU and all memory. */
static int topo_single(const char *root, struct numa_topo *t, char *why, size_t len)
{
	char buf[4096];
	int err = calib__read_text(root, "/sys/devices/system/cpu/online", buf, sizeof(buf));

	if (!err)
		err = calib__parse_cpulist(buf, &t->cpus[0]);
	if (err) {
		snprintf(why, len, "cannot read the online CPUs from %s/sys/devices/system/cpu/online",
			 root ? root : "");
		return err;
	}
	t->nnodes = 1;
	t->id[0] = 0;
	t->has_memory[0] = true;
	t->distance[0][0] = 10;
	t->fake_single = true;
	return 0;
}

int numa_topo__read(const char *root, struct numa_topo *t, char *why, size_t len)
{
	char buf[4096], path[128];
	cpu_set_t online, mem;
	bool have_mem_list;
	int err;

	memset(t, 0, sizeof(*t));
	err = calib__read_text(root, "/sys/devices/system/node/online", buf, sizeof(buf));
	if (err == -ENOENT)
		return topo_single(root, t, why, len);
	if (!err)
		err = calib__parse_cpulist(buf, &online);
	if (err) {
		snprintf(why, len, "cannot read the online NUMA nodes from %s: %s",
			 "/sys/devices/system/node/online", strerror(-err));
		return err;
	}
	/* has_memory is missing on old kernels: then every node counts. */
	have_mem_list = calib__read_text(root, "/sys/devices/system/node/has_memory", buf,
					 sizeof(buf)) == 0 &&
			calib__parse_cpulist(buf, &mem) == 0;
	for (int id = 0; id < CPU_SETSIZE; id++) {
		if (!CPU_ISSET(id, &online))
			continue;
		if (t->nnodes == NUMA_MAX_NODES) {
			snprintf(why, len, "more than %d NUMA nodes", NUMA_MAX_NODES);
			return -E2BIG;
		}
		t->id[t->nnodes] = id;
		t->has_memory[t->nnodes] = have_mem_list ? CPU_ISSET(id, &mem) : true;
		t->nnodes++;
	}
	for (int i = 0; i < t->nnodes; i++) {
		char *p, *end;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", t->id[i]);
		err = calib__read_text(root, path, buf, sizeof(buf));
		/* A memory-only node (CXL, HBM) lists no CPUs: an empty line. */
		if (!err && buf[0] == '\0')
			CPU_ZERO(&t->cpus[i]);
		else if (!err)
			err = calib__parse_cpulist(buf, &t->cpus[i]);
		if (err) {
			snprintf(why, len, "cannot read %s: %s", path, strerror(-err));
			return err;
		}
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", t->id[i]);
		err = calib__read_text(root, path, buf, sizeof(buf));
		if (err) {
			snprintf(why, len, "cannot read %s: %s", path, strerror(-err));
			return err;
		}
		/* One distance per online node, in node order. */
		p = buf;
		for (int j = 0; j < t->nnodes; j++) {
			long d = strtol(p, &end, 10);

			if (end == p || d <= 0) {
				snprintf(why, len, "%s: expected %d distances, got %d", path,
					 t->nnodes, j);
				return -EINVAL;
			}
			t->distance[i][j] = (int)d;
			p = end;
		}
	}
	return 0;
}

const char *numa_case__kind_name(enum numa_case_kind k)
{
	static const char *const names[NUMA__KINDS] = {
		[NUMA_LOCAL] = "local",
		[NUMA_REMOTE] = "remote",
		[NUMA_INTERLEAVE] = "interleave",
		[NUMA_FIRST_TOUCH] = "first_touch",
		[NUMA_ONE_NODE] = "one_node",
	};

	return k < NUMA__KINDS ? names[k] : "?";
}

static void plan_skip(struct numa_plan *p, const char *why)
{
	p->skip = true;
	p->ncases = 0;
	snprintf(p->why, sizeof(p->why), "%s", why);
}

static struct numa_case *plan_add(struct numa_plan *p, enum numa_case_kind kind)
{
	struct numa_case *c;

	if (p->ncases == NUMA_MAX_CASES)
		return NULL;
	c = &p->cases[p->ncases++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->cpu_node = -1;
	c->mem_node = -1;
	c->cpu = -1;
	return c;
}

/* Allowed CPUs of node index i, and the first of them (-1 if none). */
static int node_cpus(const struct numa_topo *t, int i, const cpu_set_t *allowed, cpu_set_t *out)
{
	CPU_AND(out, &t->cpus[i], allowed);
	return CPU_COUNT(out) ? calib__nth_cpu(out, 0) : -1;
}

/* Room kept for the three team cases when remote pairs are many. */
#define TEAM_CASES 3

void numa_plan__make(const struct numa_topo *t, const cpu_set_t *allowed, bool quick,
		     int team_per_node, struct numa_plan *p)
{
	int cpu_nodes = 0, first_mem = -1;
	cpu_set_t team, mine;
	struct numa_case *c;

	memset(p, 0, sizeof(*p));
	CPU_ZERO(&team);
	for (int i = 0; i < t->nnodes; i++) {
		if (t->has_memory[i] && first_mem < 0)
			first_mem = i;
		if (node_cpus(t, i, allowed, &mine) < 0)
			continue;
		cpu_nodes++;
		/* Team: the first team_per_node allowed CPUs of each node. */
		for (int k = 0, n = CPU_COUNT(&mine); k < n; k++)
			if (!team_per_node || k < team_per_node)
				CPU_SET(calib__nth_cpu(&mine, k), &team);
	}
	if (t->nnodes < 2 || numa_topo__memory_nodes(t) < 2) {
		char why[160];

		snprintf(why, sizeof(why), "%s: local, remote and interleaved memory are the same here",
			 t->nnodes < 2 ? "this host has one NUMA node" :
			 "only one NUMA node of this host holds memory");
		plan_skip(p, why);
		return;
	}
	if (!cpu_nodes) {
		plan_skip(p, "no allowed CPU lies on a NUMA node");
		return;
	}
	for (int i = 0; i < t->nnodes; i++) {
		int cpu = node_cpus(t, i, allowed, &mine);

		if (cpu < 0 || !t->has_memory[i])
			continue;
		c = plan_add(p, NUMA_LOCAL);
		c->cpu_node = c->mem_node = t->id[i];
		c->cpu = cpu;
		c->distance = t->distance[i][i];
	}
	for (int i = 0; i < t->nnodes; i++) {
		int cpu = node_cpus(t, i, allowed, &mine);
		int seen[NUMA_MAX_NODES], nseen = 0;

		if (cpu < 0)
			continue;
		for (int j = 0; j < t->nnodes; j++) {
			bool dup = false;

			if (j == i || !t->has_memory[j])
				continue;
			for (int s = 0; s < nseen; s++)
				dup |= seen[s] == t->distance[i][j];
			/* Quick: one pair per distance class stands for the rest. */
			if (quick && dup)
				continue;
			if (p->ncases >= NUMA_MAX_CASES - TEAM_CASES) {
				p->remote_left_out++;
				continue;
			}
			seen[nseen++] = t->distance[i][j];
			c = plan_add(p, NUMA_REMOTE);
			c->cpu_node = t->id[i];
			c->mem_node = t->id[j];
			c->cpu = cpu;
			c->distance = t->distance[i][j];
		}
	}
	for (int k = NUMA_INTERLEAVE; k <= NUMA_ONE_NODE; k++) {
		c = plan_add(p, (enum numa_case_kind)k);
		c->team = team;
		c->team_size = CPU_COUNT(&team);
		if (k == NUMA_ONE_NODE)
			c->mem_node = t->id[first_mem];
	}
}

static void placement_begin(struct numa_placement *out, int n)
{
	memset(out, 0, sizeof(*out));
	out->pages = n;
}

/* Counts a page on node number node into per_node; false if unknown. */
static bool count_node(const struct numa_topo *t, struct numa_placement *out, int node)
{
	int i;

	if (node < 0) {
		out->missing++;
		return false;
	}
	i = numa_topo__index(t, node);
	if (i >= 0)
		out->per_node[i]++;
	return true;
}

static void placement_end(struct numa_placement *out, double max_bad_frac)
{
	int bad = out->misplaced + out->missing;

	out->ok = out->pages > 0 && bad <= (int)(max_bad_frac * out->pages);
	if (!out->pages)
		snprintf(out->why, sizeof(out->why), "no pages to check");
	else if (!out->ok)
		snprintf(out->why, sizeof(out->why),
			 "%d of %d pages not where the policy put them (%d elsewhere, %d not present)",
			 bad, out->pages, out->misplaced, out->missing);
}

void numa_placement__check(const struct numa_topo *t, const int *status, const int *expected,
			   int n, double max_bad_frac, struct numa_placement *out)
{
	placement_begin(out, n);
	for (int i = 0; i < n; i++) {
		if (!count_node(t, out, status[i]))
			continue;
		if (status[i] == expected[i])
			out->as_expected++;
		else
			out->misplaced++;
	}
	placement_end(out, max_bad_frac);
}

void numa_placement__check_interleave(const struct numa_topo *t, const int *status, int n,
				      const int *nodes, int k, double tol,
				      struct numa_placement *out)
{
	double share = k > 0 ? (double)n / k : 0;

	placement_begin(out, n);
	for (int i = 0; i < n; i++) {
		bool in_set = false;

		if (!count_node(t, out, status[i]))
			continue;
		for (int j = 0; j < k; j++)
			in_set |= status[i] == nodes[j];
		if (in_set)
			out->as_expected++;
		else
			out->misplaced++;
	}
	placement_end(out, 0);
	if (!out->ok || k == 0)
		return;
	/* Interleaving spreads evenly; a node far off its share means the
	 * policy did not take (or memory ran out there). */
	for (int j = 0; j < k; j++) {
		int idx = numa_topo__index(t, nodes[j]);
		int have = idx >= 0 ? out->per_node[idx] : 0;

		if (have < share * (1 - tol) || have > share * (1 + tol)) {
			out->ok = false;
			snprintf(out->why, sizeof(out->why),
				 "interleave uneven: node %d holds %d of %d pages, expected about %.0f",
				 nodes[j], have, n, share);
			return;
		}
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure half of the numa family: read a NUMA topology from a sysfs tree
 * (the host's, or a fake one under a prefix in the tests), plan which
 * placements to measure from which CPUs, and judge a page-placement report
 * (the node of each page, as move_pages returns it) against what a
 * placement should have produced. No syscalls beyond reading files, no
 * libnuma: the tests drive every multi-node path on a one-node host.
 */
#ifndef SPINSCOPE_CALIB_NUMA_TOPO_H
#define SPINSCOPE_CALIB_NUMA_TOPO_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define NUMA_MAX_NODES 64

/* Nodes are stored by index (ascending node number); id[] maps back. */
struct numa_topo {
	int nnodes;
	int id[NUMA_MAX_NODES];
	cpu_set_t cpus[NUMA_MAX_NODES];
	bool has_memory[NUMA_MAX_NODES];
	int distance[NUMA_MAX_NODES][NUMA_MAX_NODES];	/* sysfs units, 10 = local */
	bool fake_single;	/* no node directory (CONFIG_NUMA=n): one node made up */
};

/* Reads <root>/sys/devices/system/node (root "" or NULL for the host).
 * Without that directory it makes up one node holding every online CPU.
 * Returns 0, or -errno with why (one line) filled. */
int numa_topo__read(const char *root, struct numa_topo *t, char *why, size_t len);
/* Index of node number id, or -1. */
int numa_topo__index(const struct numa_topo *t, int id);
/* Number of nodes that hold memory. */
int numa_topo__memory_nodes(const struct numa_topo *t);

enum numa_case_kind {
	NUMA_LOCAL,		/* one thread, memory on its own node */
	NUMA_REMOTE,		/* one thread, memory on another node */
	NUMA_INTERLEAVE,	/* team, memory interleaved over all memory nodes */
	NUMA_FIRST_TOUCH,	/* team, each thread first-touches its own slice */
	NUMA_ONE_NODE,		/* team, all memory bound to one node: the baseline */
	NUMA__KINDS
};

struct numa_case {
	enum numa_case_kind kind;
	int cpu_node;		/* node number the thread runs on; -1 for teams */
	int mem_node;		/* node number of the memory; -1 interleave/first touch */
	int cpu;		/* single-thread cases: the CPU to pin to */
	int distance;		/* sysfs distance cpu_node -> mem_node; 0 for teams */
	cpu_set_t team;		/* team cases: the CPUs, one thread each */
	int team_size;
};

#define NUMA_MAX_CASES 256

struct numa_plan {
	bool skip;
	char why[160];		/* the reason, when skip */
	int ncases;
	int remote_left_out;	/* remote pairs beyond NUMA_MAX_CASES */
	struct numa_case cases[NUMA_MAX_CASES];
};

/* Plans the cases among the allowed CPUs. Local: every node that has
 * memory and an allowed CPU. Remote: every (CPU node, other memory node)
 * pair; quick keeps one pair per distinct distance from each CPU node.
 * Teams: up to team_per_node allowed CPUs of every node (0: all), for
 * interleave, first touch and one-node (the first memory node). Skips,
 * with the reason, when fewer than two nodes hold memory or no allowed CPU
 * sits on a node. Pure. */
void numa_plan__make(const struct numa_topo *t, const cpu_set_t *allowed, bool quick,
		     int team_per_node, struct numa_plan *p);

const char *numa_case__kind_name(enum numa_case_kind k);

/* A placement report judged against an expectation. status[i] is the node
 * of sampled page i or a negative errno (-ENOENT: not present). */
struct numa_placement {
	int pages;		/* pages judged */
	int as_expected;
	int misplaced;		/* on a node the policy did not allow */
	int missing;		/* not present or unreadable */
	int per_node[NUMA_MAX_NODES];	/* pages per node index */
	bool ok;
	char why[160];		/* what went wrong, when !ok */
};

/* Every page on expected[i] (bind: one node for all; first touch: the node
 * of the thread that touched page i); at most max_bad_frac of them may be
 * elsewhere or missing. */
void numa_placement__check(const struct numa_topo *t, const int *status, const int *expected,
			   int n, double max_bad_frac, struct numa_placement *out);
/* Interleave over nodes[0..k-1]: no page outside them, and each node holds
 * its share n/k within the fraction tol. */
void numa_placement__check_interleave(const struct numa_topo *t, const int *status, int n,
				      const int *nodes, int k, double tol,
				      struct numa_placement *out);

#endif

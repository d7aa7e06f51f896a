// SPDX-License-Identifier: GPL-2.0
/*
 * rule_numa_placement.c: where the target's memory lives (numa_maps) against
 * where its threads run, priced with this host's local, remote and
 * interleaved memory costs: bind, interleave, allocate per node, or leave
 * alone. On a host with one node there is nothing to place: one info
 * finding says so, once.
 */
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* Thresholds (thresholds.h). ADV_NUMA_REMOTE_MIN: expected share of accesses
 * that go to another node (threads touching their process's pages evenly)
 * below which placement is left alone: a tenth of accesses paying even a 2x
 * remote latency costs at most 10%. */
/* ADV_NUMA_WARN, ADV_NUMA_CRIT: expected latency over an all-local
 * placement: 10% is worth changing a start command for (warning), 50% is a
 * large part of a memory-bound program's time (critical). */
/* ADV_NUMA_CONCENTRATED: most pages on one node while threads run on
 * several: interleaving spreads both the latency and the bandwidth. */

enum numa_action { LEAVE, BIND, INTERLEAVE, PER_NODE };

struct placement {
	uint32_t nodes;
	double pages, run;		/* totals */
	uint32_t mem_node, run_node;	/* nodes holding most pages, most threads */
	double mem_share;		/* of pages on mem_node */
	uint32_t run_nodes;		/* nodes the threads ran on */
	double remote;			/* expected remote share of accesses */
};

static void measure(const struct adv_numa *n, struct placement *pl)
{
	*pl = (struct placement){ .nodes = n->nodes < ADV_MAX_NODES ? n->nodes : ADV_MAX_NODES };
	for (uint32_t i = 0; i < pl->nodes; i++) {
		pl->pages += (double)n->pages[i];
		pl->run += (double)n->cpus_used[i];
		if (n->pages[i] > n->pages[pl->mem_node])
			pl->mem_node = i;
		if (n->cpus_used[i] > n->cpus_used[pl->run_node])
			pl->run_node = i;
		pl->run_nodes += n->cpus_used[i] > 0;
	}
	if (pl->pages <= 0 || pl->run <= 0)
		return;
	pl->mem_share = (double)n->pages[pl->mem_node] / pl->pages;
	/* A thread on node i finds a page elsewhere with the probability that
	 * a page is not on i. */
	for (uint32_t i = 0; i < pl->nodes; i++)
		pl->remote += (double)n->cpus_used[i] / pl->run * (1.0 - (double)n->pages[i] / pl->pages);
}

/* "node0 82%, node1 18%" */
static void spread(const uint64_t *v, uint32_t nodes, double total, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < nodes; i++) {
		int n;

		if (!v[i])
			continue;
		n = snprintf(buf + len, size - len, "%snode%u %s", len ? ", " : "", i,
			     adv_fmt_pct((double)v[i] / total).s);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += n;
	}
}

static void recommend(const struct adv_ctx *ctx, struct adv_finding *f, enum numa_action a,
		      const struct placement *pl)
{
	bool jvm = ctx->p->target.is_jvm;

	switch (a) {
	case LEAVE:
		adv_finding__recommend(f, "Leave the placement alone: about %s of memory accesses are expected to be remote.",
				       adv_fmt_pct(pl->remote).s);
		break;
	case BIND:
		adv_finding__recommend(f, "Its threads run on node %u only: keep its memory there too, with `numactl --cpunodebind=%u --membind=%u` at start, or move the running process's pages with `migratepages %d all %u`.",
				       pl->run_node, pl->run_node, pl->run_node, ctx->p->target.pid, pl->run_node);
		break;
	case INTERLEAVE:
		adv_finding__recommend(f, "Interleave its memory across the nodes its threads run on: `numactl --interleave=all` at start.");
		if (jvm)
			adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "-XX:+UseNUMA (NUMA-aware heap for the Parallel and G1 collectors) or -XX:+UseNUMAInterleaving");
		break;
	case PER_NODE:
		adv_finding__recommend(f, "Threads and memory are both spread: allocate data on the node of the thread that uses it (first touch by that thread, or numa_alloc_onnode), and keep those threads on their node.");
		if (jvm)
			adv_finding__evidence(f, ADV_SRC_TARGET, "in a JVM", "-XX:+UseNUMA");
		break;
	}
}

bool adv_rule_numa_placement(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_numa *n = &ctx->p->numa;
	const struct adv_host_numa *hn = &ctx->h->numa;
	bool host = adv_cal__usable(ctx->h, ADV_FAM_NUMA);
	double now_ns = 0, now_gbs = 0, penalty = 0;
	enum numa_action a;
	struct placement pl;
	char buf[ADV_VALUE_LEN];

	/* One node: nothing about this program; the report's host line
	 * says the host has one node. */
	if (n->nodes <= 1)
		return false;
	measure(n, &pl);
	if (pl.pages <= 0 || pl.run <= 0) {
		adv_finding__init(f, ADV_INFO, "NUMA placement: no placement data for the target");
		adv_finding__evidence(f, ADV_SRC_TARGET, "NUMA nodes", "%u, but the target's pages or CPUs per node were not read",
				      n->nodes);
		adv_finding__recommend(f, "Run as root so that /proc/%d/numa_maps can be read.", ctx->p->target.pid);
		f->confidence = 0.3;
		return true;
	}
	if (host && hn->local_ns > 0) {
		now_ns = hn->local_ns * (1 - pl.remote) + hn->remote_ns * pl.remote;
		now_gbs = hn->local_gbs * (1 - pl.remote) + hn->remote_gbs * pl.remote;
		penalty = now_ns / hn->local_ns - 1;
	}
	if (pl.remote < ADV_NUMA_REMOTE_MIN)
		a = LEAVE;
	else if (pl.run_nodes == 1)
		a = BIND;
	else if (pl.mem_share >= ADV_NUMA_CONCENTRATED)
		/* Interleaving pays where this host measured it faster, in
		 * latency or in bandwidth (all threads' traffic then no longer
		 * goes through one node's memory controller). */
		a = host && hn->interleaved_ns >= now_ns && hn->interleaved_gbs <= now_gbs ?
		    LEAVE : INTERLEAVE;
	else
		a = PER_NODE;

	adv_finding__init(f, a == LEAVE || !host ? ADV_INFO :
			  penalty >= ADV_NUMA_CRIT ? ADV_CRITICAL :
			  penalty >= ADV_NUMA_WARN ? ADV_WARNING : ADV_INFO,
			  "NUMA placement: %s of the target's memory on node%u, threads on %u node%s",
			  adv_fmt_pct(pl.mem_share).s, pl.mem_node, pl.run_nodes, pl.run_nodes == 1 ? "" : "s");
	adv_finding__evidence(f, ADV_SRC_TARGET, "NUMA nodes", "%u", n->nodes);
	spread(n->pages, pl.nodes, pl.pages, buf, sizeof(buf));
	adv_finding__evidence(f, ADV_SRC_TARGET, "memory (numa_maps)", "%s of %s pages", buf,
			      adv_fmt_count(pl.pages).s);
	spread(n->cpus_used, pl.nodes, pl.run, buf, sizeof(buf));
	adv_finding__evidence(f, ADV_SRC_TARGET, "where threads ran", "%s", buf);
	adv_finding__evidence(f, ADV_SRC_TARGET, "remote accesses", "%s expected (threads touching pages evenly)",
			      adv_fmt_pct(pl.remote).s);
	if (host) {
		adv_finding__evidence(f, ADV_SRC_HOST, "memory latency", "local %s, remote %s (%s), interleaved %s",
				      adv_fmt_ns(hn->local_ns).s, adv_fmt_ns(hn->remote_ns).s,
				      adv_fmt_ratio(hn->local_ns > 0 ? hn->remote_ns / hn->local_ns : 0).s,
				      adv_fmt_ns(hn->interleaved_ns).s);
		adv_finding__evidence(f, ADV_SRC_HOST, "bandwidth", "local %s, remote %s, interleaved %s",
				      adv_fmt_gbs(hn->local_gbs).s, adv_fmt_gbs(hn->remote_gbs).s,
				      adv_fmt_gbs(hn->interleaved_gbs).s);
		adv_finding__evidence(f, ADV_SRC_HOST, "latency over all-local", "%s expected now",
				      adv_fmt_pct(penalty).s);
		adv_finding__evidence(f, ADV_SRC_HOST, "placement now", "~%s, ~%s expected",
				      adv_fmt_ns(now_ns).s, adv_fmt_gbs(now_gbs).s);
	}
	recommend(ctx, f, a, &pl);
	/* The even-access assumption is the weak link: threads may touch
	 * mostly their own pages. */
	f->confidence = 0.7 * adv_cal__note(f, ctx->h, ADV_FAM_NUMA, 0.5);
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/* hostcal.c: what the advisor may take from this host's calibration. */
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "hostcal.h"

static const struct {
	unsigned bit;
	const char *key;
} families[] = {
	{ ADV_FAM_FALSE_SHARING, "false_sharing" },
	{ ADV_FAM_SPIN_HINT, "spin_hint" },
	{ ADV_FAM_SPIN_THRESHOLD, "spin_threshold" },
	{ ADV_FAM_HOST_COSTS, "host_costs" },
	{ ADV_FAM_NUMA, "numa" },
	{ ADV_FAM_MEMORY_ORDER, "memory_order" },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

static bool family_present(const struct adv_host *h, unsigned bit)
{
	switch (bit) {
	case ADV_FAM_FALSE_SHARING: return h->false_sharing.present;
	case ADV_FAM_SPIN_HINT: return h->spin_hint.present;
	case ADV_FAM_SPIN_THRESHOLD: return h->spin_threshold.present;
	case ADV_FAM_HOST_COSTS: return h->host_costs.present;
	case ADV_FAM_NUMA: return h->numa.present;
	case ADV_FAM_MEMORY_ORDER: return h->memory_order.present;
	}
	return false;
}

bool adv_cal__usable(const struct adv_host *h, unsigned family)
{
	return h->present && h->matches && family_present(h, family);
}

/* "spin_threshold,host_costs" for the families in mask. */
static void family_list(unsigned mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < NFAMILIES; i++) {
		int n;

		if (!(mask & families[i].bit))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", families[i].key);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += n;
	}
}

double adv_cal__note(struct adv_finding *f, const struct adv_host *h, unsigned wanted,
		     double weight)
{
	unsigned missing = 0;
	char list[96];

	for (size_t i = 0; i < NFAMILIES; i++)
		if ((wanted & families[i].bit) && !adv_cal__usable(h, families[i].bit))
			missing |= families[i].bit;
	if (!missing)
		return 1.0;
	family_list(missing, list, sizeof(list));
	if (!h->present)
		adv_finding__evidence(f, ADV_SRC_HOST, "calibration",
				      "none stored for this host: no host figures used, confidence lowered");
	else if (h->unreadable)
		adv_finding__evidence(f, ADV_SRC_HOST, "calibration",
				      "the stored one cannot be used (%.100s): no host figures used, confidence lowered",
				      h->mismatch_reason[0] ? h->mismatch_reason : "unreadable");
	else if (missing & h->rejected)
		adv_finding__evidence(f, ADV_SRC_HOST, "calibration",
				      "stored figures rejected (%.100s): not used, confidence lowered",
				      h->rejected_reason);
	else if (!h->matches)
		adv_finding__evidence(f, ADV_SRC_HOST, "calibration",
				      "stored one is for another host (%.100s): not used, confidence lowered",
				      h->mismatch_reason[0] ? h->mismatch_reason : "fingerprint differs");
	else
		adv_finding__evidence(f, ADV_SRC_HOST, "calibration",
				      "%s not measured on this host: confidence lowered", list);
	adv_finding__recommend(f, "Calibrate: `spinscope calibrate --only %s`.", list);
	return 1.0 - weight;
}

double adv_cal__handoff_ns(const struct adv_host *h, uint32_t ncpus)
{
	const struct adv_host_costs *c = &h->host_costs;

	if (!adv_cal__usable(h, ADV_FAM_HOST_COSTS))
		return 0;
	/* A waker and its wakee on different CPUs is the common case for a lock
	 * handoff; with one CPU there is no other. */
	if (ncpus > 1 && c->futex_handoff_cross_ns > 0)
		return c->futex_handoff_cross_ns;
	return c->futex_handoff_same_ns;
}

double adv_cal__yield_ns(const struct adv_host *h, double yields_per_switch)
{
	const struct adv_host_costs *c = &h->host_costs;

	if (!adv_cal__usable(h, ADV_FAM_HOST_COSTS))
		return 0;
	/* Two or more yields per switch: most found nothing else to run and
	 * came straight back, so they cost what a lone yield costs. */
	if (yields_per_switch >= 2.0 || c->yield_peer_ns <= 0)
		return c->yield_alone_ns;
	return c->yield_peer_ns;
}

double adv_cal__trace_ns(const struct adv_host *h)
{
	return adv_cal__usable(h, ADV_FAM_HOST_COSTS) ? h->host_costs.trace_event_ns : 0;
}

double adv_cal__futex_call_ns(const struct adv_host *h)
{
	return adv_cal__usable(h, ADV_FAM_HOST_COSTS) ? h->host_costs.futex_call_ns : 0;
}

/* Hints that back off in a spin loop, per architecture. */
static bool hint_fit(const char *arch, const char *name)
{
	bool arm = strstr(arch, "aarch64") || strstr(arch, "arm64");
	bool x86 = strstr(arch, "x86") != NULL;

	if (!strcmp(name, "pause"))
		return !arm;
	if (!strcmp(name, "isb") || !strcmp(name, "sb"))
		return !x86;
	return false;
}

const struct adv_hint *adv_cal__hint(const struct adv_host *h)
{
	const struct adv_host_spin_hint *s = &h->spin_hint;
	const struct adv_hint *best = NULL;

	if (!adv_cal__usable(h, ADV_FAM_SPIN_HINT))
		return NULL;
	for (size_t i = 0; i < s->nhints && i < ADV_MAX_HINTS; i++) {
		const struct adv_hint *x = &s->hints[i];

		if (!x->available || x->ns <= 0 || !hint_fit(s->arch, x->name))
			continue;
		if (!best || x->ns < best->ns)
			best = x;
	}
	return best;
}

const struct adv_best *adv_cal__best(const struct adv_host *h, bool heavy)
{
	const struct adv_best *b;

	if (!adv_cal__usable(h, ADV_FAM_SPIN_THRESHOLD))
		return NULL;
	b = heavy ? &h->spin_threshold.heavy : &h->spin_threshold.light;
	return b->strategy[0] ? b : NULL;
}

const char *adv_cal__region_words(const struct adv_host *h, bool heavy, char *buf, size_t len)
{
	const struct adv_region *g = heavy ? &h->spin_threshold.heavy_region :
					     &h->spin_threshold.light_region;

	buf[0] = 0;
	if (!adv_cal__best(h, heavy) || !g->size)
		return buf;
	if (!g->separated)
		snprintf(buf, len, "; the sweep could not separate the strategies (%s)",
			 g->full ? "calibrate on idle --cpus" : "calibrate --full");
	else if (g->n_max > g->n_min)
		snprintf(buf, len, "; any N from %u to %u as good here", g->n_min, g->n_max);
	return buf;
}

/* The configurations two states' regions share, judged from their
 * preferred strategies' spin ranges alone: files from before the regions
 * listed their members as configurations. */
static bool ranges_overlap(const struct adv_distance_state *a, const struct adv_distance_state *b,
			   uint32_t *lo, uint32_t *hi)
{
	*lo = a->region.n_min > b->region.n_min ? a->region.n_min : b->region.n_min;
	*hi = a->region.n_max < b->region.n_max ? a->region.n_max : b->region.n_max;
	return !strcmp(a->best.strategy, b->best.strategy) && *lo <= *hi;
}

/* Calibrate's order among equivalent configurations (preference() in
 * user/calib/calib_spin_threshold.c): parking first, as it degrades best
 * when the holder is descheduled, then the fewest spins. */
static int config_rank(const struct adv_lock_config *c)
{
	static const char *const order[] = { "spin_then_park", "spin_then_yield",
					     "spin_yield_repeat", "pthread_mutex", "spin" };
	int rank = 5;

	for (int i = 0; i < 5; i++)
		if (!strcmp(c->strategy, order[i]))
			rank = i;
	return rank;
}

static bool has_member(const struct adv_distance_state *s, const struct adv_lock_config *c)
{
	for (size_t i = 0; i < s->nmembers; i++)
		if (s->members[i].n == c->n && !strcmp(s->members[i].strategy, c->strategy))
			return true;
	return false;
}

/*
 * What both regions hold, from their members: the preferred shared
 * configuration in *pick, and *lo..*hi the counts of its strategy from
 * there on that both share with no swept count between missing (a file
 * without spins_swept: the pick's count alone). A region that met the other state's best among its
 * members (one that could not separate the strategies, say) shares it,
 * whatever its own preferred strategy.
 */
static bool members_overlap(const struct adv_distance_state *a, const struct adv_distance_state *b,
			    struct adv_lock_config *pick, uint32_t *lo, uint32_t *hi)
{
	const struct adv_lock_config *best = NULL;

	for (size_t i = 0; i < a->nmembers; i++) {
		const struct adv_lock_config *c = &a->members[i];

		if (!has_member(b, c))
			continue;
		if (!best || config_rank(c) < config_rank(best) ||
		    (config_rank(c) == config_rank(best) && c->n < best->n))
			best = c;
	}
	if (!best)
		return false;
	*pick = *best;
	*lo = *hi = best->n;
	/* Up from the pick (the fewest spins of its strategy both share)
	 * while every count the sweep tried is shared: "any N from lo to hi"
	 * must hold for each count between. */
	for (size_t i = 0; i < a->nswept; i++) {
		struct adv_lock_config next = *best;

		if (a->swept[i] <= best->n)
			continue;
		next.n = a->swept[i];
		if (!has_member(a, &next) || !has_member(b, &next))
			break;
		*hi = next.n;
	}
	return true;
}

bool adv_cal__lock_choice(const struct adv_host *h, bool heavy, struct adv_lock_choice *c)
{
	const struct adv_distance_states *st;

	memset(c, 0, sizeof(*c));
	if (!(c->best = adv_cal__best(h, heavy)))
		return false;
	snprintf(c->strategy, sizeof(c->strategy), "%s", c->best->strategy);
	c->n = c->best->n;
	st = heavy ? &h->spin_threshold.heavy_states : &h->spin_threshold.light_states;
	/* Both states need a region of their own to be compared. */
	if (st->n != 2 || !st->s[0].best.strategy[0] || !st->s[1].best.strategy[0])
		return true;
	c->near = &st->s[0];
	c->far = &st->s[1];
	if (c->near->nmembers && c->far->nmembers) {
		struct adv_lock_config pick;

		if (members_overlap(c->near, c->far, &pick, &c->n_min, &c->n_max)) {
			c->states = ADV_LOCK_STATES_AGREE;
			snprintf(c->strategy, sizeof(c->strategy), "%s", pick.strategy);
			c->n = pick.n;
			return true;
		}
	} else if (ranges_overlap(c->near, c->far, &c->n_min, &c->n_max)) {
		c->states = ADV_LOCK_STATES_AGREE;
		snprintf(c->strategy, sizeof(c->strategy), "%s", c->near->best.strategy);
		c->n = c->n_min;
		return true;
	}
	c->states = ADV_LOCK_STATES_DIFFER;
	c->n_min = c->n_max = 0;
	return true;
}

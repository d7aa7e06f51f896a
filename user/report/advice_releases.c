// SPDX-License-Identifier: GPL-2.0
/*
 * The advisor's view of who holds each lock: the release sites and holders
 * of model/releases.h, named as the waiters' stacks are (advice.h), for
 * the words used as locks only (a condition variable's signallers hold
 * nothing).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "advice.h"
#include "model/counters.h"
#include "model/releases.h"

static void name_site(struct adv_release_site *a, const struct ss_release_site *s,
		      const struct ss_stacks *stacks)
{
	const struct ss_stack *st = stacks__find(stacks, s->stack_id);
	struct advice_stack_name sn;

	a->threads = s->threads;
	SS_COUNTERS_COPY(SS_RELEASE_COUNTERS, a, &s->v);
	if (!st || !st->frames || !st->depth) {
		snprintf(a->name, sizeof(a->name), "%s", s->stack_id < 0 ? "[no user stack]" : "[unnamed]");
		return;
	}
	advice__name_stack(st->frames, st->depth, &sn);
	snprintf(a->name, sizeof(a->name), "%s", sn.name);
	snprintf(a->frame, sizeof(a->frame), "%s", sn.frame);
	a->user_named = sn.user_named;
}

/* One word's sites and holders, into the arrays at *sites and *holders
 * (advanced past them). */
static int add_word(struct adv_futex *f, const struct ss_futex_rec *r, const struct ss_profile *p,
		    const struct ss_stacks *stacks, struct adv_release_site **sites,
		    struct adv_holder **holders)
{
	struct ss_release_site *s;
	struct ss_holder *h;
	long ns = releases_sites(r, &s), nh;

	if (ns < 0)
		return -ENOMEM;
	nh = releases_holders(r, &h);
	if (nh < 0) {
		free(s);
		return -ENOMEM;
	}
	f->release_sites = *sites;
	f->nrelease_sites = (size_t)ns;
	for (long i = 0; i < ns; i++)
		name_site(&(*sites)[i], &s[i], stacks);
	f->holders = *holders;
	f->nholders = (size_t)nh;
	for (long i = 0; i < nh; i++) {
		struct adv_holder *a = &(*holders)[i];

		a->tid = h[i].tid;
		snprintf(a->comm, sizeof(a->comm), "%.*s", (int)sizeof(a->comm) - 1,
			 profile_thread_comm(p, h[i].tid) ?: "");
		a->releases = h[i].releases;
		a->also_waits = h[i].also_waits;
	}
	*sites += ns;
	*holders += nh;
	free(s);
	free(h);
	return 0;
}

int advice__add_releases(struct advice_input *in, const struct ss_profile *p,
			 const struct ss_stacks *stacks)
{
	struct adv_release_site *sites;
	struct adv_holder *holders;
	size_t n = 0;

	for (size_t i = 0; i < p->nfutexes; i++)
		n += p->futexes[i].nreleases;
	in->release_sites = calloc(n + 1, sizeof(*in->release_sites));
	in->holders = calloc(n + 1, sizeof(*in->holders));
	if (!in->release_sites || !in->holders)
		return -ENOMEM;
	sites = in->release_sites;
	holders = in->holders;
	/* Every word's: the advisor decides which are locks by who woke
	 * them (a condition variable's signallers hold nothing, and its
	 * rules never call them holders). */
	for (size_t i = 0; i < p->nfutexes; i++) {
		if (add_word(&in->futexes[i], &p->futexes[i], p, stacks, &sites, &holders))
			return -ENOMEM;
	}
	return 0;
}

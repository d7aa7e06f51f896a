// SPDX-License-Identifier: GPL-2.0
/*
 * rule_lock_blocking.c: blocking while holding a contended lock. The
 * holders of a contended lock were off CPU outside any futex wait (in I/O,
 * a sleep, a poll) while they held it for a large part of the trace
 * (held_blocked_ns, bpf/trace.h; one holder at a time, so at most the
 * trace): the waiters wait for the disk or the timer, not for the work
 * under the lock.
 */
#include <math.h>
#include <stdio.h>
#include "finding.h"
#include "format.h"
#include "rules.h"

bool adv_rule_lock_blocking(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;

	for (size_t i = 0; i < m->nhot; i++) {
		const struct adv_futex *fx = m->hot[i].fx;
		const struct adv_release_site *site = NULL;
		double held = 0, blocked = 0, share;
		char name[ADV_NAME_LEN];

		for (size_t k = 0; fx->release_sites && k < fx->nrelease_sites; k++) {
			const struct adv_release_site *s = &fx->release_sites[k];

			held += (double)s->held_contended_ns;
			blocked += (double)s->held_blocked_ns;
			if (!site || s->held_blocked_ns > site->held_blocked_ns)
				site = &fx->release_sites[k];
		}
		share = fmin(1.0, blocked / m->dur_ns);
		if (!site || share < ADV_HELD_BLOCKED_SHARE)
			continue;
		adv_word_name(fx, name, sizeof(name));
		adv_finding__init(f, m->hot[i].share >= ADV_LOCK_WARN_SHARE ? ADV_WARNING : ADV_INFO,
				  "Blocking under a lock: %.90s was held by a thread asleep in I/O or a timer %s of the trace",
				  name, adv_fmt_pct(share).s);
		adv_finding__evidence(f, ADV_SRC_TARGET, "lock", "%.140s", name);
		adv_finding__evidence(f, ADV_SRC_TARGET, "holder off CPU, not in a futex", "%s while holding it, %s of the trace",
				      adv_fmt_ns(blocked).s, adv_fmt_pct(share).s);
		if (held > 0)
			adv_finding__evidence(f, ADV_SRC_TARGET, "held while contended", "%s measured (lower bounds of the holds)",
					      adv_fmt_ns(held).s);
		if (site->user_named || site->name[0])
			adv_finding__evidence(f, ADV_SRC_TARGET, "released at", "%.140s",
					      site->frame[0] ? site->frame : site->name);
		adv_finding__evidence(f, ADV_SRC_TARGET, "waiters' time on it", "%s", adv_fmt_pct(m->hot[i].share).s);
		adv_finding__recommend(f, "Move the I/O or sleep out of the critical section%s%.100s: prepare and publish under the lock, write or sync after releasing it (or batch the syncs: group commit).",
				       site->user_named ? " released in " : "", site->user_named ? site->name : "");
		f->confidence = adv_clamp01(0.55 + 0.4 * share);
		return true;
	}
	return false;
}

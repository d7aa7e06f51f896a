// SPDX-License-Identifier: GPL-2.0
/*
 * verdict.c: each finding in one line a person acts on: what it is in a
 * few words, where in the user's code, and what it costs in time or CPUs.
 * Read from the figures the rules used and the finding's own evidence, so
 * that no rule repeats it; the report puts these lines first.
 */
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "rules.h"

/* The evidence labels that name the place in the user's code, in the
 * order tried. */
static const char *const place_labels[] = {
	"lock", "yield call site", "spinning function", "cache-miss hot spot",
	"fence-heavy hot spot", "spinning code", "word", "barrier", "waited on most", "instruction",
};

/* Evidence that already says the cost, by rules whose cost is not one of
 * the target's times. */
static const char *const cost_labels[] = {
	"possible saving", "latency over all-local", "woken for nothing",
	"waiting for the round", "their time waiting for each other",
	"holder off CPU, not in a futex", "samples on it", "waiters' time taking it",
	"waiters' time parked",
};

static const char *evidence_value(const struct adv_finding *f, const char *label)
{
	for (size_t i = 0; i < f->nevidence; i++)
		if (!strcmp(f->evidence[i].label, label))
			return f->evidence[i].value;
	return NULL;
}

static const struct {
	const char *id, *what;
} whats[] = {
	{ "spin-yield", "sched_yield spin loop" },
	{ "spin-loop", "busy-wait spin loop" },
	{ "futex-contention", "lock contention" },
	{ "parked-lock", "lock contention" },
	{ "blocking-under-lock", "blocking under a lock" },
	{ "wake-herd", "thundering herd" },
	{ "barrier-imbalance", "barrier imbalance" },
	{ "serialization", "threads taking turns" },
	{ "true-sharing", "true sharing" },
	{ "oversubscription", "more runnable threads than CPUs" },
	{ "false-sharing", "false sharing" },
	{ "spin-hint", "spin-wait hint" },
	{ "numa-placement", "NUMA placement" },
	{ "memory-order", "fence-heavy code" },
	{ "jvm-runtime", "JVM runtime" },
	{ "host-busy", "busy host" },
};

static void cost(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_metrics *m = &ctx->m;
	size_t size = sizeof(f->cost);

	if (!strcmp(f->id, "futex-contention") && m->nhot) {
		const struct adv_hot_lock *hl = &m->hot[0];
		double waiters = hl->fx->waiters ? hl->fx->waiters : 1;

		snprintf(f->cost, size, "%.0f thread%s lost %s of %s waiting on it (%s of their time)",
			 waiters, waiters == 1 ? "" : "s",
			 adv_fmt_ns(hl->share * waiters * m->dur_ns).s,
			 adv_fmt_ns(waiters * m->dur_ns).s, adv_fmt_pct(hl->share).s);
	} else if (!strcmp(f->id, "spin-yield") && m->spinners > 0) {
		snprintf(f->cost, size, "%.2f of %u CPUs spent spinning", m->spin_cpu, m->ncpus);
	} else if (!strcmp(f->id, "spin-loop") && m->spin_loop) {
		snprintf(f->cost, size, "%.2f of %u CPUs spent spinning",
			 m->spin_loop_share * m->cpu_used, m->ncpus);
	} else if (!strcmp(f->id, "oversubscription")) {
		snprintf(f->cost, size, "each wait for a CPU lasts %s on average (run-queue delay)",
			 adv_fmt_ns(m->runq_mean_ns).s);
	} else {
		for (size_t i = 0; i < sizeof(cost_labels) / sizeof(cost_labels[0]); i++) {
			const char *v = evidence_value(f, cost_labels[i]);

			if (v) {
				snprintf(f->cost, size, "%s", v);
				break;
			}
		}
	}
}

void adv_verdict__fill(const struct adv_ctx *ctx, struct adv_finding *f)
{
	for (size_t i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
		if (!strcmp(whats[i].id, f->id))
			snprintf(f->what, sizeof(f->what), "%s", whats[i].what);
	/* The yield site's evidence carries its call count: the frame alone. */
	if (!strcmp(f->id, "spin-yield") && ctx->m.top_site && ctx->m.top_site->frame[0]) {
		snprintf(f->where, sizeof(f->where), "%s", ctx->m.top_site->frame);
		cost(ctx, f);
		return;
	}
	/* A lock in the program's language ("std::sync::Mutex in bump_shared"). */
	if (!strcmp(f->id, "futex-contention") && ctx->m.nhot) {
		adv_word_name(ctx->p, ctx->m.hot[0].fx, f->where, sizeof(f->where));
		cost(ctx, f);
		return;
	}
	for (size_t i = 0; i < sizeof(place_labels) / sizeof(place_labels[0]); i++) {
		const char *v = evidence_value(f, place_labels[i]);

		if (v) {
			snprintf(f->where, sizeof(f->where), "%s", v);
			break;
		}
	}
	cost(ctx, f);
}

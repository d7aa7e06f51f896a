// SPDX-License-Identifier: GPL-2.0
/*
 * critical_section.c: which critical section makes a lock contended (see
 * critical_section.h). A release site is a wake call that found waiters:
 * the unlock of the hold that kept them waiting. Its held-while-contended
 * figures are lower bounds (bpf/trace.h), said as such.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "critical_section.h"
#include "finding.h"
#include "format.h"
#include "metrics.h"

/* ADV_RELEASE_DOMINANT: one release site with half the time the lock was
 * held while others waited is the section to shorten; below that the
 * holds are spread and each is named. ADV_CONVOY_SHARE: holders that also
 * wait for the lock making half the releases are a convoy. */

/* How long a site kept the lock held while others waited: its usual hold
 * (the lower quartile of its bounds) times the holds measured. A holder
 * preempted under the lock stretches its hold to milliseconds, and those
 * holds are the likeliest to be measured (a waiter arrives during them):
 * the upper part of the distribution is the scheduler's on a loaded host,
 * the lower quartile is the section's own length, what shortening its
 * code changes. */
static double held_weight(const struct adv_release_site *s)
{
	return adv_hist_quantile(s->held_contended_hist, SS_HIST_SLOTS, 0.25) *
	       (double)s->held_contended;
}

static double held_total(const struct adv_futex *fx, bool by_time)
{
	double n = 0;

	for (size_t i = 0; i < fx->nrelease_sites; i++)
		n += by_time ? held_weight(&fx->release_sites[i]) :
			       (double)fx->release_sites[i].wakes;
	return n;
}

static double wakes_total(const struct adv_futex *fx)
{
	return held_total(fx, false);
}

const struct adv_release_site *adv_release_top(const struct adv_futex *fx, double *share)
{
	const struct adv_release_site *best = NULL;
	bool by_time = held_total(fx, true) > 0;
	double total = held_total(fx, by_time);

	*share = 0;
	for (size_t i = 0; i < fx->nrelease_sites; i++) {
		const struct adv_release_site *s = &fx->release_sites[i];

		if (!best || (by_time ? held_weight(s) > held_weight(best) : s->wakes > best->wakes))
			best = s;
	}
	if (best && total > 0)
		*share = (by_time ? held_weight(best) : (double)best->wakes) / total;
	return best;
}

/* "flush_queue" of "flush_queue+0x84 (app)". */
static void frame_function(const char *frame, char *buf, size_t size)
{
	const char *plus = strstr(frame, "+0x");

	snprintf(buf, size, "%.*s", plus ? (int)(plus - frame) : (int)strlen(frame), frame);
}

/* How a site is called in findings: its function when the stack reached
 * the user's code, else the runtime frame and that it stops there. */
static void site_words(const struct adv_release_site *s, char *buf, size_t size)
{
	char fn[ADV_NAME_LEN];

	if (!s->user_named) {
		snprintf(buf, size, "%.80s", s->name);
		return;
	}
	frame_function(s->frame, fn, sizeof(fn));
	snprintf(buf, size, "%.100s", fn);
}

static void held_line(const struct adv_release_site *s, char *buf, size_t size)
{
	double max = (double)s->held_contended_ns_max;
	char fn[ADV_NAME_LEN];

	site_words(s, fn, sizeof(fn));
	if (!s->held_contended) {
		snprintf(buf, size, "%.60s: not measured (no waiter it woke began waiting during its holds)", fn);
		return;
	}
	/* No quantile above the largest bound measured. */
	snprintf(buf, size, "%.60s: median %s, p90 %s, max %s over %s holds measured", fn,
		 adv_fmt_ns(fmin(max, adv_hist_quantile(s->held_contended_hist, SS_HIST_SLOTS, 0.5))).s,
		 adv_fmt_ns(fmin(max, adv_hist_quantile(s->held_contended_hist, SS_HIST_SLOTS, 0.9))).s,
		 adv_fmt_ns(max).s,
		 adv_fmt_count((double)s->held_contended).s);
}

/* Share of the releases made by holders that wait for the lock too. */
static double convoy_share(const struct adv_futex *fx, size_t *waiting)
{
	double all = 0, both = 0;

	*waiting = 0;
	for (size_t i = 0; i < fx->nholders; i++) {
		all += (double)fx->holders[i].releases;
		if (fx->holders[i].also_waits) {
			both += (double)fx->holders[i].releases;
			(*waiting)++;
		}
	}
	return all > 0 ? both / all : 0;
}

static bool convoy(const struct adv_futex *fx)
{
	size_t waiting;

	return fx->nholders >= 2 && convoy_share(fx, &waiting) >= ADV_CONVOY_SHARE;
}

static void holders_line(const struct adv_futex *fx, char *buf, size_t size)
{
	double wakes = wakes_total(fx);
	size_t len = 0, waiting;

	len += snprintf(buf, size, "%zu thread%s:", fx->nholders, fx->nholders == 1 ? "" : "s");
	for (size_t i = 0; i < fx->nholders && i < 3 && len < size; i++)
		len += snprintf(buf + len, size - len, "%s %u %.16s %s", i ? "," : "",
				fx->holders[i].tid, fx->holders[i].comm,
				adv_fmt_pct(wakes > 0 ? (double)fx->holders[i].releases / wakes : 0).s);
	if (fx->nholders > 3 && len < size)
		len += snprintf(buf + len, size - len, ", %zu more", fx->nholders - 3);
	if (convoy(fx) && len < size) {
		double c = convoy_share(fx, &waiting);

		snprintf(buf + len, size - len, "; %zu also wait for it (%s of releases): a convoy",
			 waiting, adv_fmt_pct(c).s);
	}
}

/* The site after top by the same order (held time, then wakes). */
static const struct adv_release_site *runner_up(const struct adv_futex *fx,
						const struct adv_release_site *top)
{
	const struct adv_release_site *next = NULL;

	for (size_t i = 0; i < fx->nrelease_sites; i++) {
		const struct adv_release_site *s = &fx->release_sites[i];

		if (s == top)
			continue;
		if (!next || held_weight(s) > held_weight(next) ||
		    (held_weight(s) == held_weight(next) && s->wakes > next->wakes))
			next = s;
	}
	return next;
}

void adv_critical_section_evidence(const struct adv_futex *fx, struct adv_finding *f)
{
	const struct adv_release_site *top, *next;
	char words[ADV_NAME_LEN], line[ADV_VALUE_LEN], other[ADV_VALUE_LEN];
	double share, wakes = wakes_total(fx);

	top = adv_release_top(fx, &share);
	if (!top)
		return;
	site_words(top, words, sizeof(words));
	if (top->user_named)
		adv_finding__evidence(f, ADV_SRC_TARGET, "critical section",
				      "held in %.60s (release at %.50s, %s of contended releases)", words,
				      top->frame,
				      adv_fmt_pct(wakes > 0 ? (double)top->wakes / wakes : 0).s);
	else
		adv_finding__evidence(f, ADV_SRC_TARGET, "critical section",
				      "not named: the release stack does not reach the user's code (%.60s, %s of contended releases)",
				      top->name, adv_fmt_pct(wakes > 0 ? (double)top->wakes / wakes : 0).s);
	/* The label says what the figure is: from the earliest wait a
	 * release woke, begun during the hold, to that release (bpf/trace.h). */
	held_line(top, line, sizeof(line));
	next = runner_up(fx, top);
	other[0] = 0;
	if (next) {
		char n[ADV_VALUE_LEN];

		held_line(next, n, sizeof(n));
		snprintf(other, sizeof(other), "; %s", n);
	}
	adv_finding__evidence(f, ADV_SRC_TARGET, "held while contended (lower bound)", "%.75s%.80s",
			      line, other);
	holders_line(fx, line, sizeof(line));
	adv_finding__evidence(f, ADV_SRC_TARGET, "holders", "%s", line);
}

bool adv_critical_section_where(const struct adv_futex *fx, char *buf, size_t size)
{
	const struct adv_release_site *top;
	char words[ADV_NAME_LEN];
	double share;

	top = adv_release_top(fx, &share);
	if (!top || !top->user_named)
		return false;
	site_words(top, words, sizeof(words));
	snprintf(buf, size, "in %s, where it is held %s", words,
		 share >= ADV_RELEASE_DOMINANT ? "longest" : "longest of several places");
	return true;
}

void adv_critical_section_recommend(const struct adv_futex *fx, struct adv_finding *f)
{
	const struct adv_release_site *top;
	char words[ADV_NAME_LEN];
	double share;

	top = adv_release_top(fx, &share);
	if (!top)
		return;
	site_words(top, words, sizeof(words));
	if (!top->user_named)
		adv_finding__recommend(f, "Find the code that holds it: its release stacks stop in the runtime.");
	else if (share >= ADV_RELEASE_DOMINANT)
		adv_finding__recommend(f, "Move out what does not need the lock (I/O, allocation).");
	else
		adv_finding__recommend(f, "Shorten the longest-held sections first (%.60s, the largest, makes %s of the contended hold).",
				       words, adv_fmt_pct(share).s);
	if (convoy(fx))
		adv_finding__evidence(f, ADV_SRC_TARGET, "convoy", "its holders queue for it again: while the section stays this long, more threads only add waiting");
}

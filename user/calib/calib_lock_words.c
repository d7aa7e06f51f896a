// SPDX-License-Identifier: GPL-2.0
/*
 * The advisor's lock strategy from a calibration, in words (see
 * calib_lock_words.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include "calib_host.h"
#include "calib_lock_words.h"
#include "advisor/hostcal.h"

static void range_words(uint32_t lo, uint32_t hi, char *buf, size_t len)
{
	if (hi > lo)
		snprintf(buf, len, " (any N from %u to %u)", lo, hi);
	else
		buf[0] = 0;
}

static void choice_words(const struct adv_host *h, bool heavy, const struct adv_lock_choice *c,
			 char *buf, size_t len)
{
	char range[96];

	switch (c->states) {
	case ADV_LOCK_STATES_DIFFER:
		snprintf(buf, len, "depends on the CPUs' distance: %s N=%u at %.0f ns, %s N=%u at %.0f ns%s",
			 c->near->best.strategy, c->near->best.n, c->near->round_trip_ns,
			 c->far->best.strategy, c->far->best.n, c->far->round_trip_ns,
			 c->near->carried_from[0] || c->far->carried_from[0] ?
			 " (the states of two calibration runs)" : "");
		return;
	case ADV_LOCK_STATES_AGREE:
		range_words(c->n_min, c->n_max, range, sizeof(range));
		snprintf(buf, len, "%s N=%u%s, good in both CPU-distance states (%.0f ns, %.0f ns apart)",
			 c->strategy, c->n, range, c->near->round_trip_ns, c->far->round_trip_ns);
		return;
	default:	/* one verdict: the level's own region */
		snprintf(buf, len, "%s N=%u%s", c->strategy, c->n,
			 adv_cal__region_words(h, heavy, range, sizeof(range)));
		return;
	}
}

const char *calib_lock__advice_words(const json_object *results, bool heavy, char *buf, size_t len)
{
	struct adv_host *h = calloc(1, sizeof(*h));
	struct adv_lock_choice c;
	struct utsname u;

	buf[0] = 0;
	if (!h)
		return buf;
	uname(&u);
	calib_host__fill(results, u.machine, h);
	if (adv_cal__lock_choice(h, heavy, &c))
		choice_words(h, heavy, &c, buf, len);
	free(h);
	return buf;
}

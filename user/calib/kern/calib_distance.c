// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs' distance during a measurement (calib_distance.h): time-boxed
 * cache-line round trips between two CPUs.
 */
#include "calib_distance.h"
#include "calib_host_kern.h"
#include "calib_util.h"

#define DISTANCE_REP_BUDGET_NS 1000000.0
#define DISTANCE_RUN_BUDGET_NS 200000.0
#define DISTANCE_MIN_TRIPS 16
#define DISTANCE_PILOT_TRIPS 32
#define DISTANCE_PILOTS 3

static double distance_trips(const struct calib_distance *d, uint64_t trips)
{
	uint64_t final;
	double ns;

	if (d->a < 0 || !trips || calib_hc__c2c(d->a, d->b, trips, &ns, &final) ||
	    final != 2 * trips)
		return 0;
	return ns;
}

void calib_distance__plan(struct calib_distance *d, int a, int b)
{
	double ns;

	d->a = a;
	d->b = b;
	d->n = 0;
	d->rep_trips = d->run_trips = 0;
	/* The fastest of a few pilots: one that a descheduled vCPU stretched
	 * (milliseconds) would switch the short readings off for the whole
	 * family, as it did in one of five runs here. */
	ns = 0;
	for (int i = 0; a >= 0 && i < DISTANCE_PILOTS; i++) {
		double p = distance_trips(d, DISTANCE_PILOT_TRIPS);

		if (p > 0 && (ns <= 0 || p < ns))
			ns = p;
	}
	if (ns <= 0) {
		d->a = -1;
		return;
	}
	d->rep_trips = calib__iters_for(DISTANCE_REP_BUDGET_NS, ns, DISTANCE_MIN_TRIPS, 2000);
	d->run_trips = ns * DISTANCE_MIN_TRIPS <= DISTANCE_RUN_BUDGET_NS ?
		       calib__iters_for(DISTANCE_RUN_BUDGET_NS, ns, DISTANCE_MIN_TRIPS, 500) : 0;
}

void calib_distance__read(struct calib_distance *d)
{
	if (d->a < 0 || d->n >= CALIB_DISTANCE_MAX)
		return;
	d->ns[d->n++] = distance_trips(d, d->rep_trips);
}

double calib_distance__once(const struct calib_distance *d)
{
	return distance_trips(d, d->run_trips);
}

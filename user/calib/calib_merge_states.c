// SPDX-License-Identifier: GPL-2.0
/*
 * Carrying a stored lock verdict of the other CPU-distance state into a
 * new spin_threshold result (see calib_merge.h). On a VM whose vCPUs move
 * between cores that share a cache and cores that do not, one calibration
 * run often meets one state only, and the best lock strategy differs
 * between the two: replacing the stored family with each new run made the
 * advice follow whichever state the last run met. Keeping the other
 * state's verdict beside the new one lets the advisor recommend what holds
 * in both, or say that nothing does.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "calib_json.h"
#include "calib_merge.h"
#include "calib/kern/calib_stat.h"

/* Whether two round trips are two states, not one: CALIB_DISTANCE_CHANGE
 * apart, as within one run. */
static bool other_state(double a, double b)
{
	return a > 0 && b > 0 && (a >= CALIB_DISTANCE_CHANGE * b || b >= CALIB_DISTANCE_CHANGE * a);
}

/* at ("2026-12-02 17:29:05 UTC", as measured_at) in seconds since the
 * epoch; false when it does not read so. */
static bool utc_seconds(const char *at, time_t *out)
{
	struct tm tm = { 0 };
	char tail[4] = "";

	if (!at || sscanf(at, "%d-%d-%d %d:%d:%d %3s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, tail) != 7 || strcmp(tail, "UTC"))
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = timegm(&tm);
	return *out != (time_t)-1;
}

bool calib_merge__too_old(const char *from, const char *now)
{
	time_t f, n;

	return utc_seconds(from, &f) && utc_seconds(now, &n) && n - f > CALIB_CARRY_MAX_AGE_S;
}

/* A state entry {"round_trip_ns", "share", "region", "carried_from"?}. */
static json_object *state_entry(double rt, double share, json_object *region, const char *from)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "round_trip_ns", json_object_new_double(rt));
	json_object_object_add(o, "share", json_object_new_double(share));
	json_object_object_add(o, "region", json_object_get(region));
	if (from)
		json_object_object_add(o, "carried_from", json_object_new_string(from));
	return o;
}

/*
 * The stored level's verdict for a state other than rt (the new run's):
 * one of its own two states, or its whole verdict when it met one state.
 * NULL when it has none with a region, or when that verdict was measured
 * more than CALIB_CARRY_MAX_AGE_S before now (fresh's time). A state the
 * stored level carried itself keeps its first run's time: it ages from
 * when it was measured, not from when it was last carried.
 */
static json_object *stored_other(const json_object *old, double rt, const char *old_at,
				 const char *now)
{
	json_object *dist = json_object_object_get(old, "cpu_distance");
	json_object *states = json_object_object_get(dist, "states"), *region;
	double ort;

	if (json_object_is_type(states, json_type_array)) {
		for (size_t i = 0; i < calib_json__len(states); i++) {
			json_object *st = calib_json__at(states, i);
			const char *from = calib_json__string(st, "carried_from", old_at);

			region = json_object_object_get(st, "region");
			ort = calib_json__double(st, "round_trip_ns", 0);
			if (region && json_object_object_get(region, "pick") && other_state(rt, ort) &&
			    !calib_merge__too_old(from, now))
				return state_entry(ort, calib_json__double(st, "share", 0), region, from);
		}
		return NULL;
	}
	region = json_object_object_get(old, "region");
	ort = calib_json__distance_ns(dist);
	if (!region || !json_object_object_get(region, "pick") || !other_state(rt, ort) ||
	    calib_merge__too_old(old_at, now))
		return NULL;
	return state_entry(ort, 1, region, old_at);
}

/* Whether key holds the same JSON value in a and b (both absent too). */
static bool same(const json_object *a, const json_object *b, const char *key)
{
	json_object *x = json_object_object_get(a, key), *y = json_object_object_get(b, key);

	return (!x && !y) || (x && y && json_object_equal(x, y));
}

/* One level: fresh met one state (no states of its own), old has a
 * verdict for another, measured the same way: the same threads on the
 * same two CPUs (a verdict from another --cpus or thread count answers
 * another question). */
static bool carry_level(json_object *fresh, const json_object *old, const char *old_at,
			const char *now)
{
	json_object *dist = json_object_object_get(fresh, "cpu_distance"), *states, *other, *mine;
	json_object *region = json_object_object_get(fresh, "region");
	double rt = calib_json__distance_ns(dist);

	if (!dist || json_object_object_get(dist, "states") || !json_object_object_get(region, "pick") ||
	    rt <= 0)
		return false;
	if (!same(fresh, old, "threads") ||
	    !same(dist, json_object_object_get(old, "cpu_distance"), "cpus"))
		return false;
	other = stored_other(old, rt, old_at, now);
	if (!other)
		return false;
	mine = state_entry(rt, 1, region, NULL);
	states = json_object_new_array();
	/* Nearest first, as calibrate writes them. */
	bool mine_near = rt < calib_json__double(other, "round_trip_ns", 0);

	json_object_array_add(states, mine_near ? mine : other);
	json_object_array_add(states, mine_near ? other : mine);
	json_object_object_add(dist, "states", states);
	return true;
}

int calib_merge__carry_states(json_object *fresh, const json_object *stored)
{
	static const char *const levels[] = { "light", "heavy" };
	const char *old_at = calib_json__string(stored, "measured_at", "an earlier run");
	const char *now = calib_json__string(fresh, "measured_at", NULL);
	json_object *busy = json_object_object_get(stored, "busy");
	int carried = 0;

	/* A busy host's verdict, or one of another lock workload (the work
	 * inside and outside the lock, the spin hint), is not this host's
	 * other state. */
	if (json_object_get_boolean(json_object_object_get(busy, "busy")) ||
	    !same(fresh, stored, "cs_work") || !same(fresh, stored, "outside_work") ||
	    !same(fresh, stored, "spin_hint"))
		return 0;

	for (int i = 0; i < 2; i++) {
		json_object *f = json_object_object_get(json_object_object_get(fresh, "contention"),
							levels[i]);
		json_object *o = json_object_object_get(json_object_object_get(stored, "contention"),
							levels[i]);

		if (f && o)
			carried += carry_level(f, o, old_at, now);
	}
	return carried;
}

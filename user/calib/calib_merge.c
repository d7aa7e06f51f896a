// SPDX-License-Identifier: GPL-2.0
/*
 * Merging a calibration run into the stored one (see calib_merge.h).
 */
#include <stdio.h>
#include <string.h>
#include "calib_host.h"
#include "calib_json.h"
#include "calib_merge.h"

static json_object *get(const json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool flag(const json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_get_boolean(v);
}

double calib_merge__busy_score(const json_object *family)
{
	json_object *busy = get(family, "busy"), *others = get(busy, "others_cpu_share");

	if (!busy)
		return 0;
	if (!others || json_object_is_type(others, json_type_null))
		return flag(busy, "busy") ? 1.0 : 0.0;
	return json_object_get_double(others) + calib_json__double(busy, "steal_frac", 0);
}

/* Measured in full: not skipped, failed or interrupted. */
static bool complete(const json_object *f)
{
	return f && !flag(f, "skipped") && !get(f, "error") && !flag(f, "partial");
}

const char *calib_merge__conditions(const json_object *family, char *buf, size_t len)
{
	json_object *busy = get(family, "busy"), *others = get(busy, "others_cpu_share");
	const char *at = calib_json__string(family, "measured_at", NULL);
	const char *mode = calib_json__string(family, "mode", NULL);
	double mhz = calib_json__double(busy, "cpu_mhz", 0);
	size_t n;

	n = (size_t)snprintf(buf, len, "%s%s%s", at ? at : "time not recorded",
			     mode ? " by --" : "", mode ? mode : "");
	if (!busy) {
		snprintf(buf + n, n < len ? len - n : 0, ", load not recorded");
		return buf;
	}
	if (others && !json_object_is_type(others, json_type_null))
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0,
				      ", other processes %.0f%% of the CPUs",
				      json_object_get_double(others) * 100);
	n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", steal %.0f%%, load %.2f",
			      calib_json__double(busy, "steal_frac", 0) * 100,
			      calib_json__double(busy, "load1", 0));
	if (mhz > 0)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, ", %.0f MHz (%s)", mhz,
				      calib_json__string(busy, "cpu_mhz_source", "?"));
	if (flag(busy, "busy"))
		snprintf(buf + n, n < len ? len - n : 0, ": busy");
	return buf;
}

/* Whether the stored family should stay; writes why into text. */
static bool keep_stored(const char *key, const json_object *old, const json_object *new,
			bool force, char *text, size_t len)
{
	char cond_old[200], cond_new[200];
	double s_old, s_new;

	/* Absurd stored figures (calib_host.h's checks) protect nothing. */
	if (!complete(old) || !calib_host__family_valid(key, old, text, len))
		return false;
	calib_merge__conditions(old, cond_old, sizeof(cond_old));
	calib_merge__conditions(new, cond_new, sizeof(cond_new));
	if (flag(new, "partial") || get(new, "error") || flag(new, "skipped")) {
		snprintf(text, len, "%s: kept the complete figures measured %s; this run's were %s "
			 "and were not saved", key, cond_old,
			 flag(new, "partial") ? "interrupted" : get(new, "error") ? "a failure" :
			 "skipped");
		return true;
	}
	if (force)
		return false;
	s_old = calib_merge__busy_score(old);
	s_new = calib_merge__busy_score(new);
	if (flag(get(new, "busy"), "busy") && s_new > s_old + CALIB_MERGE_QUIETER) {
		snprintf(text, len, "%s: kept the figures measured on a quieter host (%s); this "
			 "run's (%s) were not saved: rerun when the host is quiet, or give --force to "
			 "replace them", key, cond_old, cond_new);
		return true;
	}
	/* The longer run's figures are the steadier ones: a --quick run
	 * replaces them only from a quieter host, or once they are old. */
	if (!calib_json__full_run(old) || calib_json__full_run(new) || s_new + CALIB_MERGE_QUIETER < s_old ||
	    calib_merge__too_old(calib_json__string(old, "measured_at", NULL),
				 calib_json__string(new, "measured_at", NULL)))
		return false;
	snprintf(text, len, "%s: kept the figures of a --full run (%s); this --quick run's (%s) "
		 "were not saved: run --full, or give --force to replace them", key, cond_old,
		 cond_new);
	return true;
}

/* What replaces a stored family: this run's, with the stored lock verdict
 * of a CPU-distance state this run did not meet (a copy: fresh is the
 * printed document's too). A stored family that is incomplete or fails
 * calib_host.h's checks lends nothing. */
static json_object *replacement(const char *key, const json_object *old, json_object *val)
{
	json_object *copy = NULL;
	char why[200];

	if (!old || strcmp(key, "spin_threshold") || !complete(old) || !complete(val) ||
	    !calib_host__family_valid(key, old, why, sizeof(why)) ||
	    json_object_deep_copy(val, &copy, NULL))
		return json_object_get(val);
	/* A carried state that would fail the advisor's checks would only
	 * drop both states at every trace: nothing is carried then. */
	if (calib_merge__carry_states(copy, old) && !calib_host__states_valid(copy, why, sizeof(why))) {
		json_object_put(copy);
		return json_object_get(val);
	}
	return copy;
}

json_object *calib_merge__results(const json_object *stored, const json_object *fresh,
				  bool force, struct calib_merge_note *notes, size_t max,
				  size_t *nnotes)
{
	json_object *out = json_object_new_object();

	*nnotes = 0;
	if (!out)
		return NULL;
	json_object_object_foreach((json_object *)fresh, key, val) {
		json_object *old = get(stored, key);
		char text[sizeof(notes->text)];

		if (old && keep_stored(key, old, val, force, text, sizeof(text))) {
			json_object_object_add(out, key, json_object_get(old));
			if (*nnotes < max) {
				snprintf(notes[*nnotes].family, sizeof(notes->family), "%s", key);
				snprintf(notes[*nnotes].text, sizeof(notes->text), "%s", text);
				(*nnotes)++;
			}
			continue;
		}
		json_object_object_add(out, key, replacement(key, old, val));
	}
	/* Families this run did not measure stay as they were. */
	if (stored) {
		json_object_object_foreach((json_object *)stored, skey, sval)
			if (!get(out, skey))
				json_object_object_add(out, skey, json_object_get(sval));
	}
	return out;
}

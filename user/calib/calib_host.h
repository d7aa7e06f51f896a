/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between a stored calibration and the advisor: fills struct adv_host from
 * the saved "results" JSON, and says which families a report's findings
 * rest on, so that `spinscope -p` measures just those when none is stored.
 */
#ifndef SPINSCOPE_CALIB_HOST_H
#define SPINSCOPE_CALIB_HOST_H

#include <signal.h>
#include <stddef.h>
#include <json-c/json.h>
#include "advisor/advisor.h"

/* Fills h's families from results (measured on this host: present and
 * matches are set). Families absent or skipped stay !present; so do those
 * with a figure that is not finite, not positive where it must be, or out
 * of physical bounds (0.05 ns to 1 s per hint, 10 ns to 1 s per handoff,
 * ...): they are counted in h->rejected with the field in rejected_reason. */
void calib_host__fill(const json_object *results, const char *machine, struct adv_host *h);

/* Whether one stored family (results[key]) passes those checks; why gets
 * the field and value when not. */
bool calib_host__family_valid(const char *key, const json_object *family_obj, char *why,
			      size_t len);

/* Whether a spin_threshold family passes those checks with its
 * CPU-distance states too (which, bad, are dropped rather than the
 * family: calib_host.c's judge_states); why as above. */
bool calib_host__states_valid(const json_object *spin_threshold, char *why, size_t len);

/* Comma-separated calibrate families ("host_costs,spin_threshold") that
 * the findings in r rest on and h lacks; "" when none. Returns buf. */
const char *calib_host__needed(const struct adv_report *r, const struct adv_host *h, char *buf,
			       size_t len);

/* The same, decided before the advisor runs: the families that the
 * findings of advisor__run(p, h) will rest on (advisor__will_find) and h
 * lacks, in the rules' order. Returns buf. */
const char *calib_host__wanted(const struct adv_profile *p, const struct adv_host *h, char *buf,
			       size_t len);

/* The saved calibration (path NULL: the default place) as h: filled when it
 * matches this host (a warning on stderr per rejected family), present but
 * !matches with the differing field when it is another host's, present,
 * !matches and unreadable (with a warning) when it cannot be parsed, is too
 * large or of another schema, !present when there is none. Returns 0 or
 * the calib__load_matching error. */
int calib_host__load(struct adv_host *h, const char *path, const char *machine);

/* Runs `spinscope calibrate --quick --only families [-o path]` quietly
 * (output discarded, mask restored in the child, which dies with us); its
 * results land where calib_host__load finds them. 0 or -errno/-EIO. */
int calib_host__measure(const char *families, const char *path, const sigset_t *mask);

#endif

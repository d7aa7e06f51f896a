/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `spinscope -p` adds to its report so that it stands as a recording
 * (docs/RECORDING.md): where each frame's code lives, this host's
 * fingerprint and the calibration the advice used. Read while the target
 * and this host are at hand.
 */
#ifndef SPINSCOPE_TRACE_RECORD_H
#define SPINSCOPE_TRACE_RECORD_H

#include <json-c/json.h>
#include "advisor/advisor.h"
#include "model/samples_result.h"
#include "model/stacks.h"
#include "syms/syms.h"

/* Fills every stack's where[]: module path, build-id (read through
 * /proc/PID/root) and file offset of each frame's (call) address. 0 or
 * -ENOMEM; frames that cannot be placed stay unknown. */
int trace_record__locate(struct ss_stacks *s, struct syms *syms, int pid);

/* Copies the sampled user stacks of sr into out, one per stack id (their
 * ips; frames and where[] are filled by the caller). 0 or -ENOMEM. */
int trace_record__sample_stacks(const struct samples_result *sr, struct ss_stacks *out);

/* This host's fingerprint as calibrate stores it, or NULL. */
json_object *trace_record__fingerprint(void);

/* {present, matches, mismatch_reason, families_used, results}: the stored
 * calibration (path NULL: the store) as the advice saw it, and the
 * families its findings rest on. NULL on no memory. */
json_object *trace_record__calibration(const char *path, const char *machine,
				       const struct adv_report *advice);

#endif

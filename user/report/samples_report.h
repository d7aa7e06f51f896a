/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the samples say, for people and tools: ranking by leaf address or
 * function, the JSON "samples" object, folded stacks and the text section.
 * Pure functions of a samples_result (model/samples_result.h); names come
 * from the caller's symbolize callback.
 */
#ifndef SPINSCOPE_SAMPLES_REPORT_H
#define SPINSCOPE_SAMPLES_REPORT_H

#include <stdio.h>
#include <json-c/json.h>
#include "model/samples_result.h"

/* Samples aggregated on one leaf instruction address. */
struct samples_leaf {
	__u64 ip;
	__u64 count;
};

/* Aggregates the result's samples by leaf IP (stackless samples are left
 * out), most samples first, ties by address. *out is malloc'd. Returns the
 * number of entries or -ENOMEM. */
long samples__rank_leaves(const struct samples_result *r, struct samples_leaf **out);

/* Samples aggregated on one named function. */
struct samples_top {
	char *symbol;			/* "[unknown]" / "[no user stack]" too */
	char *module;			/* NULL when unknown */
	__u64 count;
};

/* Aggregates leaf IPs by the (symbol, module) symbolize returns, most
 * samples first, ties by name. symbolize may be NULL (names become
 * "0x..." addresses). Returns the number of entries or -ENOMEM. */
long samples__top(const struct samples_result *r, samples_symbolize_fn symbolize, void *arg,
		  struct samples_top **out);
void samples__top_free(struct samples_top *t, long n);

/* The JSON "samples" object: event, available, reason (when unavailable),
 * period, frequency_hz, total, dropped, top [{symbol, module, count}],
 * threads [{tid, samples, counters...}] and counters {available, reason}.
 * NULL on allocation failure. */
/* The JSON keys of the sample drops (samples.dropped), by enum ss_sample_drop. */
extern const char *const samples_drop_keys[SS_SAMPLE_DROPS];

json_object *samples__to_json(const struct samples_result *r, samples_symbolize_fn symbolize,
			      void *arg);

/* Writes folded stacks, "kind;root;...;leaf count" per line, one line per
 * distinct symbolized stack (kind_prefix NULL: no kind frame). Returns 0 or
 * -EIO when the write failed. */
int samples__write_folded(const struct samples_result *r, FILE *f, samples_symbolize_fn symbolize,
			  void *arg, const char *kind_prefix);

/* Text section: top_n functions with counts and shares, per-thread counters
 * and miss ratios, the drop counts when non-zero, or one notice line when
 * unavailable. Returns 0 or -EIO. */
int samples__print_text(const struct samples_result *r, FILE *f, samples_symbolize_fn symbolize,
			void *arg, int top_n);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a recording (docs/RECORDING.md) back into the model: profile,
 * stacks, samples and what the report says about the target and host, so
 * that the renderers and the advisor run on it as on a live trace. No BPF,
 * no root, nothing read from this host. The file is untrusted: every field
 * is type- and range-checked, a missing one reads as 0 or empty, and what
 * cannot be a recording is refused with one line.
 */
#ifndef SPINSCOPE_RECORDING_READ_H
#define SPINSCOPE_RECORDING_READ_H

#include <stdbool.h>
#include <json-c/json.h>
#include "advisor/advisor.h"
#include "common/procfs.h"
#include "report.h"

/* Threads, futexes, stacks, frames: more than this is not one of ours. */
#define SS_RECORDING_MAX_ITEMS 1000000

struct recording_addr {			/* one named address */
	__u64 ip;			/* as asked: a caller's return address - 1 */
	const char *name, *module;	/* function and path; NULL: unknown */
	const struct ss_frame_where *where;	/* its frame's, NULL: unknown */
	char *owned;			/* name, when not in the document */
};

struct ss_recording {
	json_object *doc;		/* owned; strings below point into it */
	int major, minor;		/* 0.0: a schema 1 report from before */
	struct host_info host;
	struct ss_profile prof;
	struct ss_stacks stacks;
	struct ss_stacks sample_stacks;	/* the samples' stacks (since 1.1) */
	struct samples_result sres;
	bool have_sres;
	/* The names of every address the samples and stacks hold, sorted by
	 * ip, for the renderers that name addresses (folded, samples). */
	struct recording_addr *addrs;
	size_t naddrs;
	struct recording_addr *sample_addrs;	/* the samples' part of it */
	size_t nsample_addrs;
	struct kernel_features kernel;	/* when the recording has them */
	struct ss_report rep;		/* points into the above */
	/* The advisor's input besides the model ("advisor_input"). */
	bool have_input;
	__u32 ncpus;
	bool is_jvm;
	enum adv_runtime runtime;	/* "runtime"; unknown when absent (older ones) */
	/* "python_functions" and "python_read" (adv_target's), when there */
	char python_functions[ADV_NAME_LEN];
	bool python_read;
	struct adv_sample_sym *samples_top;
	size_t nsamples_top;
	struct adv_fence_spot *fences;
	size_t nfences;
	struct adv_spin_loop *spin_loops;	/* since 1.1; none in older ones */
	size_t nspin_loops;
	/* advisor_input.parked_samples: a parking word's address and its
	 * waiter's samples, all and where it parks from (struct adv_futex's
	 * waiter_samples, acquire_samples); none in older ones. */
	struct ss_parked_samples {
		__u64 uaddr, waiter, acquire;
	} *parked_samples;
	size_t nparked_samples;
	struct adv_numa numa;
	json_object *calibration;	/* borrowed from doc, or NULL */
	json_object *intervals;		/* borrowed from doc, or NULL */
	/* The samples' data addresses (advisor_input.data_addresses, since
	 * issue 33); data.accesses points into data_accesses. */
	struct adv_data_addrs data;
	struct adv_data_access *data_accesses;
};

/* Reads path (zstd or plain JSON). Returns 0, or an SS_EXIT_* code with
 * why set to one line: SS_EXIT_USAGE for a file that is not a readable
 * recording (missing, truncated, corrupt, too large, a newer major). */
int recording__read(const char *path, struct ss_recording *rec, char *why, size_t whylen);
/* The document of any recording (a -p report or top's), parsed only:
 * 0, or an exit code with "cannot read the recording PATH: why". */
int recording__open(const char *path, json_object **doc, char *why, size_t whylen);
/* The same from a parsed document, which rec takes over (also on failure). */
int recording__from_json(json_object *doc, struct ss_recording *rec, char *why, size_t whylen);
void recording__free(struct ss_recording *rec);

/* The recording's entry for an address as the renderers ask for it (a
 * caller's return address - 1), or NULL. */
const struct recording_addr *recording__find_addr(const struct ss_recording *rec, __u64 ip);
/* Names an address from the recording (samples_symbolize_fn). */
const char *recording__sym_name(void *rec, __u64 ip, const char **module);
/* Rebuilds the names recording__sym_name gives from the stacks' frames, as
 * after renaming them (report --symbols). 0 or -ENOMEM. */
int recording__index_names(struct ss_recording *rec);

/* Stacks of a 0.x recording kept no addresses: each frame gets one from
 * here up (kernel half: never user code), so that names can be found. */
#define SS_RECORDING_NO_IP_BASE 0xffff800000000000ull
/* ... and those of sampled stacks (their ids are the sampler's own). */
#define SS_RECORDING_NO_IP_BASE_SAMPLES 0xffffc00000000000ull

#endif

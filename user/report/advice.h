/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the trace and the advisor: fills the advisor's plain input structs
 * from a trace profile, its stacks and samples, and the stored calibration,
 * and renders the findings as text and JSON. The advisor itself stays pure.
 */
#ifndef SPINSCOPE_ADVICE_H
#define SPINSCOPE_ADVICE_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "advisor/advisor.h"
#include "model/profile.h"
#include "model/samples_result.h"
#include "model/stacks.h"
#include "syms/data_addr.h"

/* Storage behind an adv_profile's arrays. */
struct advice_input {
	struct adv_profile profile;
	struct adv_thread *threads;
	struct adv_futex *futexes;
	struct adv_yield_site *yields;
	struct adv_sample_sym *samples;
	struct adv_fence_spot *fences;
	struct adv_spin_loop *spin_loops;
	struct adv_release_site *release_sites;	/* behind the futexes' */
	struct adv_holder *holders;
	struct adv_data_access *data;	/* behind profile.data */
	struct data_addr_stats data_stats;	/* what decoding the samples did */
};

struct advice_target {
	int pid;
	const char *comm;
	bool is_jvm;
	int ncpus;			/* CPUs the target may run on */
	__u64 duration_ns;
	struct adv_host_load host_load;	/* the whole host during the trace */
	bool light;			/* --light: no futex syscall seen, so no wake pattern */
	enum adv_runtime runtime;	/* for the wording (advisor/runtime.h) */
	/* adv_target.python_functions and python_read; NULL: not tried */
	const char *python_functions;
	bool python_read;
};

/* Fills in->profile from the trace (sr may be NULL). 0 or -ENOMEM. */
int advice__build_profile(struct advice_input *in, const struct advice_target *tgt,
			  const struct ss_profile *p, const struct ss_stacks *stacks,
			  const struct samples_result *sr, samples_symbolize_fn sym, void *sym_arg);
void advice__free_input(struct advice_input *in);

/* A stack as findings name it, from frame strings "func+0x12 (module)",
 * innermost first. */
struct advice_stack_name {
	/* The first frame in code the user owns and the runtime function it
	 * called: "worker in app (via pthread_mutex_lock in libc)"; the
	 * innermost frame alone ("__lll_lock_wait in libc") when the stack
	 * never leaves the runtime. */
	char name[ADV_NAME_LEN];
	bool user_named;
	/* That first frame of the user's code as it is: "worker+0x2b (app)";
	 * "" when the stack never leaves the runtime. */
	char frame[ADV_NAME_LEN];
	/* The runtime's frames' functions, innermost first, " <- " between. */
	char runtime[ADV_NAME_LEN];
	/* The stack's two outermost functions, outermost first, " -> "
	 * between: where a walk that never reached the user's code stopped
	 * ("_complete_monitor_locking_Java -> SharedRuntime::complete_monitor_locking_C",
	 * a JVM without frame pointers), the call it was in. */
	char outer[ADV_NAME_LEN];
};

/* Fills each lock word's release sites and holders (advice_releases.c)
 * into in->futexes, which mirror p->futexes. 0 or -ENOMEM. */
int advice__add_releases(struct advice_input *in, const struct ss_profile *p,
			 const struct ss_stacks *stacks);

/* Decodes the samples' registers into in->profile.data (advice_data.c),
 * when they were captured. 0 or -ENOMEM. */
int advice__add_data(struct advice_input *in, int pid, const struct samples_result *sr);

/* Counts each parking word's waiter's samples, and those taken at the
 * place it parks from, into in->futexes, which mirror p->futexes
 * (advice_acquire.c). 0 or -ENOMEM. */
int advice__add_acquire_samples(struct advice_input *in, const struct ss_profile *p,
				const struct ss_stacks *stacks, const struct samples_result *sr,
				samples_symbolize_fn sym, void *sym_arg);

/* Names a stack (see struct advice_stack_name). Pure. */
void advice__name_stack(char *const *frames, int depth, struct advice_stack_name *out);

/* A lock's name wherever one is shown (findings, metrics, diff): its
 * heaviest waiter stack that resolves, one that reaches the user's code
 * preferred to a heavier one that does not. false (out empty) when none of
 * its stacks has frames. */
bool advice__lock_name(const struct ss_futex_rec *r, const struct ss_stacks *stacks,
		       struct advice_stack_name *out);
/* A sched_yield site's name, as the findings give it: its stack's. false
 * (out empty) when the stack has no frames. */
bool advice__site_name(__s32 stack_id, const struct ss_stacks *stacks,
		       struct advice_stack_name *out);

/* The Advice section of the text report. */
void advice__print_text(const struct adv_report *r, FILE *out);
/* The "advice" array of the JSON report. */
json_object *advice__to_json(const struct adv_report *r);

#endif

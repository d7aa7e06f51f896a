// SPDX-License-Identifier: GPL-2.0
/*
 * A parking word's waiter on a CPU where it parks from: its samples whose
 * stack is placed as the word's waits are (the same frame of the user's
 * code in the same runtime call, or the same place where a walk stopped
 * short of the user's code) are time spent taking the lock without
 * sleeping. Adaptive locks spin there before they park (HotSpot's
 * monitors, glibc's adaptive mutexes, Go's sync.Mutex), and the longer
 * they spin the less they park: a lock graded by its waiters' time parked
 * alone reads as quiet exactly when its waiters burn CPUs on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "advice.h"
#include "bpf/common.h"		/* SS_MAX_STACK_DEPTH */

/* A frame as the waiters' stacks name theirs (syms__format): "func+0x0
 * (module)", "module+0x0" without a symbol, "[unknown]" without either. */
static void format_frame(samples_symbolize_fn sym, void *arg, __u64 ip, char *buf, size_t len)
{
	const char *module = NULL, *name = sym(arg, ip, &module);
	const char *base = module ? strrchr(module, '/') : NULL;

	base = base ? base + 1 : module;
	if (name && base)
		snprintf(buf, len, "%s+0x0 (%s)", name, base);
	else if (base)
		snprintf(buf, len, "%s+0x0", base);
	else
		snprintf(buf, len, "[unknown]");
}

/* Where a stack is: its name when it reaches the user's code (the user's
 * frame and the runtime call it made), else where its walk stopped (a
 * JVM without frame pointers stops at the stub that called into it). */
static void place_of(const struct advice_stack_name *sn, char *buf, size_t len)
{
	if (sn->user_named)
		snprintf(buf, len, "%s", sn->name);
	else
		snprintf(buf, len, "[stopped] %s", sn->outer);
}

/* Each single-waiter word's place, as its name was chosen (the same
 * stack: advice__lock_name); "" for the others. */
static char (*word_places(const struct advice_input *in, const struct ss_profile *p,
			  const struct ss_stacks *stacks))[ADV_NAME_LEN]
{
	char (*places)[ADV_NAME_LEN] = calloc(p->nfutexes + 1, sizeof(*places));
	struct advice_stack_name sn;

	for (size_t i = 0; places && i < p->nfutexes; i++)
		if (in->futexes[i].sole_waiter && advice__lock_name(&p->futexes[i], stacks, &sn))
			place_of(&sn, places[i], sizeof(places[i]));
	return places;
}

/* The word tid alone waits on from place, or NULL. */
static struct adv_futex *parked_at(struct advice_input *in, char (*places)[ADV_NAME_LEN],
				   __u32 tid, const char *place)
{
	for (size_t i = 0; i < in->profile.nfutexes; i++)
		if (in->futexes[i].sole_waiter == tid && !strcmp(places[i], place))
			return &in->futexes[i];
	return NULL;
}

static bool waits_alone(const struct advice_input *in, char (*places)[ADV_NAME_LEN], __u32 tid)
{
	for (size_t i = 0; i < in->profile.nfutexes; i++)
		if (in->futexes[i].sole_waiter == tid && places[i][0])
			return true;
	return false;
}

int advice__add_acquire_samples(struct advice_input *in, const struct ss_profile *p,
				const struct ss_stacks *stacks, const struct samples_result *sr,
				samples_symbolize_fn sym, void *sym_arg)
{
	char (*frames)[ADV_NAME_LEN] = NULL, (*places)[ADV_NAME_LEN], place[ADV_NAME_LEN];
	char *ptrs[SS_MAX_STACK_DEPTH];

	if (!sr || !sr->available || !sym || !stacks)
		return 0;
	places = word_places(in, p, stacks);
	if (!places)
		return -ENOMEM;
	for (size_t i = 0; i < sr->nr_stacks; i++) {
		const struct samples_stack *s = &sr->stacks[i];
		struct advice_stack_name sn;
		struct adv_futex *f;
		__u32 depth = s->depth < SS_MAX_STACK_DEPTH ? s->depth : SS_MAX_STACK_DEPTH;

		/* only the threads that park alone are asked about (cheap) */
		if (!depth || !waits_alone(in, places, s->tid))
			continue;
		if (!frames && !(frames = calloc(SS_MAX_STACK_DEPTH, sizeof(*frames)))) {
			free(places);
			return -ENOMEM;
		}
		for (__u32 d = 0; d < depth; d++) {
			/* return addresses name their call (ip - 1) */
			format_frame(sym, sym_arg, d ? s->ips[d] - 1 : s->ips[d], frames[d], sizeof(frames[d]));
			ptrs[d] = frames[d];
		}
		advice__name_stack(ptrs, (int)depth, &sn);
		place_of(&sn, place, sizeof(place));
		f = parked_at(in, places, s->tid, place);
		if (f)
			f->acquire_samples += s->count;
	}
	free(frames);
	for (size_t i = 0; i < in->profile.nfutexes; i++) {
		struct adv_futex *f = &in->futexes[i];

		for (size_t t = 0; f->sole_waiter && t < sr->nr_threads; t++)
			if (sr->threads[t].tid == f->sole_waiter)
				f->waiter_samples = sr->threads[t].samples;
		/* A stopped place that holds all of its thread's samples is
		 * where every walk of that thread ends (its start, or a frame
		 * no walk gets past), not a call it makes: nothing to say. */
		if (!strncmp(places[i], "[stopped]", 9) && f->acquire_samples >= f->waiter_samples)
			f->acquire_samples = 0;
	}
	free(places);
	return 0;
}

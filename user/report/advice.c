// SPDX-License-Identifier: GPL-2.0
/* Trace to advisor input, and advisor output to text and JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "advice.h"
#include "samples_report.h"
#include "syms/hot_insns.h"

/* "func+0x12 (module)" -> "func"; "module+0x40" and "0x..." stay as they are. */
static void frame_function(const char *frame, char *buf, size_t len)
{
	const char *plus = strstr(frame, "+0x"), *paren = strstr(frame, " (");

	if (plus && paren && plus < paren)
		snprintf(buf, len, "%.*s", (int)(plus - frame), frame);
	else
		snprintf(buf, len, "%s", frame);
}

/* " (module)" of a frame string, or "" */
static const char *frame_module(const char *frame)
{
	const char *m = strstr(frame, " (");

	return m ? m : "";
}

void advice__lock_name(char *const *frames, int depth, char *buf, size_t len)
{
	char inner[128], fn[128];

	buf[0] = 0;
	if (depth <= 0)
		return;
	frame_function(frames[0], inner, sizeof(inner));
	/* The lock's user is the first frame outside the module that waits
	 * (libc for a pthread mutex): "worker (app) via __lll_lock_wait". */
	for (int d = 1; d < depth; d++) {
		if (!strcmp(frame_module(frames[d]), frame_module(frames[0])))
			continue;
		frame_function(frames[d], fn, sizeof(fn));
		snprintf(buf, len, "%s%s via %s", fn, frame_module(frames[d]), inner);
		return;
	}
	snprintf(buf, len, "%s%s", inner, frame_module(frames[0]));
}

/* "func (module-basename)": how samples' top symbols are named here. */
static void sample_name(const char *symbol, const char *module, char *buf, size_t len)
{
	const char *base = module ? strrchr(module, '/') : NULL;

	snprintf(buf, len, "%s%s%s%s", symbol, module ? " (" : "",
		 module ? (base ? base + 1 : module) : "", module ? ")" : "");
}

/* A function writes shared data when this share of its samples sits on
 * atomic read-modify-writes; it is a fence hot spot likewise. */
#define HOT_INSN_SHARE 0.3
/* Leaf addresses examined: the heaviest ones carry nearly all samples. */
#define HOT_INSN_LEAVES 256

/*
 * Marks the top sampled functions whose samples sit on atomic RMWs (they
 * write data other threads write) and lists those that sit on full fences,
 * from the target's own code bytes.
 */
static int classify_hot_code(struct advice_input *in, int pid, const struct samples_result *sr,
			     samples_symbolize_fn sym, void *sym_arg)
{
	struct adv_profile *ap = &in->profile;
	struct samples_leaf *leaves = NULL;
	__u64 *atomic, *fence;
	long nleaves;
	size_t nf = 0;

	nleaves = samples__rank_leaves(sr, &leaves);
	if (nleaves < 0)
		return (int)nleaves;
	atomic = calloc(ap->samples.ntop + 1, sizeof(*atomic));
	fence = calloc(ap->samples.ntop + 1, sizeof(*fence));
	in->fences = calloc(ap->samples.ntop + 1, sizeof(*in->fences));
	if (!atomic || !fence || !in->fences) {
		free(leaves);
		free(atomic);
		free(fence);
		return -ENOMEM;
	}
	for (long i = 0; i < nleaves && i < HOT_INSN_LEAVES; i++) {
		enum insn_kind k = insn__classify_at(pid, leaves[i].ip);
		const char *module = NULL, *name;
		char full[ADV_NAME_LEN];

		if (k != INSN_ATOMIC_RMW && k != INSN_FENCE)
			continue;
		name = sym ? sym(sym_arg, leaves[i].ip, &module) : NULL;
		sample_name(name ? name : "[unknown]", module, full, sizeof(full));
		for (size_t t = 0; t < ap->samples.ntop; t++)
			if (!strcmp(in->samples[t].symbol, full))
				*(k == INSN_FENCE ? &fence[t] : &atomic[t]) += leaves[i].count;
	}
	for (size_t t = 0; t < ap->samples.ntop; t++) {
		double n = (double)in->samples[t].count;

		in->samples[t].writes_shared = n > 0 && atomic[t] >= HOT_INSN_SHARE * n;
		if (n > 0 && fence[t] >= HOT_INSN_SHARE * n && sr->total) {
			snprintf(in->fences[nf].symbol, sizeof(in->fences[nf].symbol), "%s",
				 in->samples[t].symbol);
			in->fences[nf++].share = n / (double)sr->total;
		}
	}
	ap->fences = in->fences;
	ap->nfences = nf;
	free(leaves);
	free(atomic);
	free(fence);
	return 0;
}

/* The sampler's part of the input: its state, the top symbols and what
 * their hot instructions are. 0 or -ENOMEM. */
static int copy_samples(struct advice_input *in, int pid, const struct samples_result *sr,
			samples_symbolize_fn sym, void *sym_arg)
{
	struct adv_profile *ap = &in->profile;
	struct samples_top *top = NULL;
	long n = sr->available ? samples__top(sr, sym, sym_arg, &top) : 0;

	ap->samples.available = sr->available;
	snprintf(ap->samples.reason, sizeof(ap->samples.reason), "%s", sr->reason);
	snprintf(ap->samples.event, sizeof(ap->samples.event), "%s", sr->event ? sr->event : "");
	ap->samples.total = sr->total;
	if (n <= 0)
		return n < 0 ? -ENOMEM : 0;
	in->samples = calloc(n, sizeof(*in->samples));
	if (!in->samples) {
		samples__top_free(top, n);
		return -ENOMEM;
	}
	for (long i = 0; i < n; i++) {
		sample_name(top[i].symbol, top[i].module, in->samples[i].symbol,
			    sizeof(in->samples[i].symbol));
		in->samples[i].count = top[i].count;
	}
	samples__top_free(top, n);
	ap->samples.top = in->samples;
	ap->samples.ntop = n;
	return classify_hot_code(in, pid, sr, sym, sym_arg) ? -ENOMEM : 0;
}

int advice__build_profile(struct advice_input *in, const struct advice_target *tgt,
			  const struct ss_profile *p, const struct ss_stacks *stacks,
			  const struct samples_result *sr, samples_symbolize_fn sym, void *sym_arg)
{
	struct adv_profile *ap = &in->profile;

	memset(in, 0, sizeof(*in));
	in->threads = calloc(p->nthreads + 1, sizeof(*in->threads));
	in->futexes = calloc(p->nfutexes + 1, sizeof(*in->futexes));
	in->yields = calloc(p->nyields + 1, sizeof(*in->yields));
	if (!in->threads || !in->futexes || !in->yields)
		goto nomem;

	ap->duration_ns = tgt->duration_ns;
	ap->ncpus = tgt->ncpus;
	ap->target.pid = tgt->pid;
	snprintf(ap->target.comm, sizeof(ap->target.comm), "%s", tgt->comm);
	ap->target.is_jvm = tgt->is_jvm;
	ap->target.nthreads = p->nthreads;
	SS_COUNTERS_COPY(SS_THREAD_COUNTERS, &ap->totals, &p->totals);

	for (size_t i = 0; i < p->nthreads; i++) {
		in->threads[i].tid = p->threads[i].tid;
		memcpy(in->threads[i].comm, p->threads[i].comm, sizeof(in->threads[i].comm));
		SS_COUNTERS_COPY(SS_THREAD_COUNTERS, &in->threads[i].c, &p->threads[i]);
	}
	ap->threads = in->threads;
	ap->nthreads = p->nthreads;

	for (size_t i = 0; i < p->nfutexes; i++) {
		const struct ss_futex_rec *r = &p->futexes[i];
		struct adv_futex *f = &in->futexes[i];

		f->uaddr = r->uaddr;
		SS_COUNTERS_COPY(SS_FUTEX_COUNTERS, f, &r->f);
		f->waiters = r->waiters;
		/* The heaviest waiter stack names the lock. */
		for (size_t k = 0; k < r->nstacks; k++) {
			const struct ss_stack *st = stacks__find(stacks, r->stacks[k].stack_id);

			if (st && st->frames && st->depth) {
				advice__lock_name(st->frames, st->depth, f->name, sizeof(f->name));
				break;
			}
		}
	}
	ap->futexes = in->futexes;
	ap->nfutexes = p->nfutexes;

	for (size_t i = 0; i < p->nyields; i++) {
		const struct ss_stack *st = stacks__find(stacks, p->yields[i].stack_id);

		in->yields[i].count = p->yields[i].count;
		/* The first frame outside the syscall wrapper is the call site. */
		if (st && st->frames && st->depth)
			snprintf(in->yields[i].frame, sizeof(in->yields[i].frame), "%s",
				 st->frames[st->depth > 1 ? 1 : 0]);
	}
	ap->yield_sites = in->yields;
	ap->nyield_sites = p->nyields;

	if (sr && copy_samples(in, tgt->pid, sr, sym, sym_arg))
		goto nomem;
	return 0;
nomem:
	advice__free_input(in);
	return -ENOMEM;
}

void advice__free_input(struct advice_input *in)
{
	free(in->threads);
	free(in->futexes);
	free(in->yields);
	free(in->samples);
	free(in->fences);
	memset(in, 0, sizeof(*in));
}

void advice__print_text(const struct adv_report *r, FILE *out)
{
	static const char *const marks[] = { "info", "WARNING", "CRITICAL" };

	fprintf(out, "ADVICE (most severe first)\n");
	if (!r->n)
		fprintf(out, "  nothing to advise: no spinning, contention or oversubscription found\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct adv_finding *f = &r->findings[i];

		fprintf(out, "  [%s] %s (%s, confidence %.0f%%)\n", marks[f->severity], f->title, f->id,
			f->confidence * 100);
		for (size_t e = 0; e < f->nevidence; e++)
			fprintf(out, "      %-6s %-28s %s\n", advisor__source_name(f->evidence[e].source),
				f->evidence[e].label, f->evidence[e].value);
		fprintf(out, "    -> %s\n\n", f->recommendation);
	}
	/* Only a target that spins or waits on a lock has a break-even. */
	if (r->breakeven.summary[0] && (r->breakeven.spins || r->breakeven.wait_median_ns > 0))
		fprintf(out, "  Spin or park: %s\n\n", r->breakeven.summary);
}

json_object *advice__to_json(const struct adv_report *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->n; i++) {
		const struct adv_finding *f = &r->findings[i];
		json_object *o = json_object_new_object(), *ev = json_object_new_array();

		json_object_object_add(o, "id", json_object_new_string(f->id));
		json_object_object_add(o, "severity",
				       json_object_new_string(advisor__severity_name(f->severity)));
		json_object_object_add(o, "title", json_object_new_string(f->title));
		for (size_t e = 0; e < f->nevidence; e++) {
			json_object *x = json_object_new_object();

			json_object_object_add(x, "label", json_object_new_string(f->evidence[e].label));
			json_object_object_add(x, "value", json_object_new_string(f->evidence[e].value));
			json_object_object_add(x, "source",
					       json_object_new_string(advisor__source_name(f->evidence[e].source)));
			json_object_array_add(ev, x);
		}
		json_object_object_add(o, "evidence", ev);
		json_object_object_add(o, "recommendation", json_object_new_string(f->recommendation));
		json_object_object_add(o, "confidence", json_object_new_double(f->confidence));
		json_object_array_add(a, o);
	}
	return a;
}

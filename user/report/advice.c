// SPDX-License-Identifier: GPL-2.0
/* Trace to advisor input, and advisor output to text and JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "advice.h"
#include "samples_report.h"
#include "advisor/runtime.h"
#include "advisor/thresholds.h"
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

/* "module" of "func+0x12 (module)", or "" when the frame names none. */
static void frame_module(const char *frame, char *buf, size_t len)
{
	const char *m = strstr(frame, " (");
	size_t n;

	buf[0] = 0;
	if (!m)
		return;
	m += 2;
	n = strlen(m);
	if (n && m[n - 1] == ')')
		n--;
	snprintf(buf, len, "%.*s", (int)n, m);
}

/* "func in module", the module short for a runtime library ("libc"). */
static void frame_words(const char *frame, char *buf, size_t len)
{
	char fn[128], mod[128], short_mod[64];

	frame_function(frame, fn, sizeof(fn));
	frame_module(frame, mod, sizeof(mod));
	adv_module_short(mod, short_mod, sizeof(short_mod));
	if (short_mod[0])
		snprintf(buf, len, "%s in %s", fn, short_mod);
	else
		snprintf(buf, len, "%s", fn);
}

/* A chain of runtime frames too long for its array ends with the
 * outermost, the call the user's code made, whatever is cut before it:
 * Go's scheduler frames under a sync.Mutex run past 160 characters, and
 * the lock is the one the user's code took. */
static void chain_end_with(char *chain, size_t size, const char *outermost)
{
	char tail[ADV_NAME_LEN];
	int n = snprintf(tail, sizeof(tail), " <- ... <- %s", outermost);
	char *cut = NULL;

	if (n <= 0 || (size_t)n >= size / 2)
		return;
	chain[size - (size_t)n - 1] = '\0';
	for (char *p = strstr(chain, " <- "); p; p = strstr(p + 1, " <- "))
		cut = p;
	if (cut)
		snprintf(cut, size - (size_t)(cut - chain), "%s", tail);
}

void advice__name_stack(char *const *frames, int depth, struct advice_stack_name *out)
{
	char mod[128], user[ADV_NAME_LEN], via[ADV_NAME_LEN], fn[128];
	int api = -1;
	size_t len = 0;

	memset(out, 0, sizeof(*out));
	if (depth <= 0)
		return;
	frame_function(frames[depth - 1], user, sizeof(user));
	frame_function(frames[depth > 1 ? depth - 2 : 0], via, sizeof(via));
	snprintf(out->outer, sizeof(out->outer), "%.76s%s%.76s", user, depth > 1 ? " -> " : "",
		 depth > 1 ? via : "");
	for (int d = 0; d < depth; d++) {
		frame_module(frames[d], mod, sizeof(mod));
		/* the runtime's libraries, and language runtimes linked into
		 * the user's executable (Rust's std, Go's runtime) */
		if (adv_is_runtime_frame(frames[d])) {
			/* The runtime's frames, innermost first, say what the
			 * thread waits in (a lock, a condition variable...). */
			frame_function(frames[d], fn, sizeof(fn));
			len += snprintf(out->runtime + len, len < sizeof(out->runtime) ?
					sizeof(out->runtime) - len : 0, "%s%s", len ? " <- " : "", fn);
			if (len >= sizeof(out->runtime))
				len = sizeof(out->runtime);
			api = d;
			continue;
		}
		if (!mod[0])
			continue;	/* a raw address or [unknown]: nobody's code */
		/* The first frame in code the user owns, and the runtime call it
		 * made: "w in spinner (via sched_yield in libc)". */
		frame_words(frames[d], user, sizeof(user));
		snprintf(out->frame, sizeof(out->frame), "%s", frames[d]);
		if (api >= 0) {
			if (len >= sizeof(out->runtime)) {
				frame_function(frames[api], fn, sizeof(fn));
				chain_end_with(out->runtime, sizeof(out->runtime), fn);
			}
			frame_words(frames[api], via, sizeof(via));
			snprintf(out->name, sizeof(out->name), "%s (via %s)", user, via);
		} else {
			snprintf(out->name, sizeof(out->name), "%s", user);
		}
		out->user_named = true;
		return;
	}
	/* The stack never left the runtime (no frame pointers to walk out). */
	frame_words(frames[0], out->name, sizeof(out->name));
}

/* "func (module-basename)": how samples' top symbols are named here. */
static void sample_name(const char *symbol, const char *module, char *buf, size_t len)
{
	const char *base = module ? strrchr(module, '/') : NULL;

	snprintf(buf, len, "%s%s%s%s", symbol, module ? " (" : "",
		 module ? (base ? base + 1 : module) : "", module ? ")" : "");
}

/* A function writes shared data when ADV_HOT_INSN_SHARE of its samples
 * sit on atomic read-modify-writes; it is a fence hot spot likewise. */
/* Leaf addresses examined: the heaviest ones carry nearly all samples. */
#define HOT_INSN_LEAVES 256

/* Adds a leaf's samples to the spin loop of its function (one per
 * function, at most HOT_INSN_LEAVES), kept most samples first. */
static void add_spin_loop(struct advice_input *in, const char *symbol, const char *hint,
			  bool runtime, __u64 count)
{
	struct adv_profile *ap = &in->profile;
	size_t i;

	for (i = 0; i < ap->nspin_loops; i++)
		if (!strcmp(in->spin_loops[i].symbol, symbol))
			break;
	if (i == ap->nspin_loops) {
		if (i >= HOT_INSN_LEAVES)
			return;
		snprintf(in->spin_loops[i].symbol, sizeof(in->spin_loops[i].symbol), "%s", symbol);
		snprintf(in->spin_loops[i].hint, sizeof(in->spin_loops[i].hint), "%s", hint);
		in->spin_loops[i].runtime = runtime;
		ap->nspin_loops++;
	}
	in->spin_loops[i].samples += count;
	while (i > 0 && in->spin_loops[i].samples > in->spin_loops[i - 1].samples) {
		struct adv_spin_loop t = in->spin_loops[i];

		in->spin_loops[i] = in->spin_loops[i - 1];
		in->spin_loops[--i] = t;
	}
}

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
	in->spin_loops = calloc(HOT_INSN_LEAVES, sizeof(*in->spin_loops));
	if (!atomic || !fence || !in->fences || !in->spin_loops) {
		free(leaves);
		free(atomic);
		free(fence);
		return -ENOMEM;
	}
	for (long i = 0; i < nleaves && i < HOT_INSN_LEAVES; i++) {
		enum insn_kind k = insn__classify_at(pid, leaves[i].ip);
		const char *hint = insn__spin_hint_at(pid, leaves[i].ip);
		const char *module = NULL, *name;
		char full[ADV_NAME_LEN];

		if (k != INSN_ATOMIC_RMW && k != INSN_FENCE && !hint)
			continue;
		name = sym ? sym(sym_arg, leaves[i].ip, &module) : NULL;
		sample_name(name ? name : "[unknown]", module, full, sizeof(full));
		if (hint)
			add_spin_loop(in, full, hint, adv_is_runtime_module(module), leaves[i].count);
		if (k != INSN_ATOMIC_RMW && k != INSN_FENCE)
			continue;
		for (size_t t = 0; t < ap->samples.ntop; t++)
			if (!strcmp(in->samples[t].symbol, full))
				*(k == INSN_FENCE ? &fence[t] : &atomic[t]) += leaves[i].count;
	}
	for (size_t t = 0; t < ap->samples.ntop; t++) {
		double n = (double)in->samples[t].count;

		in->samples[t].writes_shared = n > 0 && atomic[t] >= ADV_HOT_INSN_SHARE * n;
		if (n > 0 && fence[t] >= ADV_HOT_INSN_SHARE * n && sr->total) {
			snprintf(in->fences[nf].symbol, sizeof(in->fences[nf].symbol), "%s",
				 in->samples[t].symbol);
			in->fences[nf].runtime = in->samples[t].runtime;
			in->fences[nf++].share = n / (double)sr->total;
		}
	}
	ap->fences = in->fences;
	ap->nfences = nf;
	ap->spin_loops = in->spin_loops;
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
	if (n <= 0) {
		/* No row: the empty table top_rows() made (LeakSanitizer). */
		samples__top_free(top, 0);
		return n < 0 ? -ENOMEM : 0;
	}
	in->samples = calloc(n, sizeof(*in->samples));
	if (!in->samples) {
		samples__top_free(top, n);
		return -ENOMEM;
	}
	for (long i = 0; i < n; i++) {
		sample_name(top[i].symbol, top[i].module, in->samples[i].symbol,
			    sizeof(in->samples[i].symbol));
		in->samples[i].runtime = adv_is_runtime_module(top[i].module);
		in->samples[i].count = top[i].count;
	}
	samples__top_free(top, n);
	ap->samples.top = in->samples;
	ap->samples.ntop = n;
	return classify_hot_code(in, pid, sr, sym, sym_arg) ? -ENOMEM : 0;
}

bool advice__lock_name(const struct ss_futex_rec *r, const struct ss_stacks *stacks,
		       struct advice_stack_name *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = 0; stacks && k < r->nstacks; k++) {
		const struct ss_stack *st = stacks__find(stacks, r->stacks[k].stack_id);
		struct advice_stack_name sn;

		if (!st || !st->frames || !st->depth)
			continue;
		advice__name_stack(st->frames, st->depth, &sn);
		if (!out->name[0] || (sn.user_named && !out->user_named))
			*out = sn;
		if (out->user_named)
			break;
	}
	return out->name[0] != 0;
}

bool advice__site_name(__s32 stack_id, const struct ss_stacks *stacks,
		       struct advice_stack_name *out)
{
	const struct ss_stack *st = stacks ? stacks__find(stacks, stack_id) : NULL;

	memset(out, 0, sizeof(*out));
	/* The call site: the first frame in the user's code. */
	if (st && st->frames && st->depth)
		advice__name_stack(st->frames, st->depth, out);
	return out->name[0] != 0;
}

static void name_futex(struct adv_futex *f, const struct ss_futex_rec *r,
		       const struct ss_stacks *stacks)
{
	struct advice_stack_name sn;

	if (!advice__lock_name(r, stacks, &sn))
		return;
	snprintf(f->name, sizeof(f->name), "%s", sn.name);
	snprintf(f->runtime_frames, sizeof(f->runtime_frames), "%s", sn.runtime);
	f->user_named = sn.user_named;
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
	ap->target.runtime = tgt->is_jvm ? ADV_RT_JVM : tgt->runtime;
	snprintf(ap->target.python_functions, sizeof(ap->target.python_functions), "%s",
		 tgt->python_functions ? tgt->python_functions : "");
	ap->target.python_read = tgt->python_read;
	ap->target.nthreads = p->nthreads;
	ap->host_load = tgt->host_load;
	SS_COUNTERS_COPY(SS_THREAD_COUNTERS, &ap->totals, &p->totals);
	memcpy(ap->running_ns, p->running_ns, sizeof(ap->running_ns));

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
		f->sole_waiter = r->waiters == 1 && r->tids ? r->tids[0] : 0;
		/* The syscall tracer records how each word is woken (bpf/trace.h);
		 * --light sees blocking waits at the scheduler only. */
		f->wake_pattern = !tgt->light;
		name_futex(f, r, stacks);
	}
	ap->futexes = in->futexes;
	ap->nfutexes = p->nfutexes;
	if (advice__add_releases(in, p, stacks))
		goto nomem;

	for (size_t i = 0; i < p->nyields; i++) {
		struct advice_stack_name sn;

		in->yields[i].count = p->yields[i].count;
		if (advice__site_name(p->yields[i].stack_id, stacks, &sn)) {
			snprintf(in->yields[i].frame, sizeof(in->yields[i].frame), "%s", sn.name);
			in->yields[i].user_named = sn.user_named;
		}
	}
	ap->yield_sites = in->yields;
	ap->nyield_sites = p->nyields;

	if (sr && (copy_samples(in, tgt->pid, sr, sym, sym_arg) || advice__add_data(in, tgt->pid, sr) ||
		   advice__add_acquire_samples(in, p, stacks, sr, sym, sym_arg)))
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
	free(in->spin_loops);
	free(in->release_sites);
	free(in->holders);
	free(in->data);
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
			if (strcmp(f->evidence[e].label, "see"))
				fprintf(out, "      %-6s %-28s %s\n",
					advisor__source_name(f->evidence[e].source),
					f->evidence[e].label, f->evidence[e].value);
		fprintf(out, "    -> %s\n", f->recommendation);
		/* Cross-references last, under the action they qualify. */
		for (size_t e = 0; e < f->nevidence; e++)
			if (!strcmp(f->evidence[e].label, "see"))
				fprintf(out, "       see %s\n", f->evidence[e].value);
		fputc('\n', out);
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

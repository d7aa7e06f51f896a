// SPDX-License-Identifier: GPL-2.0
/*
 * rule_false_sharing.c: threads writing different data on the same cache
 * line (false-sharing), and threads writing the same data (true-sharing).
 * With a PMU, cache-miss samples land in the code that writes shared data
 * (the caller flags such symbols). Without one, the samples' data addresses
 * (struct adv_data_addrs, cache_lines.h) show which threads wrote which
 * bytes of which line: a line that two threads write at different offsets,
 * or that one writes while another reads other bytes, is false sharing;
 * where none is, the rule says nothing. This host's padded/unpadded ratio
 * says what padding would gain here, and its measured destructive
 * interference size how far to pad. Where neither kind of evidence exists,
 * time samples in code that writes shared data only make it possible.
 */
#include <stdio.h>
#include <string.h>
#include "cache_lines.h"
#include "finding.h"
#include "format.h"
#include "hostcal.h"
#include "rules.h"

/* Thresholds (thresholds.h). ADV_FS_MISS_SHARE, ADV_FS_CRIT_SHARE,
 * ADV_FS_CRIT_RATIO: a flagged symbol with a tenth of the cache-miss samples
 * is a hot spot worth padding (warning); with 40% of them, and padding
 * measured here to at least halve the cost, it dominates the target's misses
 * (critical). */
/* ADV_FS_TIME_SHARE: cpu-clock samples cannot show misses, but a tenth of
 * the on-CPU time in code known to write shared data is worth naming. */

/* Events that count cache misses or coherence traffic, as opposed to time
 * (cpu-clock, task-clock) or work (cycles, instructions). */
static bool miss_event(const char *ev)
{
	return strstr(ev, "miss") || strstr(ev, "hitm") || strstr(ev, "c2c");
}

static const struct adv_sample_sym *flagged(const struct adv_samples *s, double *share)
{
	for (size_t i = 0; s->top && i < s->ntop; i++)
		/* Runtime code (a glibc mutex's atomics) is not the user's to pad. */
		if (s->top[i].writes_shared && !s->top[i].runtime) {
			*share = s->total ? (double)s->top[i].count / (double)s->total : 0;
			return &s->top[i];
		}
	*share = 0;
	return NULL;
}

static void host_evidence(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;

	if (!adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING))
		return;
	adv_finding__evidence(f, ADV_SRC_HOST, "unpadded/padded here", "%s at 2 threads",
			      adv_fmt_ratio(fs->ratio_2t).s);
	/* 0: the calibration could not settle on a size (noise, or threads
	 * that never ran at once). */
	/* sysfs gives no line size on some VMs (0): said so, not "0 bytes". */
	char line[64];

	if (fs->cache_line_bytes)
		snprintf(line, sizeof(line), "cache line %s per sysfs", adv_fmt_bytes(fs->cache_line_bytes).s);
	else
		snprintf(line, sizeof(line), "sysfs gives no cache line size here");
	if (fs->interference_bytes)
		adv_finding__evidence(f, ADV_SRC_HOST, "destructive interference", "%s (%s)",
				      adv_fmt_bytes(fs->interference_bytes).s, line);
	else
		adv_finding__evidence(f, ADV_SRC_HOST, "destructive interference",
				      "not determined (%s)", line);
	if (!fs->concurrent)
		adv_finding__evidence(f, ADV_SRC_HOST, "calibration caveat",
				      "its threads did not run at once: the ratio may understate the cost");
}

static void recommend_padding(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;
	unsigned n = adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING) ? fs->interference_bytes : 0;

	if (n)
		adv_finding__recommend(f, "Pad data that different threads write to %u bytes, this host's measured destructive interference size: `struct { _Alignas(%u) long v; }` in C, alignas(%u) in C++.",
				       n, n, n);
	else
		adv_finding__recommend(f, "Pad data that different threads write to its own lines: 128 bytes covers the adjacent-line prefetch of current x86 and most AArch64 cores (`_Alignas(128)` in C, alignas(128) in C++), but this host's interference size is not measured.");
	if (ctx->p->target.is_jvm)
		adv_finding__recommend(f, "JVM: @jdk.internal.vm.annotation.Contended on the written fields (needs -XX:-RestrictContended outside the JDK) with -XX:ContendedPaddingWidth=%u, or LongAdder for counters.",
				       n ? n : 128);
}

static bool with_pmu(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_samples *s = &ctx->p->samples;
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;
	bool host = adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING);
	const struct adv_sample_sym *sym;
	double share;

	sym = flagged(s, &share);	/* there, and share >= ADV_FS_MISS_SHARE: the gate */
	adv_finding__init(f, share >= ADV_FS_CRIT_SHARE && host && fs->ratio_2t >= ADV_FS_CRIT_RATIO ?
			  ADV_CRITICAL : ADV_WARNING,
			  "False sharing: %s of %s samples in %.80s, which writes shared data",
			  adv_fmt_pct(share).s, s->event, sym->symbol);
	adv_finding__evidence(f, ADV_SRC_TARGET, "cache-miss hot spot", "%.100s: %s of %s %s samples",
			      sym->symbol, adv_fmt_pct(share).s, adv_fmt_count((double)s->total).s, s->event);
	adv_finding__evidence(f, ADV_SRC_TARGET, "busy threads", "%.0f on a CPU at least %s of the time",
			      ctx->m.busy, adv_fmt_pct(ADV_BUSY_SHARE).s);
	host_evidence(ctx, f);
	recommend_padding(ctx, f);
	adv_finding__recommend(f, "`perf c2c record -p %d` then `perf c2c report` names the exact cache lines and the code that writes them.",
			       ctx->p->target.pid);
	/* Misses in code that writes shared data are strong but indirect:
	 * they could be true sharing. */
	f->confidence = (0.5 + 0.4 * (share >= ADV_FS_CRIT_SHARE ? 1 : share / ADV_FS_CRIT_SHARE)) *
			(host && !fs->concurrent ? 0.8 : 1.0) *
			adv_cal__note(f, ctx->h, ADV_FAM_FALSE_SHARING, 0.3);
	return true;
}

/* Time samples in code that writes shared data, without data addresses:
 * possible, informational. */
static bool without_pmu(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_samples *s = &ctx->p->samples;
	const struct adv_sample_sym *sym;
	double share = 0;

	sym = flagged(s, &share);	/* there, with ADV_FS_TIME_SHARE: the gate */
	adv_finding__init(f, ADV_INFO, "False sharing possible: %s of on-CPU time in %.80s, which writes shared data; no PMU to confirm",
			  adv_fmt_pct(share).s, sym->symbol);
	adv_finding__evidence(f, ADV_SRC_TARGET, "samples", "%s counts time, not cache misses",
			      s->event[0] ? s->event : "this event");
	adv_finding__evidence(f, ADV_SRC_TARGET, "busy threads", "%.0f on a CPU at least %s of the time",
			      ctx->m.busy, adv_fmt_pct(ADV_BUSY_SHARE).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "on-CPU time", "%.100s: %s of %s %s samples",
			      sym->symbol, adv_fmt_pct(share).s,
			      adv_fmt_count((double)s->total).s, s->event);
	host_evidence(ctx, f);
	adv_finding__recommend(f, "Trace with `--event cpu-clock` (data addresses on, the default with it) to see which cache lines the threads write; on bare metal with a PMU, `perf c2c record -p %d` shows contended lines too.",
			       ctx->p->target.pid);
	recommend_padding(ctx, f);
	f->confidence = 0.35 * adv_cal__note(f, ctx->h, ADV_FAM_FALSE_SHARING, 0.3);
	return true;
}

/* ---- from data addresses ------------------------------------------------ */

/* "+8..+15" of an access within its line. */
static void offsets(const struct adv_line *l, const struct adv_data_access *a, char *buf,
		    size_t len)
{
	uint64_t off = a->addr > l->addr ? a->addr - l->addr : 0;

	snprintf(buf, len, "+%llu..+%llu", (unsigned long long)off,
		 (unsigned long long)(off + a->size - 1));
}

/* What an access touches, as a title names it: the variable
 * ("counters+8 (app)"), or the block and the offset in the line ("a heap
 * block, line +48"). */
static void what(const struct adv_line *l, const struct adv_data_access *a, char *buf, size_t len)
{
	if (a->region == ADV_DATA_GLOBAL)
		snprintf(buf, len, "%.40s", a->data);
	else
		snprintf(buf, len, "%.20s at line offset +%llu", a->data,
			 (unsigned long long)(a->addr > l->addr ? a->addr - l->addr : 0));
}

static void line_thread_evidence(struct adv_finding *f, const char *label, const struct adv_line *l,
				 const struct adv_line_thread *t, bool writes)
{
	const struct adv_data_access *a = writes ? t->top_write : t->top_read;
	char off[48];

	offsets(l, a, off, sizeof(off));
	adv_finding__evidence(f, ADV_SRC_TARGET, label, "thread %u %s %s (%.50s, %u B) in %.50s: %s samples",
			      t->tid, writes ? "writes" : "reads", off, a->data, a->size, a->func,
			      adv_fmt_count((double)(writes ? t->write_samples : t->read_samples)).s);
}

static void line_evidence(const struct adv_ctx *ctx, struct adv_finding *f, const struct adv_line *l)
{
	const struct adv_data_addrs *d = &ctx->p->data;
	bool measured = l->bytes != (uint32_t)ADV_FS_LINE_DEFAULT ||
			ctx->h->false_sharing.interference_bytes == l->bytes;

	adv_finding__evidence(f, ADV_SRC_TARGET, "cache line", "0x%llx, %u bytes (%s)",
			      (unsigned long long)l->addr, l->bytes,
			      measured && adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING) ?
			      "this host's destructive interference size" : "not measured here: 64 assumed");
	adv_finding__evidence(f, ADV_SRC_TARGET, "samples on it", "%s of %s samples with registers (%s)",
			      adv_fmt_count((double)l->samples).s, adv_fmt_count((double)d->samples).s,
			      adv_fmt_pct((double)l->samples / (double)d->samples).s);
	adv_finding__evidence(f, ADV_SRC_TARGET, "instruction", "%.48s in %.80s",
			      l->t[l->a].top_write->insn, l->t[l->a].top_write->func);
	if (d->skipped || d->lost)
		adv_finding__evidence(f, ADV_SRC_TARGET, "data addresses", "%s samples skipped (undecodable or not the program's code), %s lost",
				      adv_fmt_count((double)d->skipped).s, adv_fmt_count((double)d->lost).s);
}

/* The fix, in the language of the code that writes the data. */
static void recommend_line_padding(const struct adv_ctx *ctx, struct adv_finding *f,
				   const struct adv_line *l)
{
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;
	const struct adv_data_access *x = l->t[l->a].top_write;
	const struct adv_data_access *y = l->read_write ? l->t[l->b].top_read : l->t[l->b].top_write;
	const char *x_name, *y_name;
	const char *lang = ctx->p->data.lang;
	bool host = adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING);
	unsigned n = host && fs->interference_bytes ? fs->interference_bytes : 128;
	char xs[ADV_NAME_LEN], ys[ADV_NAME_LEN];

	/* A heap block has no name to put in the fix: the offsets do. */
	if (x->region == ADV_DATA_GLOBAL)
		snprintf(xs, sizeof(xs), "%s", x->data);
	else
		snprintf(xs, sizeof(xs), "the data at line offset +%llu",
			 (unsigned long long)(x->addr - l->addr));
	if (y->region == ADV_DATA_GLOBAL)
		snprintf(ys, sizeof(ys), "%s", y->data);
	else
		snprintf(ys, sizeof(ys), "the data at +%llu", (unsigned long long)(y->addr - l->addr));
	x_name = xs;
	y_name = ys;
	if (ctx->p->target.is_jvm || !strcmp(lang, "java"))
		adv_finding__recommend(f, "Put %.60s and %.60s on lines of their own: @jdk.internal.vm.annotation.Contended on the fields (with -XX:-RestrictContended outside the JDK, -XX:ContendedPaddingWidth=%u), or LongAdder for a counter.",
				       x_name, y_name, n);
	else if (!strcmp(lang, "rust"))
		adv_finding__recommend(f, "Put %.60s and %.60s on lines of their own: wrap each in a `#[repr(align(%u))]` struct (crossbeam_utils::CachePadded does this).",
				       x_name, y_name, n);
	else if (!strcmp(lang, "c++"))
		adv_finding__recommend(f, "Put %.60s and %.60s on lines of their own: `alignas(%u)` on each (std::hardware_destructive_interference_size is a compile-time guess; %u is %s).",
				       x_name, y_name, n, n, host ? "measured here" : "safe for current x86 and AArch64");
	else
		adv_finding__recommend(f, "Put %.60s and %.60s on lines of their own: `_Alignas(%u)` on each (the variable, or the struct member each thread writes).",
				       x_name, y_name, n);
	if (x->region == ADV_DATA_HEAP && strcmp(lang, "java") && !ctx->p->target.is_jvm)
		adv_finding__recommend(f, "For heap records, give each thread its own block: aligned_alloc(%u, size rounded up to %u), or an array of records whose type is aligned to %u.",
				       n, n, n);
	if (host)
		adv_finding__recommend(f, "On this host, data that two threads write on one line costs %s the time of the same data padded (measured at 2 threads).",
				       adv_fmt_ratio(fs->ratio_2t).s);
}

static bool from_lines(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_host_false_sharing *fs = &ctx->h->false_sharing;
	bool host = adv_cal__usable(ctx->h, ADV_FAM_FALSE_SHARING);
	const struct adv_line_thread *a, *b;
	char x[64], y[64];
	struct adv_line l;
	double share;

	if (!adv_lines__worst(&ctx->p->data, adv_lines__size(ctx->h), ADV_LINE_FALSE, &l))
		return false;
	a = &l.t[l.a];
	b = &l.t[l.b];
	share = adv_clamp01((double)l.samples / (double)ctx->p->data.samples);
	what(&l, a->top_write, x, sizeof(x));
	what(&l, l.read_write ? b->top_read : b->top_write, y, sizeof(y));
	if (l.read_write)
		adv_finding__init(f, ADV_WARNING, "False sharing (read/write): thread %u writes %s while thread %u reads %s on the same cache line",
				  a->tid, x, b->tid, y);
	else
		adv_finding__init(f, share >= ADV_FS_CRIT_SHARE && host && fs->ratio_2t >= ADV_FS_CRIT_RATIO ?
				  ADV_CRITICAL : ADV_WARNING,
				  "False sharing: threads %u and %u write %s and %s on one cache line",
				  a->tid, b->tid, x, y);
	line_evidence(ctx, f, &l);
	line_thread_evidence(f, "writer", &l, a, true);
	line_thread_evidence(f, l.read_write ? "reader" : "other writer", &l, b, !l.read_write);
	host_evidence(ctx, f);
	recommend_line_padding(ctx, f, &l);
	f->confidence = (l.read_write ? 0.7 : 0.85) * adv_cal__note(f, ctx->h, ADV_FAM_FALSE_SHARING, 0.2);
	return true;
}

/* An instruction that adds to memory (a counter); a compare-and-swap or
 * exchange is a lock word or a flag handed over: the lock rules' business. */
static bool counts(const char *insn)
{
	char m[16];

	/* The mnemonic, past a "lock " prefix. */
	if (!strncmp(insn, "lock ", 5))
		insn += 5;
	snprintf(m, sizeof(m), "%.*s", (int)strcspn(insn, " "), insn);
	if (strstr(m, "xchg") || !strncmp(m, "cas", 3) || !strncmp(m, "swp", 3))
		return false;
	return strstr(m, "add") || strstr(m, "inc") || strstr(m, "sub") || strstr(m, "dec");
}

bool adv_rule_true_sharing(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const char *lang = ctx->p->data.lang;
	const struct adv_line_thread *a;
	struct adv_line l;
	double share;

	if (!adv_lines__worst(&ctx->p->data, adv_lines__size(ctx->h), ADV_LINE_TRUE, &l) ||
	    !counts(l.t[l.a].top_write->insn))
		return false;
	a = &l.t[l.a];
	share = adv_clamp01((double)l.samples / (double)ctx->p->data.samples);
	adv_finding__init(f, share >= ADV_FS_MISS_SHARE ? ADV_WARNING : ADV_INFO,
			  "True sharing: one counter shared by %u threads (%.40s, written in %.40s): per-thread counters merged on read",
			  l.writers, a->top_write->data, a->top_write->func);
	line_evidence(ctx, f, &l);
	line_thread_evidence(f, "writer", &l, a, true);
	line_thread_evidence(f, "other writer", &l, &l.t[l.b], true);
	adv_finding__recommend(f, "Use per-thread counters merged on read: each thread adds to a counter of its own (thread-local, or its own slot of an array with one line per slot) and a reader sums them.");
	if (ctx->p->target.is_jvm || !strcmp(lang, "java"))
		adv_finding__recommend(f, "In Java, java.util.concurrent.atomic.LongAdder does exactly this.");
	adv_finding__recommend(f, "The threads write the same bytes: moving data apart cannot remove this traffic, only writing less often to the shared value can.");
	f->confidence = 0.8;
	return true;
}

/* With cache-miss samples: a flagged symbol with enough of them. With data
 * addresses: a falsely shared line. Otherwise: time in code that writes
 * shared data, with two threads busy at once (on a busy host a thread
 * runnable nearly all the time would be busy without the other processes:
 * the possibility is the target's, not theirs). */
bool adv_gate_false_sharing(const struct adv_ctx *ctx)
{
	const struct adv_samples *s = &ctx->p->samples;
	struct adv_line l;
	double share;

	if (s->available && miss_event(s->event))
		return flagged(s, &share) && share >= ADV_FS_MISS_SHARE;
	if (ctx->p->data.captured)
		return adv_lines__worst(&ctx->p->data, adv_lines__size(ctx->h), ADV_LINE_FALSE, &l);
	if (!s->available || !flagged(s, &share) || share < ADV_FS_TIME_SHARE)
		return false;
	return ctx->m.busy >= 2 || (ctx->m.host_busy && ctx->m.saturated >= 2);
}

bool adv_rule_false_sharing(const struct adv_ctx *ctx, struct adv_finding *f)
{
	const struct adv_samples *s = &ctx->p->samples;

	if (!adv_gate_false_sharing(ctx))
		return false;
	if (s->available && miss_event(s->event))
		return with_pmu(ctx, f);
	if (ctx->p->data.captured)
		return from_lines(ctx, f);
	return without_pmu(ctx, f);
}

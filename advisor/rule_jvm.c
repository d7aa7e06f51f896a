// SPDX-License-Identifier: GPL-2.0
/*
 * rule_jvm.c: in a JVM, time in the JVM's own code has Java-level causes,
 * and the advice must name those, never libjvm's functions as the thing to
 * change. A table maps the JVM's functions (sampled on CPU, or seen in
 * waiters' stacks) to what the Java program does to make them run: Java
 * monitors (synchronized) inflating and spinning, allocation outside TLABs
 * under the GC's heap lock, allocation outrunning a concurrent collector,
 * the collector's own marking, safepoints. Each cause comes with the JVM
 * flags or Java changes that address it.
 */
#include <stdio.h>
#include <string.h>
#include "finding.h"
#include "format.h"
#include "metrics.h"
#include "rules.h"
#include "runtime.h"

struct jvm_cause {
	const char *const needles[4];	/* substrings of libjvm function names */
	/* A helper several causes call (SpinPause): counted for this cause
	 * only when its own functions were sampled too. */
	const char *helper;
	const char *what;		/* the Java-level cause */
	const char *advice;
};

static const struct jvm_cause causes[] = {
	{ { "ObjectMonitor::", "ObjectSynchronizer::", "complete_monitor_locking", NULL }, "SpinPause",
	  "contended synchronized blocks (Java monitors inflating, spinning and parking)",
	  "Find the monitor with JFR (java -XX:StartFlightRecording:filename=rec.jfr, then jfr print --events jdk.JavaMonitorEnter rec.jfr): shorten the synchronized section, split the lock, or use java.util.concurrent (ReentrantLock, LongAdder, ConcurrentHashMap)." },
	{ { "ShenandoahLock::", "allocate_memory_under_lock", "ShenandoahFreeSet::", "ShenandoahHeap::allocate" }, NULL,
	  "allocation outside TLABs under Shenandoah's heap lock",
	  "Let threads allocate in their TLABs: raise -XX:MinTLABSize (or set -XX:TLABSize) and keep -XX:+ResizeTLAB, allocate large arrays less often (reuse buffers), and give the heap headroom (-Xmx) so that the free set is not exhausted." },
	{ { "ShenandoahPacer::", "G1Policy::", "MemAllocator::allocate_outside_tlab", NULL }, NULL,
	  "allocation outrunning the concurrent collector (allocating threads are paced or stalled)",
	  "Allocate less (reuse objects and buffers), give the heap headroom (-Xmx), or let the collector start earlier (Shenandoah: -XX:ShenandoahGCHeuristics=compact or a lower -XX:ShenandoahInitFreeThreshold; G1: -XX:InitiatingHeapOccupancyPercent)." },
	{ { "ShenandoahMark", "ShenandoahConcurrentMark", "G1ConcurrentMark", "G1CMTask" }, NULL,
	  "the collector's concurrent marking (work driven by the allocation rate and the live set)",
	  "Reduce the allocation rate or the live set; check the GC threads against the CPUs (-XX:ConcGCThreads, -XX:ParallelGCThreads, -XX:ActiveProcessorCount)." },
	{ { "memset", NULL, NULL, NULL }, NULL,
	  "zeroing newly allocated arrays (the JVM clears every large array it allocates)",
	  "Reuse large arrays and buffers instead of allocating them anew (a pool, or ThreadLocal scratch buffers); arrays larger than a heap region (humongous: raise -XX:G1HeapRegionSize or -XX:ShenandoahRegionSize) also take the heap's lock." },
	/* The VM thread's own idle wait for work (wait_for_operation) is
	 * none: its operations are. */
	{ { "SafepointSynchronize::", "VM_Operation::", "VMThread::inner_execute", "VMThread::evaluate_operation" }, NULL,
	  "safepoints (all threads stopped for the VM)",
	  "Log them with -Xlog:safepoint and find the VM operations that request them (biased-lock revocation, deoptimisation, GC)." },
};
#define NCAUSES (sizeof(causes) / sizeof(causes[0]))

static bool matches(const struct jvm_cause *c, const char *symbol)
{
	for (size_t k = 0; k < 4 && c->needles[k]; k++)
		if (strstr(symbol, c->needles[k]))
			return true;
	return false;
}

/* Share of the samples in each cause's functions, and of the blocked wait
 * time whose waiters' runtime frames are them. */
static void measure(const struct adv_profile *p, double *share, double *wait_ns)
{
	const struct adv_samples *s = &p->samples;
	bool ok = s->available && s->total && s->top;

	for (size_t i = 0; ok && i < s->ntop; i++)
		for (size_t c = 0; c < NCAUSES; c++)
			if (matches(&causes[c], s->top[i].symbol)) {
				share[c] += (double)s->top[i].count / (double)s->total;
				break;
			}
	for (size_t c = 0; ok && c < NCAUSES; c++)
		for (size_t i = 0; causes[c].helper && share[c] > 0 && i < s->ntop; i++)
			if (strstr(s->top[i].symbol, causes[c].helper))
				share[c] += (double)s->top[i].count / (double)s->total;
	for (size_t i = 0; p->futexes && i < p->nfutexes; i++)
		for (size_t c = 0; c < NCAUSES; c++)
			if (matches(&causes[c], p->futexes[i].runtime_frames)) {
				wait_ns[c] += (double)p->futexes[i].wait_ns;
				break;
			}
}

/* The word of cause c its waiters were blocked on longest, worded as
 * Java names it, as evidence: "a synchronized monitor in
 * SyncStorm.lambda$main$0". */
static void name_hottest(const struct adv_profile *p, size_t c, struct adv_finding *f)
{
	const struct adv_futex *hot = NULL;
	struct adv_lock_words w;

	for (size_t i = 0; p->futexes && i < p->nfutexes; i++)
		if (matches(&causes[c], p->futexes[i].runtime_frames) &&
		    (!hot || p->futexes[i].wait_ns > hot->wait_ns))
			hot = &p->futexes[i];
	if (!hot)
		return;
	adv_word_words(p, hot, &w);
	adv_finding__evidence(f, ADV_SRC_TARGET, "hottest", "%s: blocked %s%s", w.lock,
			      adv_fmt_ns((double)hot->wait_ns).s,
			      hot->user_named || w.guess[0] ? "" : " (its stack stops in the JVM: run with -XX:+PreserveFramePointer to name the Java method)");
	adv_jvm_guess_evidence(&w, f);
}

bool adv_rule_jvm(const struct adv_ctx *ctx, struct adv_finding *f)
{
	double share[NCAUSES] = { 0 }, wait_ns[NCAUSES] = { 0 }, blocked;
	size_t top = NCAUSES;

	if (!ctx->p->target.is_jvm)
		return false;
	measure(ctx->p, share, wait_ns);
	for (size_t c = 0; c < NCAUSES; c++) {
		share[c] = share[c] > 1 ? 1 : share[c];
		if ((share[c] >= ADV_JVM_MIN_SHARE || wait_ns[c] >= ADV_JVM_MIN_SHARE * ctx->m.dur_ns) &&
		    (top == NCAUSES || share[c] > share[top] ||
		     (share[c] == share[top] && wait_ns[c] > wait_ns[top])))
			top = c;
	}
	if (top == NCAUSES)
		return false;
	/* threads blocked in it, on average over the trace: blocked threads
	 * take no samples, so a monitor storm is graded by this */
	blocked = wait_ns[top] / (double)ctx->m.dur_ns;
	if (share[top] >= ADV_JVM_MIN_SHARE && blocked < ADV_JVM_WARN_BLOCKED)
		adv_finding__init(f, share[top] >= ADV_JVM_WARN_SHARE ? ADV_WARNING : ADV_INFO,
				  "JVM: %s of on-CPU samples in %s", adv_fmt_pct(share[top]).s,
				  causes[top].what);
	else	/* found by the waiters' frames */
		adv_finding__init(f, blocked >= ADV_JVM_WARN_BLOCKED || share[top] >= ADV_JVM_WARN_SHARE ?
				  ADV_WARNING : ADV_INFO, "JVM: threads blocked %s (%.1f on average) in %s",
				  adv_fmt_ns(wait_ns[top]).s, blocked, causes[top].what);
	for (size_t c = 0; c < NCAUSES; c++) {
		if (share[c] <= 0 && wait_ns[c] <= 0)
			continue;
		adv_finding__evidence(f, ADV_SRC_TARGET, c == top ? "cause" : "also",
				      "%.100s: %s of samples%s%s", causes[c].what, adv_fmt_pct(share[c]).s,
				      wait_ns[c] > 0 ? ", blocked " : "",
				      wait_ns[c] > 0 ? adv_fmt_ns(wait_ns[c]).s : "");
	}
	name_hottest(ctx->p, top, f);
	adv_finding__recommend(f, "%s", causes[top].advice);
	adv_finding__evidence(f, ADV_SRC_TARGET, "the JVM's own functions", "where the time shows, not what to change");
	/* Sampled JVM code says where time goes; the Java-level cause is the
	 * usual reason for it, not proven by the samples. */
	f->confidence = share[top] >= ADV_JVM_WARN_SHARE || blocked >= ADV_JVM_WARN_BLOCKED ? 0.7 : 0.5;
	return true;
}

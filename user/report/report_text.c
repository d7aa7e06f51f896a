// SPDX-License-Identifier: GPL-2.0
/* The text form of a trace report: what a person reads during an incident. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/version.h"
#include "advice.h"
#include "report.h"
#include "verdict.h"
#include "samples_report.h"
#include "advisor/thresholds.h"
#include "model/releases.h"

const char *fmt_ns(__u64 ns, char *buf, size_t len)
{
	/* Thresholds sit where rounding would print "1000.0 us" instead. */
	if (ns >= 9995000000ull)
		snprintf(buf, len, "%.1f s", ns / 1e9);
	else if (ns >= 999950000ull)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 999950)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

static const char *fmt_pow2(unsigned int shift, char *buf, size_t len)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;

	/* 2^10 ns ~ 1 us: label ranges in the largest unit that stays exact. */
	while (shift >= 10 && u < 3) {
		shift -= 10;
		u++;
	}
	snprintf(buf, len, "%llu %s", 1ull << shift, units[u]);
	return buf;
}

void print_log2_hist_ns(const __u64 *slots, int nslots, const char *indent, FILE *out)
{
	int first = -1, last = -1;
	__u64 max = 0;

	for (int i = 0; i < nslots; i++) {
		if (!slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (first < 0) {
		fprintf(out, "%s(no samples)\n", indent);
		return;
	}
	fprintf(out, "%s%-23s : %-9s %s\n", indent, "range", "count", "distribution");
	for (int i = first; i <= last; i++) {
		char lo[24], hi[24], range[48], bar[41];
		int stars = (int)(slots[i] * 40 / max);

		fmt_pow2(i, lo, sizeof(lo));
		if (i == nslots - 1)
			snprintf(range, sizeof(range), "%s and up", lo);
		else
			snprintf(range, sizeof(range), "%s -> %s", i ? lo : "0 ns", fmt_pow2(i + 1, hi, sizeof(hi)));
		memset(bar, '*', stars);
		bar[stars] = 0;
		fprintf(out, "%s%-23s : %-9llu |%-40s|\n", indent, range, (unsigned long long)slots[i], bar);
	}
}

static double rate(__u64 n, __u64 ns)
{
	return ns ? n * 1e9 / ns : 0;
}

static void print_stack(const struct ss_stacks *stacks, __s32 id, const char *indent, FILE *out)
{
	const struct ss_stack *st = stacks ? stacks__find(stacks, id) : NULL;

	if (!st || !st->depth) {
		fprintf(out, "%s[stack not collected]\n", indent);
		return;
	}
	for (int d = 0; d < st->depth && d < 8; d++) {
		if (st->frames)
			fprintf(out, "%s%s\n", indent, st->frames[d]);
		else
			fprintf(out, "%s0x%llx\n", indent, (unsigned long long)st->ips[d]);
	}
	if (st->depth > 8)
		fprintf(out, "%s... %d more frames\n", indent, st->depth - 8);
}

static void print_header(const struct ss_report *r, FILE *out)
{
	const struct ss_profile *p = r->profile;
	char d[32];

	fprintf(out, "spinscope %s: pid %d (%s)", SS_VERSION, r->pid, r->comm);
	if (r->tid)
		fprintf(out, ", thread %d only", r->tid);
	fprintf(out, "\nhost %s: Linux %s %s, %d CPUs, %s%s\n", r->host->hostname, r->host->kernel,
		r->host->machine, r->host->cpus, r->host->cpu_model,
		/* One node is the host's fact, not a finding about the target. */
		r->advisor_input && r->advisor_input->numa.nodes <= 1 ?
		", one NUMA node (no placement to advise)" : "");
	fprintf(out, "traced %s, %llu thread%s seen", fmt_ns(r->duration_ns, d, sizeof(d)),
		(unsigned long long)p->totals.threads, p->totals.threads == 1 ? "" : "s");
	if (r->exited)
		fprintf(out, "; target exited after %.1f s", r->duration_ns / 1e9);
	if (r->host_load.measured)
		fprintf(out, "\nhost load: %.2f of %d CPUs busy, %.2f of them other processes%s",
			r->host_load.busy_cpus, r->host_load.cpus, r->host_load.busy_other_cpus,
			r->host_load.busy_other_cpus >= ADV_HOST_BUSY_SHARE * r->host_load.cpus ?
			" (the host was busy: queueing and waits include theirs)" : "");
	fprintf(out, "\n");
	if (!r->light)
		fprintf(out, "attached by %s\n", report_mechanism_cost(r));
	if (r->light) {
		fprintf(out, "mode --light (scheduler events only; no syscall of this host is slowed). Not seen:\n");
		for (int i = 0; ss_light_blind_spots[i]; i++)
			fprintf(out, "  - %s\n", ss_light_blind_spots[i]);
	}
	fprintf(out, "\n");
}

/* The thread counters of struct ss_totals by index, from the list. */
#define TOTALS_OFFSET_C(name, kind, unit, json) [SS_CTR_##name] = offsetof(struct ss_totals, name),
#define TOTALS_OFFSET_A(name, slots, kind, unit, json) TOTALS_OFFSET_C(name, kind, unit, json)
static const size_t totals_offset[SS_THREAD_NCOUNTERS] = {
	SS_THREAD_COUNTERS(TOTALS_OFFSET_C, TOTALS_OFFSET_A)
};

static __u64 total_of(const struct ss_totals *t, enum ss_thread_counter k)
{
	return *(const __u64 *)((const char *)t + totals_offset[k]);
}

/* A counter's value as the text report prints it: in its unit. */
static const char *counter_text(const struct ss_counter_desc *d, __u64 v, char *buf, size_t len)
{
	if (d->unit == SS_UNIT_NS)
		return fmt_ns(v, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/*
 * A line of counters, as a table over a counter list (the interval line,
 * a HOT FUTEXES entry): each field prints pre, then the counter's value in
 * its unit, its rate per second or its average per another counter, then
 * post. A counter is added to a line by adding its field.
 */
enum field_form { FIELD_VALUE, FIELD_RATE, FIELD_PER };

struct text_field {
	const char *pre;
	int ctr;			/* index into the list's descriptors */
	enum field_form form;
	int per;			/* FIELD_PER: the divisor's index */
	const char *post;
};

/* Where a line's counters are: value(base, k) and the list's descriptors. */
struct counter_source {
	const void *base;
	__u64 (*value)(const void *base, int k);
	const struct ss_counter_desc *descs;
	__u64 dur_ns;			/* for FIELD_RATE */
};

static void print_fields(const struct text_field *f, size_t n, const struct counter_source *src,
			 FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		__u64 v = src->value(src->base, f[i].ctr);
		char buf[32];

		fputs(f[i].pre, out);
		if (f[i].form == FIELD_RATE) {
			fprintf(out, "%.0f", rate(v, src->dur_ns));
		} else {
			if (f[i].form == FIELD_PER) {
				__u64 d = src->value(src->base, f[i].per);

				v = d ? v / d : 0;
			}
			fputs(counter_text(&src->descs[f[i].ctr], v, buf, sizeof(buf)), out);
		}
		fputs(f[i].post, out);
	}
}

static __u64 totals_value(const void *base, int k)
{
	return total_of(base, k);
}

static __u64 futex_value(const void *base, int k)
{
	return *(const __u64 *)((const char *)base + ss_futex_counter_descs[k].offset);
}

static void futex_wait_note(const struct ss_totals *t, FILE *out)
{
	char a[32], b[32];

	fprintf(out, "   %s waiting, avg %s\n", fmt_ns(t->futex_wait_ns, a, sizeof(a)),
		fmt_ns(t->futex_blocked ? t->futex_wait_ns / t->futex_blocked : 0, b, sizeof(b)));
	if (t->futex_wait)
		fprintf(out, "    ended: %llu woken, %llu timed out, %llu value changed, %llu interrupted, %llu errors\n",
			(unsigned long long)t->futex_outcome[SS_FUTEX_WOKEN],
			(unsigned long long)t->futex_outcome[SS_FUTEX_TIMEDOUT],
			(unsigned long long)t->futex_outcome[SS_FUTEX_AGAIN],
			(unsigned long long)t->futex_outcome[SS_FUTEX_INTR],
			(unsigned long long)t->futex_outcome[SS_FUTEX_OTHER]);
}

static void futex_wake_note(const struct ss_totals *t, FILE *out)
{
	fprintf(out, "   %llu waiters woken\n", (unsigned long long)t->futex_woken);
}

/* The TOTALS table: one row per counted event, its count and rate, then a
 * fixed note or a note function (which ends the row's line itself). */
struct totals_row {
	const char *label;
	enum ss_thread_counter ctr;	/* a COUNT counter */
	const char *note;
	void (*print_note)(const struct ss_totals *t, FILE *out);
};

static const struct totals_row totals_rows[] = {
	{ "futex waits", SS_CTR_futex_wait, NULL, futex_wait_note },
	{ "futex wakes", SS_CTR_futex_wake, NULL, futex_wake_note },
	{ "sched_yield", SS_CTR_sched_yield, NULL, NULL },
	{ "switches, voluntary", SS_CTR_switches_voluntary, "(blocked: futex, sleep, I/O)", NULL },
	{ "switches, involunt.", SS_CTR_switches_involuntary,
	  "(preempted or yielded while runnable)", NULL },
};

static void print_totals(const struct ss_report *r, FILE *out)
{
	const struct ss_totals *t = &r->profile->totals;
	__u64 dur = r->duration_ns;
	char a[32], b[32], c[32], d[32];

	fprintf(out, "TOTALS                       count      per second\n");
	for (size_t i = 0; i < sizeof(totals_rows) / sizeof(totals_rows[0]); i++) {
		const struct totals_row *row = &totals_rows[i];
		__u64 n = total_of(t, row->ctr);

		fprintf(out, "  %-19s %12llu %15.1f", row->label, (unsigned long long)n, rate(n, dur));
		if (row->print_note)
			row->print_note(t, out);
		else if (row->note)
			fprintf(out, "   %s\n", row->note);
		else
			fprintf(out, "\n");
	}
	fprintf(out, "  on-CPU %s, off-CPU %s; run-queue delay avg %s, max %s\n\n",
		fmt_ns(t->oncpu_ns, a, sizeof(a)), fmt_ns(t->offcpu_ns, b, sizeof(b)),
		fmt_ns(t->runq_count ? t->runq_ns / t->runq_count : 0, c, sizeof(c)),
		fmt_ns(t->runq_ns_max, d, sizeof(d)));
}

/* The THREADS table: which counters, under which heading, how wide; a
 * column with a divisor shows the average (e.g. run-queue delay per wait).
 * Each cell is printed in its counter's unit. */
struct thread_column {
	const char *head;
	int width;
	enum ss_thread_counter ctr, per;	/* per: SS_THREAD_NCOUNTERS for none */
};

static const struct thread_column thread_columns[] = {
	{ "FUTEX-WT", 9, SS_CTR_futex_wait, SS_THREAD_NCOUNTERS },
	{ "WAIT-TIME", 10, SS_CTR_futex_wait_ns, SS_THREAD_NCOUNTERS },
	{ "YIELDS", 9, SS_CTR_sched_yield, SS_THREAD_NCOUNTERS },
	{ "VOL-SW", 8, SS_CTR_switches_voluntary, SS_THREAD_NCOUNTERS },
	{ "INVOL-SW", 8, SS_CTR_switches_involuntary, SS_THREAD_NCOUNTERS },
	{ "ON-CPU", 10, SS_CTR_oncpu_ns, SS_THREAD_NCOUNTERS },
	{ "OFF-CPU", 10, SS_CTR_offcpu_ns, SS_THREAD_NCOUNTERS },
	{ "RUNQ-AVG", 9, SS_CTR_runq_ns, SS_CTR_runq_count },
};

static __u64 counter_of(const struct ss_thread *t, enum ss_thread_counter k)
{
	return *(const __u64 *)((const char *)t + ss_thread_counter_descs[k].offset);
}

static const char *thread_cell(const struct ss_thread *t, const struct thread_column *col,
			       char *buf, size_t len)
{
	__u64 v = counter_of(t, col->ctr);

	if (col->per != SS_THREAD_NCOUNTERS) {
		__u64 n = counter_of(t, col->per);

		v = n ? v / n : 0;
	}
	return counter_text(&ss_thread_counter_descs[col->ctr], v, buf, len);
}

/* A table of thread_columns: its title, then the headings, the first
 * column's (a tid, or a count of threads) first. */
static void print_thread_head(FILE *out, const char *title, const char *first)
{
	fprintf(out, "%s\n  %-8s %-16s", title, first, "COMM");
	for (size_t c = 0; c < sizeof(thread_columns) / sizeof(thread_columns[0]); c++)
		fprintf(out, " %*s", thread_columns[c].width, thread_columns[c].head);
	fprintf(out, "\n");
}

static void print_threads(const struct ss_report *r, FILE *out)
{
	const struct ss_profile *p = r->profile;
	size_t shown = p->nthreads < 20 ? p->nthreads : 20;
	const size_t ncols = sizeof(thread_columns) / sizeof(thread_columns[0]);

	print_thread_head(out, "THREADS (by time waiting in futexes, then yields)", "TID");
	for (size_t i = 0; i < shown; i++) {
		const struct ss_thread *t = &p->threads[i];
		char cell[32];

		fprintf(out, "  %-8u %-16.16s", t->tid, t->comm);
		for (size_t c = 0; c < ncols; c++)
			fprintf(out, " %*s", thread_columns[c].width,
				thread_cell(t, &thread_columns[c], cell, sizeof(cell)));
		fprintf(out, "%s\n", t->flags & SS_THREAD_EXITED ? "  (exited)" : "");
	}
	if (p->nthreads > shown)
		fprintf(out, "  ... %zu more threads (all of them in --json)\n", p->nthreads - shown);
	fprintf(out, "\n");
}

/* The threads that exited, folded by name at their exit: one row a name,
 * the columns of THREADS over all of them. */
static void print_exited(const struct ss_report *r, FILE *out)
{
	const struct ss_profile *p = r->profile;
	size_t shown = p->nexited < 20 ? p->nexited : 20;
	const size_t ncols = sizeof(thread_columns) / sizeof(thread_columns[0]);

	if (!p->nexited)
		return;
	print_thread_head(out, "EXITED THREADS (folded by name at their exit; in the totals)",
			  "THREADS");
	for (size_t i = 0; i < shown; i++) {
		const struct ss_exited_group *g = &p->exited[i];
		struct ss_thread t = { 0 };
		char cell[32];

		SS_COUNTERS_COPY(SS_THREAD_COUNTERS, &t, &g->x);
		fprintf(out, "  %-8llu %-16.16s", (unsigned long long)g->x.threads,
			g->comm[0] ? g->comm : "(other names)");
		for (size_t c = 0; c < ncols; c++)
			fprintf(out, " %*s", thread_columns[c].width,
				thread_cell(&t, &thread_columns[c], cell, sizeof(cell)));
		fprintf(out, "\n");
	}
	if (p->nexited > shown)
		fprintf(out, "  ... %zu more names (all of them in --json)\n", p->nexited - shown);
	fprintf(out, "\n");
}

/* Who held the lock: the release sites (model/releases.h) and holders of a
 * word used as a lock, the first site's held-while-contended histogram. */
static void print_releases(const struct ss_report *r, const struct ss_futex_rec *f, FILE *out)
{
	struct ss_release_site *s = NULL;
	struct ss_holder *h = NULL;
	long ns = releases_word_is_lock(f) ? releases_sites(f, &s) : 0;
	long nh = ns > 0 ? releases_holders(f, &h) : 0;
	__u64 wakes = releases_wakes(f);
	long also_wait = 0;
	char a[32], b[32];

	for (long i = 0; i < ns && i < SS_REPORT_TOP_STACKS; i++) {
		fprintf(out, "     release site %ld: %llu wakes (%.0f%%) woke %llu, %u thread%s; held while contended (a lower bound of the hold, not its total): avg %s, max %s over %llu holds measured\n",
			i + 1, (unsigned long long)s[i].v.wakes, 100.0 * s[i].v.wakes / wakes,
			(unsigned long long)s[i].v.woken, s[i].threads, s[i].threads == 1 ? "" : "s",
			fmt_ns(s[i].v.held_contended ? s[i].v.held_contended_ns / s[i].v.held_contended : 0,
			       a, sizeof(a)),
			fmt_ns(s[i].v.held_contended_ns_max, b, sizeof(b)),
			(unsigned long long)s[i].v.held_contended);
		if (!i && s[i].v.held_contended)
			print_log2_hist_ns(s[i].v.held_contended_hist, SS_HIST_SLOTS, "        ", out);
		print_stack(r->stacks, s[i].stack_id, "        ", out);
	}
	if (nh > 0)
		fprintf(out, "     holders:");
	for (long i = 0; i < nh; i++) {
		if (i < 5)
			fprintf(out, " %u %.16s %llu (%.0f%%)%s", h[i].tid, profile_thread_comm(r->profile, h[i].tid) ?: "?",
				(unsigned long long)h[i].releases, 100.0 * h[i].releases / wakes,
				i + 1 < nh && i < 4 ? "," : "");
		also_wait += h[i].also_waits;
	}
	if (nh > 5)
		fprintf(out, " ... %ld more", nh - 5);
	if (also_wait)
		fprintf(out, "; %ld of them also wait for it", also_wait);
	if (nh > 0)
		fprintf(out, "\n");
	free(s);
	free(h);
}

/* A HOT FUTEXES entry after its address and threads. Wait times are those
 * of the waits that slept. */
static const struct text_field futex_fields[] = {
	{ ", ", SS_FCTR_waits, FIELD_VALUE, 0, " waits" },
	{ " (", SS_FCTR_blocked, FIELD_VALUE, 0, " blocked" },
	{ ", ", SS_FCTR_returned_at_once, FIELD_VALUE, 0, " returned at once)" },
	{ ", ", SS_FCTR_wait_ns, FIELD_VALUE, 0, " waiting" },
	{ " (avg ", SS_FCTR_wait_ns, FIELD_PER, SS_FCTR_blocked, "" },
	{ ", max ", SS_FCTR_wait_ns_max, FIELD_VALUE, 0, ")" },
	{ "; ", SS_FCTR_wakes, FIELD_VALUE, 0, " wakes" },
	{ " woke ", SS_FCTR_woken, FIELD_VALUE, 0, "" },
};

static void print_futexes(const struct ss_report *r, FILE *out)
{
	const struct ss_profile *p = r->profile;

	fprintf(out, "HOT FUTEXES (by total wait time)\n");
	if (!p->nfutexes)
		fprintf(out, "  none: no futex call reached the kernel\n");
	for (size_t i = 0; i < p->nfutexes && i < SS_REPORT_TOP_FUTEXES; i++) {
		const struct ss_futex_rec *f = &p->futexes[i];
		const struct counter_source src = { &f->f, futex_value, ss_futex_counter_descs, 0 };
		char a[32];

		fprintf(out, "  #%zu 0x%llx: %u threads", i + 1, (unsigned long long)f->uaddr, f->waiters);
		print_fields(futex_fields, sizeof(futex_fields) / sizeof(futex_fields[0]), &src, out);
		fputc('\n', out);
		if (!f->f.waits)
			continue;
		print_log2_hist_ns(f->f.hist, SS_HIST_SLOTS, "     ", out);
		for (size_t s = 0; s < f->nstacks && s < SS_REPORT_TOP_STACKS; s++) {
			if (f->stacks[s].stack_id < 0)
				continue;
			fprintf(out, "     waiters' stack %zu: %llu waits, %s\n", s + 1,
				(unsigned long long)f->stacks[s].count,
				fmt_ns(f->stacks[s].wait_ns, a, sizeof(a)));
			print_stack(r->stacks, f->stacks[s].stack_id, "        ", out);
		}
		print_releases(r, f, out);
	}
	fprintf(out, "\n");
}

static void print_yields(const struct ss_report *r, FILE *out)
{
	const struct ss_profile *p = r->profile;

	if (!p->nyields)
		return;
	fprintf(out, "SCHED_YIELD CALL SITES\n");
	for (size_t i = 0; i < p->nyields && i < SS_REPORT_TOP_YIELDS; i++) {
		fprintf(out, "  #%zu: %llu calls (%.0f%%)\n", i + 1, (unsigned long long)p->yields[i].count,
			p->totals.sched_yield ? 100.0 * p->yields[i].count / p->totals.sched_yield : 0);
		print_stack(r->stacks, p->yields[i].stack_id, "     ", out);
	}
	fprintf(out, "\n");
}

/* What decoding the samples' registers did: counted, skipped, lost. */
static void print_data_addresses(const struct ss_report *r, FILE *out)
{
	const struct adv_data_addrs *d = r->advisor_input ? &r->advisor_input->data : NULL;

	if (!d || !d->captured)
		return;
	fprintf(out, "  data addresses: %" PRIu64 " samples with registers, %zu distinct accesses; %" PRIu64
		" skipped (no code mapping, vDSO, JIT code without a perf map, unreadable or undecodable), %" PRIu64 " lost\n",
		d->samples, d->naccesses, d->skipped, d->lost);
}

static void print_drops(const struct ss_report *r, FILE *out)
{
	const __u64 *d = r->profile->drops;
	bool any = false, full = false;

	for (int i = 0; i < SS_DROPS; i++) {
		if (!d[i])
			continue;
		if (!any)
			fprintf(out, "DROPPED (events the figures above do not include)\n");
		any = true;
		full |= i != SS_DROP_STACK_FAIL && i != SS_DROP_MISSED_EXIT && i != SS_DROP_PROG_MISSES &&
			i != SS_DROP_STACK_COLLISION;
		fprintf(out, "  %-26s %llu%s\n", ss_drop_names[i], (unsigned long long)d[i],
			i == SS_DROP_MISSED_EXIT ? "  (calls already in progress when tracing began)" :
			i == SS_DROP_STACK_FAIL ? "  (user stack unreadable or stack map full)" :
			i == SS_DROP_STACK_COLLISION ? "  (another stack had its bucket in the kernel's stack map: "
						       "a larger --max-stacks makes that rarer)" :
			i == SS_DROP_PROG_MISSES ? "  (the kernel skipped our programs: another BPF tool ran on that CPU)" : "");
	}
	if (full)
		fprintf(out, "  a map was full: raise --max-threads, --max-futexes or --max-stacks\n");
	if (any)
		fprintf(out, "\n");
}

static void print_symbols(const struct ss_report *r, FILE *out)
{
	const struct ss_report_symbols *s = &r->symbols;

	if (!s->nno_fp && !s->stacks_truncated)
		return;
	fprintf(out, "STACKS: %llu of %llu stop before their thread's entry point\n",
		(unsigned long long)s->stacks_truncated, (unsigned long long)s->stacks);
	for (size_t i = 0; i < s->nno_fp; i++) {
		const char *base = strrchr(s->no_fp[i], '/');

		fprintf(out, "  %s is built without frame pointers%s: %s\n", base ? base + 1 : s->no_fp[i],
			s->no_fp_partial[i] ? " in part" : "",
			s->unwind_on ? "stacks through it were unwound from its .eh_frame"
				     : "frames above its functions are lost");
	}
	if (s->unwind_on)
		fprintf(out, "  %llu of %llu stacks were cut short where that unwinding stopped\n\n",
			(unsigned long long)s->unwind[SS_UNWIND_STAT_CUT_SHORT],
			(unsigned long long)s->unwind[SS_UNWIND_STAT_STACKS]);
	else
		fprintf(out, "  rebuild those with -fno-omit-frame-pointer for whole stacks\n\n");
}

void report_print_text(const struct ss_report *r, FILE *out)
{
	print_header(r, out);
	if (r->advice)
		verdict__print_text(r->advice, out);
	if (r->brief)
		return;
	print_totals(r, out);
	print_threads(r, out);
	print_exited(r, out);
	print_futexes(r, out);
	print_yields(r, out);
	print_symbols(r, out);
	if (r->jvm_map)
		fprintf(out, "JVM PERF MAP: %s\n\n", r->jvm_map);
	if (r->profile->totals.runq_count) {
		fprintf(out, "RUN-QUEUE DELAY (runnable to running, all threads)\n");
		print_log2_hist_ns(r->profile->totals.runq_hist, SS_HIST_SLOTS, "  ", out);
		fprintf(out, "\n");
	}
	print_drops(r, out);
	if (r->samples) {
		samples__print_text(r->samples, out, r->name, r->name_arg, SS_REPORT_TOP_SAMPLES);
		print_data_addresses(r, out);
		fputc('\n', out);
	}
	if (r->advice) {
		if (r->light)
			fprintf(out, "The advice below rests on --light data: see what it does not see above.\n");
		advice__print_text(r->advice, out);
	}
}

/* The -i line: "[    2.0s] futex waits 3 (2/s, 3.0 ms waiting), ...". */
static const struct text_field interval_fields[] = {
	{ "futex waits ", SS_CTR_futex_wait, FIELD_VALUE, 0, "" },
	{ " (", SS_CTR_futex_wait, FIELD_RATE, 0, "/s" },
	{ ", ", SS_CTR_futex_wait_ns, FIELD_VALUE, 0, " waiting)" },
	{ ", wakes ", SS_CTR_futex_wake, FIELD_VALUE, 0, "" },
	{ ", yields ", SS_CTR_sched_yield, FIELD_VALUE, 0, "" },
	{ " (", SS_CTR_sched_yield, FIELD_RATE, 0, "/s)" },
	{ ", switches ", SS_CTR_switches_voluntary, FIELD_VALUE, 0, " vol" },
	{ " / ", SS_CTR_switches_involuntary, FIELD_VALUE, 0, " invol" },
	{ ", on-CPU ", SS_CTR_oncpu_ns, FIELD_VALUE, 0, "" },
};

void report_print_interval_text(const struct ss_profile *p, double t_s, FILE *out)
{
	const struct counter_source src = { &p->totals, totals_value, ss_thread_counter_descs,
					    p->now_ns - p->start_ns };

	fprintf(out, "[%7.1fs] ", t_s);
	print_fields(interval_fields, sizeof(interval_fields) / sizeof(interval_fields[0]), &src, out);
	fputc('\n', out);
}

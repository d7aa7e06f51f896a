// SPDX-License-Identifier: GPL-2.0
/* Prometheus text exposition of the model (see metrics_text.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include "advice.h"
#include "metrics_text.h"
#include "model/releases.h"

void metrics_text__label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

struct mt {
	FILE *f;
	const struct ss_report *r;
};

static void family(struct mt *m, const char *name, const char *type, const char *help)
{
	fprintf(m->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{pid="..",comm=".."[,key="val"]} value */
static void series(struct mt *m, const char *name, const char *key, const char *val, double v)
{
	fprintf(m->f, "%s{pid=\"%d\",comm=\"", name, m->r->pid);
	metrics_text__label_value(m->f, m->r->comm);
	fputc('"', m->f);
	if (key) {
		fprintf(m->f, ",%s=\"", key);
		metrics_text__label_value(m->f, val);
		fputc('"', m->f);
	}
	fprintf(m->f, "} %.17g\n", v);
}

/* The key of the lock ids: random, this process's own. */
static uint8_t lock_id_key[32];
static bool lock_id_key_ok;

static void lock_id_key_init(void)
{
	lock_id_key_ok = getrandom(lock_id_key, sizeof(lock_id_key), 0) == sizeof(lock_id_key);
}

int metrics_text__lock_id(__u64 uaddr, char *buf, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	pthread_once(&once, lock_id_key_init);
	if (!lock_id_key_ok || !HMAC(EVP_sha256(), lock_id_key, sizeof(lock_id_key),
				     (const unsigned char *)&uaddr, sizeof(uaddr), digest, &n) || n < 8)
		return -EAGAIN;
	snprintf(buf, len, "%02x%02x%02x%02x%02x%02x%02x%02x", digest[0], digest[1], digest[2],
		 digest[3], digest[4], digest[5], digest[6], digest[7]);
	return 0;
}

/* name{pid,comm,lock="...",lock_id="..."}: the lock as the advice names
 * it (else "lock <id>"), the opaque id keeping two words of one name
 * (shards) apart. Never the address: whoever reaches the endpoint must not
 * learn where the target's data lies (ASLR). */
static void lock_site_series(struct mt *m, const char *name, const struct ss_futex_rec *r,
			     const char *site, double v)
{
	struct advice_stack_name sn;
	char id[32];

	if (metrics_text__lock_id(r->uaddr, id, sizeof(id)))
		snprintf(id, sizeof(id), "unknown");
	if (!advice__lock_name(r, m->r->stacks, &sn))
		snprintf(sn.name, sizeof(sn.name), "lock %s", id);
	fprintf(m->f, "%s{pid=\"%d\",comm=\"", name, m->r->pid);
	metrics_text__label_value(m->f, m->r->comm);
	fputs("\",lock=\"", m->f);
	metrics_text__label_value(m->f, sn.name);
	fprintf(m->f, "\",lock_id=\"%s\"", id);
	if (site) {
		fputs(",site=\"", m->f);
		metrics_text__label_value(m->f, site);
		fputc('"', m->f);
	}
	fprintf(m->f, "} %.17g\n", v);
}

static void lock_series(struct mt *m, const char *name, const struct ss_futex_rec *r, double v)
{
	lock_site_series(m, name, r, NULL, v);
}

static void per_lock(struct mt *m, const char *name, const char *help, double scale,
		     size_t field_off)
{
	const struct ss_profile *p = m->r->profile;
	double other = 0;

	family(m, name, "counter", help);
	for (size_t i = 0; i < p->nfutexes; i++) {
		double v = *(const __u64 *)((const char *)&p->futexes[i].f + field_off) * scale;

		if (i >= METRICS_TOP_N)
			other += v;
		else
			lock_series(m, name, &p->futexes[i], v);
	}
	if (p->nfutexes > METRICS_TOP_N)
		series(m, name, "lock", "other", other);
}

static void locks(struct mt *m)
{
	per_lock(m, "spinscope_futex_wait_seconds_total",
		 "Time threads spent in futex waits on this lock (lock_id: an opaque id of its address).", 1e-9,
		 offsetof(struct ss_futex, wait_ns));
	per_lock(m, "spinscope_futex_waits_total", "Futex waits on this lock that returned.", 1,
		 offsetof(struct ss_futex, waits));
	per_lock(m, "spinscope_futex_wakes_total", "Futex wake calls on this lock.", 1,
		 offsetof(struct ss_futex, wakes));
}

/* Which value of a release site a family shows. */
enum rel_value { REL_WAKES, REL_HELD_NS };

static double rel_value(const struct ss_release_site *s, enum rel_value which)
{
	return which == REL_WAKES ? (double)s->v.wakes : s->v.held_contended_ns * 1e-9;
}

/* One lock's release sites into one family, by the site's name as the
 * advice gives it (two stacks of one name are one series); the sites past
 * METRICS_TOP_N summed as site="other". 0 or -ENOMEM. */
static int lock_release_sites(struct mt *m, const char *name, const struct ss_futex_rec *r,
			      enum rel_value which)
{
	struct advice_stack_name names[METRICS_TOP_N];
	double vals[METRICS_TOP_N], other = 0;
	struct ss_release_site *sites;
	long n = releases_sites(r, &sites);
	size_t k = 0;

	if (n < 0)
		return (int)n;
	for (long i = 0; i < n; i++) {
		double v = rel_value(&sites[i], which);
		struct advice_stack_name sn;
		size_t j;

		if (!advice__site_name(sites[i].stack_id, m->r->stacks, &sn))
			snprintf(sn.name, sizeof(sn.name), sites[i].stack_id < 0 ? "[no user stack]" :
				 "stack_%d", sites[i].stack_id);
		for (j = 0; j < k && strcmp(names[j].name, sn.name); j++)
			;
		if (j == k && k == METRICS_TOP_N) {
			other += v;
			continue;
		}
		if (j == k) {
			names[k] = sn;
			vals[k++] = 0;
		}
		vals[j] += v;
	}
	for (size_t j = 0; j < k; j++)
		lock_site_series(m, name, r, names[j].name, vals[j]);
	if (other > 0)
		lock_site_series(m, name, r, "other", other);
	free(sites);
	return 0;
}

/*
 * Who holds the top locks (model/releases.h): per release site, the wakes
 * that found waiters and the sum of their held-while-contended lower
 * bounds; per lock, how many threads released it while others waited.
 * Words not used as locks (a condition variable's signallers) have none.
 */
static int releases(struct mt *m)
{
	static const struct { const char *name, *help; enum rel_value which; } fams[] = {
		{ "spinscope_futex_release_wakes_total",
		  "Wakes that found waiters on this lock, by release site (the releasing holder's stack); "
		  "none under --light, which does not see who holds a lock.",
		  REL_WAKES },
		{ "spinscope_futex_held_contended_seconds_total",
		  "Sum over this lock's contended holds, by release site, of the time from the start "
		  "of the earliest wait the release woke, begun during the hold, to the release: a "
		  "lower bound of hold time under contention, not total hold time.",
		  REL_HELD_NS },
	};
	const struct ss_profile *p = m->r->profile;
	size_t n = p->nfutexes < METRICS_TOP_N ? p->nfutexes : METRICS_TOP_N;
	int err;

	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		family(m, fams[f].name, "counter", fams[f].help);
		for (size_t i = 0; i < n; i++)
			if (releases_word_is_lock(&p->futexes[i]) &&
			    (err = lock_release_sites(m, fams[f].name, &p->futexes[i], fams[f].which)))
				return err;
	}
	family(m, "spinscope_futex_holders", "gauge",
	       "Threads that released this lock while others waited for it (none under --light).");
	for (size_t i = 0; i < n; i++) {
		struct ss_holder *h;
		long nh;

		if (!releases_word_is_lock(&p->futexes[i]))
			continue;
		nh = releases_holders(&p->futexes[i], &h);
		if (nh < 0)
			return (int)nh;
		lock_series(m, "spinscope_futex_holders", &p->futexes[i], (double)nh);
		free(h);
	}
	return 0;
}

/* The top sites by their advice name ("stack_<id>" unnamed); two stacks
 * of one name are one series. */
static void yields(struct mt *m)
{
	const struct ss_profile *p = m->r->profile;
	const char *name = "spinscope_sched_yield_site_total";
	size_t n = p->nyields < METRICS_TOP_N ? p->nyields : METRICS_TOP_N, k = 0;
	struct advice_stack_name sites[METRICS_TOP_N];
	__u64 counts[METRICS_TOP_N], other = 0;

	family(m, "spinscope_sched_yield_total", "counter", "sched_yield calls of the target.");
	series(m, "spinscope_sched_yield_total", NULL, NULL, (double)p->totals.sched_yield);
	family(m, name, "counter", "sched_yield calls by call site (first frame the user owns).");
	for (size_t i = 0; i < p->nyields; i++) {
		size_t j;

		if (i >= n) {
			other += p->yields[i].count;
			continue;
		}
		if (!advice__site_name(p->yields[i].stack_id, m->r->stacks, &sites[k]))
			snprintf(sites[k].name, sizeof(sites[k].name), "stack_%d", p->yields[i].stack_id);
		for (j = 0; j < k && strcmp(sites[j].name, sites[k].name); j++)
			;
		if (j == k)
			counts[k++] = 0;
		counts[j] += p->yields[i].count;
	}
	for (size_t j = 0; j < k; j++)
		series(m, name, "site", sites[j].name, (double)counts[j]);
	if (p->nyields > n)
		series(m, name, "site", "other", (double)other);
}

static void scheduler(struct mt *m)
{
	const struct ss_totals *t = &m->r->profile->totals;
	const char *h = "spinscope_runqueue_delay_seconds";
	__u64 cum = 0;

	family(m, "spinscope_context_switches_total", "counter", "Context switches of the target's threads.");
	series(m, "spinscope_context_switches_total", "kind", "voluntary", (double)t->switches_voluntary);
	series(m, "spinscope_context_switches_total", "kind", "involuntary", (double)t->switches_involuntary);
	family(m, "spinscope_oncpu_seconds_total", "counter", "Time the target's threads ran.");
	series(m, "spinscope_oncpu_seconds_total", NULL, NULL, t->oncpu_ns * 1e-9);
	family(m, "spinscope_offcpu_seconds_total", "counter", "Time the target's threads were off CPU.");
	series(m, "spinscope_offcpu_seconds_total", NULL, NULL, t->offcpu_ns * 1e-9);
	family(m, h, "histogram", "Time runnable threads waited for a CPU (log2 buckets).");
	for (int i = 0; i < SS_HIST_SLOTS - 1; i++) {
		char le[32];

		cum += t->runq_hist[i];
		/* Slot i holds [2^i, 2^(i+1)) ns. */
		snprintf(le, sizeof(le), "%.9g", (double)(1ull << (i + 1)) * 1e-9);
		fprintf(m->f, "%s_bucket{pid=\"%d\",comm=\"", h, m->r->pid);
		metrics_text__label_value(m->f, m->r->comm);
		fprintf(m->f, "\",le=\"%s\"} %llu\n", le, (unsigned long long)cum);
	}
	cum += t->runq_hist[SS_HIST_SLOTS - 1];
	fprintf(m->f, "%s_bucket{pid=\"%d\",comm=\"", h, m->r->pid);
	metrics_text__label_value(m->f, m->r->comm);
	fprintf(m->f, "\",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
	series(m, "spinscope_runqueue_delay_seconds_sum", NULL, NULL, t->runq_ns * 1e-9);
	series(m, "spinscope_runqueue_delay_seconds_count", NULL, NULL, (double)cum);
}

static void process(struct mt *m)
{
	const struct ss_profile *p = m->r->profile;

	family(m, "spinscope_threads", "gauge", "Threads of the target seen by the trace.");
	series(m, "spinscope_threads", NULL, NULL, (double)p->nthreads);
	family(m, "spinscope_trace_seconds", "gauge", "How long the trace has run.");
	series(m, "spinscope_trace_seconds", NULL, NULL, (p->now_ns - p->start_ns) * 1e-9);
	family(m, "spinscope_dropped_events_total", "counter",
	       "Events the tracer could not record in full, by reason.");
	for (int i = 0; i < SS_DROPS; i++)
		series(m, "spinscope_dropped_events_total", "reason", ss_drop_names[i], (double)p->drops[i]);
}

static void findings(struct mt *m)
{
	const struct adv_report *a = m->r->advice;

	family(m, "spinscope_finding", "gauge",
	       "1 for each finding of the current advice.");
	for (size_t i = 0; a && i < a->n; i++) {
		fprintf(m->f, "spinscope_finding{pid=\"%d\",comm=\"", m->r->pid);
		metrics_text__label_value(m->f, m->r->comm);
		fprintf(m->f, "\",id=\"");
		metrics_text__label_value(m->f, a->findings[i].id);
		fprintf(m->f, "\",severity=\"%s\"} 1\n", advisor__severity_name(a->findings[i].severity));
	}
}

int metrics_text__render(const struct ss_report *r, char **buf, size_t *len)
{
	struct mt m = { .r = r };
	int err = 0;

	*buf = NULL;
	m.f = open_memstream(buf, len);
	if (!m.f)
		return -errno;
	locks(&m);
	err = releases(&m);
	yields(&m);
	scheduler(&m);
	process(&m);
	findings(&m);
	if (ferror(m.f) && !err)
		err = -ENOMEM;
	if (fclose(m.f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

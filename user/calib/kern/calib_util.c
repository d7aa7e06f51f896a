// SPDX-License-Identifier: GPL-2.0
/*
 * Measurement helpers shared by the reference-kernel families (see
 * calib_util.h): clocks, statistics, pinned thread teams, busy-host probe.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/sort.h"
#include "calib_stat.h"
#include "calib_util.h"
#include "common/cpulist.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t calib__now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t calib__thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

int calib__parse_cpulist(const char *list, cpu_set_t *set)
{
	int cpus[CPU_SETSIZE];
	int n;

	CPU_ZERO(set);
	if (!list)
		return -EINVAL;
	/* One parser for the kernel's list format (cpulist.c). */
	n = cpulist__parse(list, cpus, CPU_SETSIZE);
	if (n <= 0)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		if (cpus[i] >= CPU_SETSIZE)
			return -EINVAL;
		CPU_SET(cpus[i], set);
	}
	return 0;
}

int calib__nth_cpu(const cpu_set_t *set, int i)
{
	int count = CPU_COUNT(set), seen = 0;

	if (count == 0 || i < 0)
		return -1;
	i %= count;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && seen++ == i)
			return c;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of |s[i] - median| over s[0..n-1], in place: s is reordered. */
static double median_abs_dev(double *s, int n, double median)
{
	for (int i = 0; i < n; i++)
		s[i] = fabs(s[i] - median);
	ss_sort(s, (size_t)n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

void calib_stats__compute(struct calib_stats *st, const double *samples, int n)
{
	double *s, sum = 0, var = 0, mean;

	memset(st, 0, sizeof(*st));
	if (n <= 0)
		return;
	s = malloc(sizeof(*s) * (size_t)n);
	if (!s) {
		/* Without scratch memory, report the first sample alone. */
		st->median = st->min = st->max = samples[0];
		st->ci_lo = st->ci_hi = samples[0];
		st->n = 1;
		return;
	}
	memcpy(s, samples, sizeof(*s) * (size_t)n);
	ss_sort(s, (size_t)n, sizeof(*s), cmp_double);
	st->n = n;
	st->min = s[0];
	st->max = s[n - 1];
	st->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	calib_ci__median(s, n, &st->ci_lo, &st->ci_hi);
	for (int i = 0; i < n; i++)
		sum += s[i];
	mean = sum / n;
	for (int i = 0; i < n; i++)
		var += (s[i] - mean) * (s[i] - mean);
	if (n > 1 && mean != 0)
		st->cv = sqrt(var / (n - 1)) / fabs(mean);
	st->mad = median_abs_dev(s, n, st->median);
	free(s);
}

int calib__repeat(int reps, volatile sig_atomic_t *stop,
		  double (*measure)(void *arg), void *arg, struct calib_stats *st)
{
	double *s = calloc((size_t)(reps > 0 ? reps : 1), sizeof(*s));
	int n = 0;

	if (!s) {
		memset(st, 0, sizeof(*st));
		return 0;
	}
	while (n < reps && !(stop && *stop))
		s[n++] = measure(arg);
	calib_stats__compute(st, s, n);
	free(s);
	return n;
}

uint64_t calib__iters_for(double budget_ns, double est_ns, uint64_t lo, uint64_t hi)
{
	double n = est_ns > 0 ? budget_ns / est_ns : (double)hi;

	if (n < (double)lo)
		return lo;
	if (n > (double)hi)
		return hi;
	return (uint64_t)n;
}

int calib__pin_self(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return -pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

struct team {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;			/* 0 wait, 1 run, -1 give up (creation failed) */
	void (*fn)(int idx, void *arg);
	void *arg;
	struct calib_team_member *members;
};

struct team_slot {
	struct team *team;
	int idx;
};

static void *team_thread(void *p)
{
	struct team_slot *slot = p;
	struct team *t = slot->team;
	struct calib_team_member *m = &t->members[slot->idx];
	uint64_t cpu0;
	int go;

	/* A gate rather than a barrier: if a later thread cannot be created,
	 * the ones already waiting are told to leave without running fn. */
	pthread_mutex_lock(&t->lock);
	while (!(go = t->go))
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
	if (go < 0)
		return NULL;
	m->start_ns = calib__now_ns();
	cpu0 = calib__thread_cpu_ns();
	t->fn(slot->idx, t->arg);
	m->cpu_ns = calib__thread_cpu_ns() - cpu0;
	m->end_ns = calib__now_ns();
	return NULL;
}

static void team_open_gate(struct team *t, int go)
{
	pthread_mutex_lock(&t->lock);
	t->go = go;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

int calib_team__run(const cpu_set_t *cpus, int nthreads,
		    void (*fn)(int idx, void *arg), void *arg,
		    struct calib_team_result *res)
{
	struct team t = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
		.fn = fn, .arg = arg,
	};
	struct team_slot *slots;
	pthread_t *tids;
	uint64_t first = UINT64_MAX, last = 0;
	int err = 0, started = 0;

	memset(res, 0, sizeof(*res));
	if (nthreads <= 0 || CPU_COUNT(cpus) == 0)
		return -EINVAL;
	t.members = calloc((size_t)nthreads, sizeof(*t.members));
	slots = calloc((size_t)nthreads, sizeof(*slots));
	tids = calloc((size_t)nthreads, sizeof(*tids));
	if (!t.members || !slots || !tids) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_attr_t attr;
		cpu_set_t one;

		t.members[i].idx = i;
		t.members[i].cpu = calib__nth_cpu(cpus, i);
		slots[i] = (struct team_slot){ &t, i };
		CPU_ZERO(&one);
		CPU_SET(t.members[i].cpu, &one);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		err = -pthread_create(&tids[i], &attr, team_thread, &slots[i]);
		pthread_attr_destroy(&attr);
		if (err)
			break;
		started++;
	}
	team_open_gate(&t, err ? -1 : 1);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (err)
		goto out;

	res->nthreads = nthreads;
	res->members = t.members;
	t.members = NULL;
	for (int i = 0; i < nthreads; i++) {
		struct calib_team_member *m = &res->members[i];

		first = m->start_ns < first ? m->start_ns : first;
		last = m->end_ns > last ? m->end_ns : last;
		res->cpu_ns_sum += m->cpu_ns;
	}
	res->wall_ns = last > first ? last - first : 1;
	res->overlap = (double)res->cpu_ns_sum / ((double)res->wall_ns * nthreads);
out:
	free(t.members);
	free(slots);
	free(tids);
	return err;
}

void calib_team__free(struct calib_team_result *res)
{
	free(res->members);
	res->members = NULL;
}

int calib__read_text(const char *root, const char *rel, char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	size_t n;

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s%s", root ? root : "", rel);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The live view's refresh thread and its three snapshot copies (top_feed.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "common/errors.h"
#include "common/grow.h"
#include "top_feed.h"

/* One copy of a snapshot: its processes and all their threads. */
struct snap_copy {
	struct top_snapshot s;
	struct top_proc *procs;
	size_t pcap;
	struct top_thread *threads;
	size_t tcap;
};

struct top_feed {
	top_refresh_fn refresh;
	void *ctx;
	volatile int stop;
	pthread_t thread;
	pthread_mutex_t lock;
	struct snap_copy buf[3];
	struct snap_copy *filling, *ready, *shown;	/* ready: under lock */
	bool fresh;			/* ready holds one not taken yet */
	int rc;				/* the refresh's failure, under lock */
};

static int copy_snapshot(struct snap_copy *c, const struct top_snapshot *s)
{
	size_t nthreads = 0, t = 0;

	for (size_t i = 0; i < s->nprocs; i++)
		nthreads += s->procs[i].threads ? s->procs[i].nthreads_detail : 0;
	if (ss_reserve((void **)&c->procs, &c->pcap, s->nprocs, sizeof(*c->procs)) ||
	    ss_reserve((void **)&c->threads, &c->tcap, nthreads, sizeof(*c->threads)))
		return -ENOMEM;
	c->s = *s;
	c->s.procs = c->procs;
	for (size_t i = 0; i < s->nprocs; i++) {
		struct top_proc *p = &c->procs[i];

		*p = s->procs[i];
		p->words = NULL;
		p->nwords = 0;
		if (!p->threads || !p->nthreads_detail) {
			p->threads = NULL;	/* memcpy to a NULL array, even of 0 bytes, is UB */
			continue;
		}
		memcpy(&c->threads[t], p->threads, p->nthreads_detail * sizeof(*c->threads));
		p->threads = &c->threads[t];
		t += p->nthreads_detail;
	}
	return 0;
}

static void *feed_loop(void *arg)
{
	struct top_feed *f = arg;
	struct top_snapshot s;

	while (!f->stop) {
		int rc;

		memset(&s, 0, sizeof(s));
		rc = f->refresh(f->ctx, &s, &f->stop);
		if (!rc && f->stop)
			break;
		if (!rc && copy_snapshot(f->filling, &s))
			rc = SS_EXIT_RESOURCES;
		pthread_mutex_lock(&f->lock);
		if (rc) {
			f->rc = rc;
			f->fresh = true;
		} else {
			struct snap_copy *t = f->ready;

			f->ready = f->filling;
			f->filling = t;
			f->fresh = true;
		}
		pthread_mutex_unlock(&f->lock);
		if (rc)
			break;
	}
	return NULL;
}

struct top_feed *top_feed_start(top_refresh_fn refresh, void *ctx)
{
	struct top_feed *f = calloc(1, sizeof(*f));
	sigset_t block, old;
	int err;

	if (!f)
		return NULL;
	f->refresh = refresh;
	f->ctx = ctx;
	f->filling = &f->buf[0];
	f->ready = &f->buf[1];
	f->shown = &f->buf[2];
	pthread_mutex_init(&f->lock, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	err = pthread_create(&f->thread, NULL, feed_loop, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_mutex_destroy(&f->lock);
		free(f);
		errno = err;
		return NULL;
	}
	return f;
}

const struct top_snapshot *top_feed_take(struct top_feed *f, int *rc)
{
	const struct top_snapshot *s = NULL;

	pthread_mutex_lock(&f->lock);
	*rc = f->rc;
	if (f->fresh && !f->rc) {
		struct snap_copy *t = f->shown;

		f->shown = f->ready;
		f->ready = t;
		s = &f->shown->s;
	}
	f->fresh = false;
	pthread_mutex_unlock(&f->lock);
	return s;
}

void top_feed_stop(struct top_feed *f)
{
	if (!f)
		return;
	f->stop = 1;
	pthread_join(f->thread, NULL);
	pthread_mutex_destroy(&f->lock);
	for (int i = 0; i < 3; i++) {
		free(f->buf[i].procs);
		free(f->buf[i].threads);
	}
	free(f);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The futex words of one refresh: each (thread, word) record's change
 * since the last refresh, summed per (process, word) into struct top_word
 * with the figures adv_futex_use() needs (distinct waiters and wakers,
 * wakes made by waiters). Idle words' records are deleted once read, so
 * the map and the previous table hold only words in use.
 */
#ifndef SPINSCOPE_TOP_WORDS_H
#define SPINSCOPE_TOP_WORDS_H

#include <stddef.h>
#include <stdint.h>
#include "top/top_model.h"
#include "top_mapread.h"

/* Time of futex waits still blocked at a refresh, credited to their word
 * before the wait ends (ns may be negative: last refresh's credit taken
 * back). */
struct top_wait_credit {
	uint32_t tgid;
	uint64_t uaddr;
	int64_t ns;
};

struct top_words {
	struct top_map_table cur, prev;	/* records: struct word_rec */
	struct top_word *out;		/* sorted by (tgid, uaddr) */
	uint32_t *out_tgid;		/* the process of each */
	size_t nout, cap;
};

/* Reads the word map fd and fills w->out with the interval's words
 * (credits applied). 0 or -errno. */
int top_words_refresh(struct top_words *w, int fd, const struct top_wait_credit *credits, size_t ncredits);
/* The first word of process tgid in w->out and how many (0: none). */
struct top_word *top_words_of(struct top_words *w, uint32_t tgid, size_t *n);
void top_words_free(struct top_words *w);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The samples' data addresses as the advisor's input: each register sample
 * decoded (syms/data_addr.h), the accesses merged by (address, thread,
 * store, size, instruction) and weighed by their samples, the heaviest
 * kept and named.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/sort.h"
#include "advice.h"
#include "advisor/runtime.h"
#include "syms/data_addr.h"

#define MAX_KEPT 4096		/* distinct accesses the advisor sees */
#define OPS_PER_SAMPLE 6	/* two instructions, a few operands each */

struct raw {
	struct data_access a;
	uint32_t tid;
	uint64_t samples;
};

static int cmp_key(const void *x, const void *y)
{
	const struct raw *a = x, *b = y;

	if (a->a.addr != b->a.addr)
		return a->a.addr < b->a.addr ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->a.store != b->a.store)
		return a->a.store ? 1 : -1;
	if (a->a.size != b->a.size)
		return a->a.size < b->a.size ? -1 : 1;
	if (a->a.ip != b->a.ip)
		return a->a.ip < b->a.ip ? -1 : 1;
	return (a->a.site_ip > b->a.site_ip) - (a->a.site_ip < b->a.site_ip);
}

static int cmp_weight(const void *x, const void *y)
{
	const struct raw *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return cmp_key(x, y);
}

/* Every sample's accesses, merged; how many distinct, or -ENOMEM. */
static long decode_all(struct data_addr *da, const struct samples_result *sr, struct raw **out)
{
	struct raw *r = NULL;
	size_t n = 0, cap = 0, m = 0;

	for (size_t i = 0; i < sr->nr_regs; i++) {
		struct data_access a[OPS_PER_SAMPLE];
		size_t k = data_addr__sample(da, &sr->regs[i], a, OPS_PER_SAMPLE);

		if (n + k > cap) {
			struct raw *t = realloc(r, (cap = (n + k) * 2) * sizeof(*t));

			if (!t) {
				free(r);
				return -ENOMEM;
			}
			r = t;
		}
		for (size_t j = 0; j < k; j++)
			r[n++] = (struct raw){ .a = a[j], .tid = sr->regs[i].tid, .samples = 1 };
	}
	if (n)
		ss_sort(r, n, sizeof(*r), cmp_key);
	for (size_t i = 0; i < n; i++) {
		if (m && !cmp_key(&r[m - 1], &r[i]))
			r[m - 1].samples++;
		else
			r[m++] = r[i];
	}
	*out = r;
	return (long)m;
}

static const char *lang_name(enum data_lang l)
{
	return l == DATA_LANG_RUST ? "rust" : l == DATA_LANG_CXX ? "c++" : "c";
}

static void name_all(struct data_addr *da, const struct raw *r, size_t n,
		     struct adv_data_access *out, struct adv_data_addrs *d)
{
	/* The JVM's JIT code has no mangling to tell: it is Java's. */
	bool lang_set = !strcmp(d->lang, "java");

	for (size_t i = 0; i < n; i++) {
		struct adv_data_access *a = &out[i];
		char mod[256];
		enum data_lang lang;

		a->addr = r[i].a.addr;
		a->tid = r[i].tid;
		a->size = r[i].a.size;
		a->store = r[i].a.store;
		a->samples = r[i].samples;
		a->region = (enum adv_data_region)data_addr__name(da, a->addr, a->data, sizeof(a->data));
		data_addr__func(da, r[i].a.site_ip, a->func, sizeof(a->func), mod, sizeof(mod), &lang);
		a->runtime = adv_is_runtime_module(mod);
		snprintf(a->insn, sizeof(a->insn), "%s", r[i].a.insn);
		/* The heaviest store's code says which language the fix is in. */
		if (a->store && !a->runtime && !lang_set) {
			snprintf(d->lang, sizeof(d->lang), "%s", lang_name(lang));
			lang_set = true;
		}
	}
}

int advice__add_data(struct advice_input *in, int pid, const struct samples_result *sr)
{
	struct adv_data_addrs *d = &in->profile.data;
	const struct data_addr_stats *st;
	struct data_addr *da;
	struct raw *r = NULL;
	long n;

	if (!sr->regs_on)
		return 0;
	snprintf(d->lang, sizeof(d->lang), "%s", in->profile.target.is_jvm ? "java" : "c");
	d->lost = sr->regs_lost + sr->drops[SS_SAMPLE_DROP_REGS_FULL];
	da = data_addr__new(pid, DATA_ARCH_HOST, sr->regs, sr->nr_regs);
	if (!da)
		return errno == ENOMEM ? -ENOMEM : 0;	/* gone: nothing to decode */
	n = decode_all(da, sr, &r);
	if (n < 0) {
		data_addr__free(da);
		return (int)n;
	}
	ss_sort(r, (size_t)n, sizeof(*r), cmp_weight);
	if (n > MAX_KEPT)
		n = MAX_KEPT;
	in->data = calloc((size_t)n + 1, sizeof(*in->data));
	if (!in->data) {
		free(r);
		data_addr__free(da);
		return -ENOMEM;
	}
	name_all(da, r, (size_t)n, in->data, d);
	st = data_addr__stats(da);
	d->captured = true;
	d->samples = st->samples;
	d->skipped = st->unmapped + st->vdso + st->jit_no_map + st->unreadable + st->undecodable;
	in->data_stats = *st;
	d->accesses = in->data;
	d->naccesses = (size_t)n;
	free(r);
	data_addr__free(da);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The exports on a profile built by hand: the metrics text's bounded lock
 * and site labels (with exact "other" sums), escaped label values, the
 * cumulative run-queue histogram and the finding gauge; the pprof profile
 * decoded back (gunzip, then protobuf-c's own unpacker) with its sample
 * types, values, stacks, functions, mappings and labels; the --metrics
 * address forms.
 */
#include "testlib.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "report/advice.h"
#include "report/metrics_http.h"
#include "report/metrics_text.h"
#include "report/pprof.h"

#define NFUTEX (METRICS_TOP_N + 7)
#define NYIELD (METRICS_TOP_N + 3)

static __u64 ips1[3] = { 0x401010, 0x401105, 0x7f0000002005 };
static struct ss_stack stack_v[] = { { .id = 1, .depth = 3, .ips = ips1 } };
static const struct ss_stacks stacks = { .v = stack_v, .n = 1, .cap = 1 };
static __u64 sample_ips[2] = { 0x401020, 0x401105 };

struct fixture {
	struct ss_thread threads[1];
	struct ss_futex_rec futexes[NFUTEX];
	struct ss_waiter_stack wstack;
	__u32 tid;
	struct ss_yield_site yields[NYIELD];
	struct samples_stack sstacks[1];
	struct samples_result sres;
	struct adv_report advice;
	struct ss_profile prof;
	struct ss_report rep;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->threads[0] = (struct ss_thread){
		.tid = 77, .comm = "worker", .sched_yield = 1234, .runq_count = 3, .runq_ns = 7000,
		.runq_hist = { [2] = 1, [10] = 2 }, .switches_voluntary = 5,
	};
	for (int i = 0; i < NFUTEX; i++)
		fx->futexes[i] = (struct ss_futex_rec){
			.uaddr = 0x1000 + 4 * (unsigned)i,
			.f = { .waits = 1, .wait_ns = 1000000ull * (NFUTEX - i), .wakes = 2 },
		};
	fx->wstack = (struct ss_waiter_stack){ .stack_id = 1, .count = 4, .wait_ns = 5000 };
	fx->tid = 77;
	fx->futexes[0].stacks = &fx->wstack;
	fx->futexes[0].nstacks = 1;
	fx->futexes[0].waiters = 1;
	fx->futexes[0].tids = &fx->tid;
	for (int i = 0; i < NYIELD; i++)
		fx->yields[i] = (struct ss_yield_site){ .stack_id = i + 1, .count = 100 - i };
	fx->sstacks[0] = (struct samples_stack){ .tid = 77, .stack_id = 3, .count = 9, .depth = 2,
						 .ips = sample_ips };
	fx->sres = (struct samples_result){ .event = "cpu-clock", .available = true, .period = 1000,
					    .stacks = fx->sstacks, .nr_stacks = 1 };
	fx->advice.n = 1;
	snprintf(fx->advice.findings[0].id, sizeof(fx->advice.findings[0].id), "spin-yield");
	fx->advice.findings[0].severity = ADV_WARNING;
	fx->prof = (struct ss_profile){
		.start_ns = 0, .now_ns = 2000000000ull, .threads = fx->threads, .nthreads = 1,
		.futexes = fx->futexes, .nfutexes = NFUTEX, .yields = fx->yields, .nyields = NYIELD,
	};
	profile_finish(&fx->prof);
	fx->rep = (struct ss_report){ .pid = 42, .comm = "a\"b\\c", .duration_ns = 2000000000ull,
				      .profile = &fx->prof, .stacks = &stacks, .samples = &fx->sres,
				      .advice = &fx->advice };
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *l = text; *l; l = strchrnul(l, '\n'), l += !!*l)
		n += !strncmp(l, prefix, len);
	return n;
}

static void test_metrics_labels_bounded_and_exact(void **state)
{
	struct fixture *fx = *state;
	char *text, want[256], id[32];
	size_t len;
	double other_s = 0;
	unsigned long long other_y = 0;

	assert_int_equal(metrics_text__render(&fx->rep, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	assert_int_equal(count_lines(text, "spinscope_futex_wait_seconds_total{"), METRICS_TOP_N + 1);
	assert_int_equal(count_lines(text, "spinscope_sched_yield_site_total{"), METRICS_TOP_N + 1);
	for (int i = METRICS_TOP_N; i < NFUTEX; i++)
		other_s += (NFUTEX - i) * 1e-3;
	for (int i = METRICS_TOP_N; i < NYIELD; i++)
		other_y += 100 - i;
	snprintf(want, sizeof(want),
		 "spinscope_futex_wait_seconds_total{pid=\"42\",comm=\"a\\\"b\\\\c\",lock=\"other\"} %.17g\n",
		 other_s);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want),
		 "spinscope_sched_yield_site_total{pid=\"42\",comm=\"a\\\"b\\\\c\",site=\"other\"} %llu\n",
		 other_y);
	assert_non_null(strstr(text, want));
	/* The hottest lock is first; without frames named by its opaque id,
	 * and sites by id. No address: whoever scrapes must not learn it. */
	assert_int_equal(metrics_text__lock_id(0x1000, id, sizeof(id)), 0);
	assert_int_equal(strlen(id), 16);
	snprintf(want, sizeof(want), "lock=\"lock %s\",lock_id=\"%s\"} 0.027", id, id);
	assert_non_null(strstr(text, want));
	assert_null(strstr(text, "0x"));	/* no lock's address at all */
	assert_non_null(strstr(text, "site=\"stack_1\"} 100\n"));
	assert_non_null(strstr(text, "spinscope_sched_yield_total{pid=\"42\",comm=\"a\\\"b\\\\c\"} 1234\n"));
	/* Slot 2 is [4, 8) ns, slot 10 [1024, 2048): cumulative buckets. */
	assert_non_null(strstr(text, "le=\"8e-09\"} 1\n"));
	assert_non_null(strstr(text, "le=\"1.024e-06\"} 1\n"));
	assert_non_null(strstr(text, "le=\"2.048e-06\"} 3\n"));
	assert_non_null(strstr(text, "le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(text, "id=\"spin-yield\",severity=\"warning\"} 1\n"));
	free(text);
}

/* A fake symbolizer: 0x40xxxx is app's, 0x7fxxxxxxxxxx libc's. */
static int fake_resolve(void *arg, uint64_t ip, struct pprof_frame *out)
{
	bool app = ip < 0x1000000;

	out->name = app ? (ip < 0x401100 ? "lock_it" : "main") : "syscall";
	out->module = app ? "/usr/bin/app" : "/lib/libc.so.6";
	out->module_offset = app ? ip - 0x400000 : ip - 0x7f0000000000;
	out->build_id = app ? "abcd" : NULL;
	return 0;
}

static Perftools__Profiles__Profile *decode(const void *gz, size_t len)
{
	static unsigned char raw[1 << 20];
	uLongf rawlen = sizeof(raw);
	z_stream z = { .next_in = (Bytef *)gz, .avail_in = (uInt)len, .next_out = raw,
		       .avail_out = (uInt)rawlen };

	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	rawlen = z.total_out;
	inflateEnd(&z);
	return perftools__profiles__profile__unpack(NULL, rawlen, raw);
}

static const char *str(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static const char *leaf_name(const Perftools__Profiles__Profile *p, const Perftools__Profiles__Sample *s)
{
	const Perftools__Profiles__Location *l = p->location[s->location_id[0] - 1];

	assert_int_equal(l->id, s->location_id[0]);
	assert_int_equal(l->n_line, 1);
	return str(p, p->function[l->line[0]->function_id - 1]->name);
}

static const char *label(const Perftools__Profiles__Profile *p, const Perftools__Profiles__Sample *s,
			 const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(p, s->label[i]->key), key))
			return s->label[i]->str ? str(p, s->label[i]->str) : "(num)";
	return NULL;
}

static void test_pprof_decodes_back(void **state)
{
	static const char *const types[] = { "futex_wait", "futex_waits", "sched_yield", "cpu-clock",
					     "futex_at_once", "futex_releases" };
	struct fixture *fx = *state;
	Perftools__Profiles__Profile *p;
	void *gz;
	size_t len, futex_samples = 0;

	assert_int_equal(pprof__encode(&fx->rep, fake_resolve, NULL, &gz, &len), 0);
	p = decode(gz, len);
	assert_non_null(p);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(str(p, p->sample_type[i]->type), types[i]);
	assert_string_equal(str(p, p->sample_type[0]->unit), "nanoseconds");
	assert_int_equal(p->duration_nanos, 2000000000ll);
	/* One waiter stack, NYIELD sites (only stack 1 held), one sample. */
	assert_int_equal(p->n_sample, 1 + NYIELD + 1);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		assert_int_equal(s->n_value, 6);
		if (s->value[0]) {
			futex_samples++;
			assert_int_equal(s->value[0], 5000);
			assert_int_equal(s->value[1], 4);
			assert_int_equal(s->n_location_id, 3);
			assert_string_equal(leaf_name(p, s), "lock_it");
			assert_string_equal(label(p, s, "futex"), "0x1000");
			assert_string_equal(label(p, s, "thread"), "worker");
		} else if (s->value[3]) {
			assert_int_equal(s->value[3], 9);
			assert_string_equal(leaf_name(p, s), "lock_it");
			assert_string_equal(label(p, s, "thread"), "worker");
		} else if (s->value[2] == 100) {
			assert_int_equal(s->n_location_id, 3);
		}
	}
	assert_int_equal(futex_samples, 1);
	/* Two mappings; app's has its build-id and holds every app address
	 * at its own file offset. */
	assert_int_equal(p->n_mapping, 2);
	for (size_t i = 0; i < p->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = p->mapping[i];

		if (strcmp(str(p, m->filename), "/usr/bin/app"))
			continue;
		assert_string_equal(str(p, m->build_id), "abcd");
		assert_true(m->memory_start <= 0x401010 && m->memory_limit > 0x401104);
		assert_int_equal(m->memory_start - m->file_offset, 0x400000);
	}
	/* Callers' return addresses are stored as their call instruction. */
	for (size_t i = 0; i < p->n_location; i++)
		assert_true(p->location[i]->address != 0x401105);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
}

/* Two threads on one waiter stack: one sample each, each with its own
 * thread, as the waiters map counted them (not one unlabelled sample). */
static void test_pprof_futex_samples_per_thread(void **state)
{
	struct fixture *fx = *state;
	struct ss_thread threads[2] = { fx->threads[0], { .tid = 78, .comm = "other" } };
	struct ss_waiter_share shares[2] = {
		{ .stack_id = 1, .tid = 77, .count = 3, .wait_ns = 4000, .at_once = 2 },
		{ .stack_id = 1, .tid = 78, .count = 1, .wait_ns = 1000 },
	};
	__u32 tids[2] = { 77, 78 };
	Perftools__Profiles__Profile *p;
	size_t len, n = 0;
	__u64 ns = 0;
	void *gz;

	fx->prof.threads = threads;
	fx->prof.nthreads = 2;
	fx->futexes[0].waiters = 2;
	fx->futexes[0].tids = tids;
	fx->futexes[0].shares = shares;
	fx->futexes[0].nshares = 2;
	assert_int_equal(pprof__encode(&fx->rep, fake_resolve, NULL, &gz, &len), 0);
	p = decode(gz, len);
	assert_non_null(p);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const char *who = label(p, s, "thread");

		if (!s->value[0])
			continue;
		n++;
		ns += (__u64)s->value[0];
		assert_non_null(who);
		assert_int_equal(s->value[1], !strcmp(who, "worker") ? 3 : 1);
		assert_int_equal(s->value[0], !strcmp(who, "worker") ? 4000 : 1000);
		assert_int_equal(s->value[4], !strcmp(who, "worker") ? 2 : 0);	/* at once */
		assert_string_equal(leaf_name(p, s), "lock_it");
	}
	assert_int_equal(n, 2);
	assert_int_equal(ns, 5000);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
}

/* A lock and a site with frames: the metrics' labels are the names the
 * advisor's input gives them (one naming function, report/advice.h), and
 * two sites of one name are one series. */
static void test_metrics_names_are_the_advice_names(void **state)
{
	static __u64 ips[2] = { 0x7f0000001000, 0x401100 };
	static char *frames[2] = { "__lll_lock_wait+0x2b (/lib/libc.so.6)",
				   "update_shard+0x38 (/srv/app)" };
	static char *yframes[2] = { "sched_yield+0x7 (/lib/libc.so.6)", "spin+0x12 (/srv/app)" };
	struct ss_stack sv[3] = {
		{ .id = 1, .depth = 2, .ips = ips, .frames = frames },
		{ .id = 2, .depth = 2, .ips = ips, .frames = yframes },
		{ .id = 3, .depth = 2, .ips = ips, .frames = yframes },
	};
	struct ss_stacks named = { .v = sv, .n = 3, .cap = 3 };
	struct fixture *fx = *state;
	struct advice_input in;
	struct advice_target tgt = { .pid = 42, .comm = "app", .duration_ns = 2000000000ull };
	char want[512], id[32], *text;
	size_t len;

	fx->rep.stacks = &named;
	assert_int_equal(advice__build_profile(&in, &tgt, &fx->prof, &named, NULL, NULL, NULL), 0);
	assert_true(in.futexes[0].user_named);
	assert_int_equal(metrics_text__render(&fx->rep, &text, &len), 0);
	assert_int_equal(metrics_text__lock_id(0x1000, id, sizeof(id)), 0);
	snprintf(want, sizeof(want), "lock=\"%s\",lock_id=\"%s\"}", in.futexes[0].name, id);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(want, "update_shard"));
	/* Sites 2 and 3 (counts 99 and 98) share a name: one series. */
	snprintf(want, sizeof(want), "site=\"%s\"} 197\n", in.yields[1].frame);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(want, "spin"));
	advice__free_input(&in);
	free(text);
}

static void test_metrics_addresses(void **state)
{
	char addr[64], why[256];
	unsigned int port;

	assert_int_equal(metrics_http__parse_addr("9100", addr, sizeof(addr), &port, why, sizeof(why)), 0);
	assert_string_equal(addr, "127.0.0.1");
	assert_int_equal(port, 9100);
	assert_int_equal(metrics_http__parse_addr(":9101", addr, sizeof(addr), &port, why, sizeof(why)), 0);
	assert_string_equal(addr, "127.0.0.1");
	assert_int_equal(metrics_http__parse_addr("0.0.0.0:80", addr, sizeof(addr), &port, why, sizeof(why)), 0);
	assert_string_equal(addr, "0.0.0.0");
	assert_int_equal(port, 80);
	assert_int_equal(metrics_http__parse_addr("127.0.0.1:0", addr, sizeof(addr), &port, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "port from 1 to 65535"));
	assert_int_equal(metrics_http__parse_addr("localhost:9100", addr, sizeof(addr), &port, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not an IPv4 address"));
	assert_int_equal(metrics_http__parse_addr("127.0.0.1:", addr, sizeof(addr), &port, why, sizeof(why)), -EINVAL);
}

/* A lock's release records: one futex_releases sample each, with the
 * holder's thread and the word. */
static void test_pprof_release_samples(void **state)
{
	struct fixture *fx = *state;
	struct ss_release_rec rel = { .stack_id = 1, .tid = 77, .v = { .wakes = 6, .woken = 6 } };
	__u32 tids[2] = { 77, 78 };
	Perftools__Profiles__Profile *p;
	size_t len, found = 0;
	void *gz;

	fx->futexes[0].waiters = 2;
	fx->futexes[0].tids = tids;
	fx->futexes[0].releases = &rel;
	fx->futexes[0].nreleases = 1;
	assert_int_equal(pprof__encode(&fx->rep, fake_resolve, NULL, &gz, &len), 0);
	p = decode(gz, len);
	assert_non_null(p);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		if (!s->value[5])
			continue;
		found++;
		assert_int_equal(s->value[5], 6);
		assert_string_equal(leaf_name(p, s), "lock_it");
		assert_string_equal(label(p, s, "thread"), "worker");
		assert_string_equal(label(p, s, "futex"), "0x1000");
	}
	assert_int_equal(found, 1);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(gz);
	fx->futexes[0].releases = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_metrics_labels_bounded_and_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_decodes_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_futex_samples_per_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrics_names_are_the_advice_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_release_samples, setup, teardown),
		cmocka_unit_test(test_metrics_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * recording_read.c: a model written by report_to_json() reads back into
 * the same document; a recording from before the recording sections (a
 * real one, tests/fixtures/recording/report-0.x.json) still reads; a newer
 * major version, truncated, corrupt or oversized files are refused with
 * one line; hostile field types read as empty, never crash. And the pure
 * parts of diff: names matched across runs, noise, verdicts.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <zstd.h>
#include "common/errors.h"
#include "report/folded.h"
#include "report/recording_diff.h"
#include "report/recording_json.h"
#include "report/recording_read.h"

static const struct host_info host = {
	.hostname = "testhost", .kernel = "6.1.0-test", .machine = "x86_64",
	.cpu_model = "Test CPU", .cpus = 2,
};

static __u64 ips7[3] = { 0x7f0000001234, 0x401100, 0x401200 };
static char *frames7[3] = { "__lll_lock_wait+0x2b (libc.so.6)", "worker+0x38 (app)",
			    "start_thread+0x304 (libc.so.6)" };
static struct ss_frame_where where7[3] = {
	{ .module = "/lib/libc.so.6", .build_id = "93ac", .offset = 0x8612b },
	{ .module = "/srv/app", .build_id = "88b4", .offset = 0x13fe },
	{ .module = NULL },
};
static __u64 ips8[2] = { 0x7f0000005678, 0x401500 };
static char *frames8[2] = { "sched_yield+0x7 (libc.so.6)", "spin+0x12 (app)" };

struct fixture {
	struct ss_thread threads[3];
	struct ss_futex_rec futex;
	struct ss_waiter_stack wstacks[2];
	struct ss_waiter_share shares[3];
	__u32 tids[2];
	struct ss_yield_site yield;
	struct ss_stack stack_v[2];
	struct ss_stacks stacks;
	struct ss_profile prof;
	struct adv_sample_sym top[1];
	struct adv_profile input;
	struct kernel_features kernel;
	struct ss_report rep;
};

static struct fixture *fixture(void)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->threads[0] = (struct ss_thread){
		.tid = 11, .comm = "worker-1", .futex_wait = 3, .futex_wait_ns = 3000000,
		.futex_wait_ns_max = 2000000, .futex_other = 4, .runq_hist = { [9] = 1 },
		.futex_outcome = { [SS_FUTEX_WOKEN] = 2, [SS_FUTEX_TIMEDOUT] = 1 }, .oncpu_ns = 5,
	};
	fx->threads[1] = (struct ss_thread){ .tid = 12, .comm = "worker-2", .sched_yield = 40,
					     .flags = SS_THREAD_EXITED };
	fx->threads[2] = (struct ss_thread){ .tid = 13, .comm = "main" };
	fx->wstacks[0] = (struct ss_waiter_stack){ .stack_id = 7, .count = 2, .wait_ns = 2500000 };
	fx->wstacks[1] = (struct ss_waiter_stack){ .stack_id = 9, .count = 1, .wait_ns = 500000 };
	fx->tids[0] = 11;
	fx->tids[1] = 12;
	fx->futex = (struct ss_futex_rec){
		.uaddr = 0x7f00dead1000ull, .f = { .waits = 3, .wait_ns = 3000000, .hist = { [20] = 3 } },
		.stacks = fx->wstacks, .nstacks = 2, .waiters = 2, .tids = fx->tids,
		.shares = fx->shares, .nshares = 3,
	};
	fx->shares[0] = (struct ss_waiter_share){ .stack_id = 7, .tid = 11, .count = 1, .wait_ns = 2000000,
						  .at_once = 1 };
	fx->shares[1] = (struct ss_waiter_share){ .stack_id = 7, .tid = 12, .count = 1, .wait_ns = 500000 };
	fx->shares[2] = (struct ss_waiter_share){ .stack_id = 9, .tid = 12, .count = 1, .wait_ns = 500000,
						  .at_once = 1 };
	fx->wstacks[0].at_once = 1;
	fx->wstacks[1].at_once = 1;
	fx->yield = (struct ss_yield_site){ .stack_id = 8, .count = 40 };
	fx->stack_v[0] = (struct ss_stack){ .id = 7, .depth = 3, .ips = ips7, .frames = frames7,
					    .where = where7 };
	fx->stack_v[1] = (struct ss_stack){ .id = 8, .depth = 2, .ips = ips8, .frames = frames8 };
	fx->stacks = (struct ss_stacks){ .v = fx->stack_v, .n = 2, .cap = 2 };
	fx->prof = (struct ss_profile){
		.start_ns = 1000, .now_ns = 2000001000, .threads = fx->threads, .nthreads = 3,
		.futexes = &fx->futex, .nfutexes = 1, .yields = &fx->yield, .nyields = 1,
		.drops = { [SS_DROP_STACK_FAIL] = 2 },
	};
	profile_finish(&fx->prof);
	snprintf(fx->top[0].symbol, sizeof(fx->top[0].symbol), "spin (app)");
	fx->top[0].count = 9;
	fx->input = (struct adv_profile){ .ncpus = 2, .target = { .is_jvm = true, .python_read = true,
		.python_functions = "crunch (gil.py): 4 threads, 99% of the polls" } };
	fx->kernel.tp_btf.ok = fx->kernel.raw_tp.ok = true;
	fx->kernel.fentry.err = EPERM;
	fx->input.samples.top = fx->top;
	fx->input.samples.ntop = 1;
	fx->rep = (struct ss_report){
		.host = &host, .pid = 11, .comm = "app", .duration_ns = 2000000000,
		.profile = &fx->prof, .stacks = &fx->stacks, .sched_btf = true,
		.symbols = { .no_fp = { "/lib/libc.so.6" }, .no_fp_partial = { true }, .nno_fp = 1,
			     .stacks = 2, .resolved = 5 },
		.advisor_input = &fx->input,
		.kernel_features = &fx->kernel,
	};
	return fx;
}

static const char *plain(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

static const char *fake_name(void *arg, __u64 ip, const char **module)
{
	*module = ip == 0x401000 ? "/srv/app" : NULL;
	return ip == 0x401000 ? "hot_loop" : NULL;
}

static void test_round_trip(void **state)
{
	struct fixture *fx = fixture();
	json_object *doc = report_to_json(&fx->rep), *again;
	char *first = strdup(plain(doc)), why[256];
	struct ss_recording rec;

	assert_int_equal(recording__from_json(doc, &rec, why, sizeof(why)), 0);
	assert_int_equal(rec.major, SS_RECORDING_MAJOR);
	/* The counter the report leaves out, the waiter tids, the frame's
	 * where, the advisor's extras: all back. */
	assert_int_equal(rec.prof.threads[0].futex_other, 4);
	assert_int_equal(rec.prof.futexes[0].tids[1], 12);
	/* Who waited on which stack (1.1). */
	assert_int_equal(rec.prof.futexes[0].nshares, 3);
	assert_int_equal(rec.prof.futexes[0].shares[1].tid, 12);
	assert_int_equal(rec.prof.futexes[0].shares[1].wait_ns, 500000);
	assert_int_equal(rec.prof.futexes[0].shares[2].stack_id, 9);
	/* The stacks' at-once counts are their shares' sums. */
	assert_int_equal(rec.prof.futexes[0].shares[0].at_once, 1);
	assert_int_equal(stacks__find(&rec.stacks, 7) ? rec.prof.futexes[0].stacks[0].at_once : 0, 1);
	assert_int_equal(rec.prof.futexes[0].stacks[1].at_once, 1);
	assert_string_equal(stacks__find(&rec.stacks, 7)->where[1].module, "/srv/app");
	assert_int_equal(stacks__find(&rec.stacks, 7)->where[1].offset, 0x13fe);
	assert_null(stacks__find(&rec.stacks, 7)->where[2].module);
	assert_true(rec.is_jvm);
	assert_string_equal(rec.python_functions, "crunch (gil.py): 4 threads, 99% of the polls");
	assert_true(rec.python_read);
	assert_true(rec.kernel.tp_btf.ok);
	assert_false(rec.kernel.fentry.ok);
	assert_int_equal(rec.kernel.fentry.err, EPERM);
	assert_int_equal(rec.nsamples_top, 1);
	rec.rep.advisor_input = &fx->input;
	again = report_to_json(&rec.rep);
	assert_string_equal(plain(again), first);
	json_object_put(again);
	recording__free(&rec);
	free(first);
	free(fx);
}

/* A parking word's waiter's samples, all and where it parks from, come
 * back by address; a row of another shape is skipped, and one that says
 * more there than in all is held to all (a hostile file). */
static void test_parked_samples_round_trip(void **state)
{
	struct fixture *fx = fixture();
	struct adv_futex word = { .uaddr = 0x7f00beef0000ull, .waiter_samples = 87, .acquire_samples = 30 };
	json_object *doc, *rows, *bad;
	char why[256];
	struct ss_recording rec;

	fx->input.futexes = &word;
	fx->input.nfutexes = 1;
	doc = report_to_json(&fx->rep);
	rows = json_object_object_get(json_object_object_get(doc, "advisor_input"), "parked_samples");
	assert_int_equal(json_object_array_length(rows), 1);
	json_object_array_add(rows, json_tokener_parse("[1, 2]"));
	json_object_array_add(rows, json_tokener_parse("[\"0x40\", 5, 9]"));
	assert_int_equal(recording__from_json(doc, &rec, why, sizeof(why)), 0);
	assert_int_equal(rec.nparked_samples, 2);
	assert_int_equal(rec.parked_samples[0].uaddr, 0x7f00beef0000ull);
	assert_int_equal(rec.parked_samples[0].waiter, 87);
	assert_int_equal(rec.parked_samples[0].acquire, 30);
	assert_int_equal(rec.parked_samples[1].uaddr, 0x40);
	assert_int_equal(rec.parked_samples[1].acquire, 5);
	recording__free(&rec);	/* and the document it read */
	/* wrong types throughout: nothing, and no crash */
	doc = report_to_json(&fx->rep);
	bad = json_tokener_parse("{\"advisor_input\": {\"parked_samples\": [\"x\", [null, {}, -3]]}}");
	json_object_object_add(doc, "advisor_input", json_object_get(json_object_object_get(bad, "advisor_input")));
	assert_int_equal(recording__from_json(doc, &rec, why, sizeof(why)), 0);
	assert_int_equal(rec.nparked_samples, 1);
	assert_int_equal(rec.parked_samples[0].waiter, 0);
	assert_int_equal(rec.parked_samples[0].acquire, 0);
	recording__free(&rec);
	json_object_put(bad);
	free(fx);
}

/* The mechanism that traced the calls comes back: report FILE says the
 * same "attached by ..." as the live report. */
static void test_mechanism_round_trip(void **state)
{
	static const struct { bool fentry, light; } cases[] = {
		{ false, false }, { true, false }, { false, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture *fx = fixture();
		struct ss_recording rec;
		json_object *doc;
		char why[256];

		fx->rep.fentry = cases[i].fentry;
		fx->rep.light = cases[i].light;
		doc = report_to_json(&fx->rep);
		assert_int_equal(recording__from_json(doc, &rec, why, sizeof(why)), 0);
		assert_int_equal(rec.rep.fentry, cases[i].fentry);
		assert_int_equal(rec.rep.light, cases[i].light);
		assert_string_equal(report_mechanism_cost(&rec.rep), report_mechanism_cost(&fx->rep));
		recording__free(&rec);
		free(fx);
	}
}

/* Samples with a top list: it, the threads' counters and the text come back. */
static void test_samples_round_trip(void **state)
{
	static const __u64 ip_a = 0x401000, ip_b = 0x402000;
	static struct samples_stack st[3] = {
		{ .tid = 11, .stack_id = 1, .count = 7, .depth = 1, .ips = &ip_a },
		{ .tid = 12, .stack_id = 2, .count = 3, .depth = 1, .ips = &ip_b },
		{ .tid = 12, .stack_id = -14, .count = 2 },
	};
	static struct samples_thread th[1] = {
		{ .tid = 11, .has_counters = true, .samples = 7, .slices = 4, .counter = { 10, 100, 1000 } },
	};
	/* CPU 1 went offline during the trace (hotplug): said again. */
	static int offline[1] = { 1 };
	struct samples_result sr = {
		.event = "cache-misses", .available = true, .period = 10007, .cpus = 2, .total = 12,
		.stacks = st, .nr_stacks = 3, .threads = th, .nr_threads = 1, .counters_available = true,
		.counter_names = { "cache-misses", "cache-references", "instructions" },
		.cpus_offline = offline, .nr_cpus_offline = 1,
	};
	struct fixture *fx = fixture();
	json_object *doc;
	char *first, *text_a, *text_b, why[256];
	size_t la, lb;
	struct ss_recording rec;
	FILE *f;

	fx->rep.samples = &sr;
	fx->rep.name = fake_name;
	doc = report_to_json(&fx->rep);
	first = strdup(plain(doc));
	f = open_memstream(&text_a, &la);
	report_print_text(&fx->rep, f);
	fclose(f);
	assert_int_equal(recording__from_json(doc, &rec, why, sizeof(why)), 0);
	rec.rep.advisor_input = &fx->input;
	doc = report_to_json(&rec.rep);
	assert_string_equal(plain(doc), first);
	json_object_put(doc);
	f = open_memstream(&text_b, &lb);
	report_print_text(&rec.rep, f);
	fclose(f);
	assert_string_equal(text_b, text_a);
	recording__free(&rec);
	free(text_a);
	free(text_b);
	free(first);
	free(fx);
}

/* Names the two-frame sampled stacks below: hot_loop called from main. */
static const char *stack_name(void *arg, __u64 ip, const char **module)
{
	*module = ip == 0x401000 || ip == 0x403000 ? "/srv/app" : NULL;
	return ip == 0x401000 ? "hot_loop" : ip == 0x403000 ? "main" : NULL;
}

/* Since 1.1 a recording keeps the samples' whole stacks: its folded lines
 * are the live ones, not leaves, and each (thread, stack) comes back. */
static void test_sample_stacks_come_back_whole(void **state)
{
	static __u64 ips_a[2] = { 0x401000, 0x403001 }, ips_b[1] = { 0x402000 };
	static char *fr_a[2] = { "hot_loop+0x0 (app)", "main+0x0 (app)" }, *fr_b[1] = { "[unknown]" };
	static struct ss_frame_where w_a[2] = {
		{ .module = "/srv/app", .build_id = "88b4", .offset = 0x1000 },
		{ .module = "/srv/app", .build_id = "88b4", .offset = 0x3000 },
	};
	static struct ss_stack sv[2] = {
		{ .id = 1, .depth = 2, .ips = ips_a, .frames = fr_a, .where = w_a },
		{ .id = 2, .depth = 1, .ips = ips_b, .frames = fr_b },
	};
	static const struct ss_stacks sstacks = { .v = sv, .n = 2, .cap = 2 };
	static struct samples_stack st[4] = {
		{ .tid = 11, .stack_id = 1, .count = 7, .depth = 2, .ips = ips_a },
		{ .tid = 12, .stack_id = 1, .count = 5, .depth = 2, .ips = ips_a },
		{ .tid = 12, .stack_id = 2, .count = 3, .depth = 1, .ips = ips_b },
		{ .tid = 12, .stack_id = -14, .count = 2 },
	};
	struct samples_result sr = {
		.event = "cpu-clock", .available = true, .period = 1000000, .cpus = 2, .total = 17,
		.stacks = st, .nr_stacks = 4,
	};
	struct fixture *fx = fixture();
	char *live, *replay, why[256];
	size_t la, lb;
	struct ss_recording rec;
	json_object *doc;
	FILE *f;

	fx->rep.samples = &sr;
	fx->rep.sample_stacks = &sstacks;
	fx->rep.name = stack_name;
	f = open_memstream(&live, &la);
	assert_int_equal(folded__write(f, stack_name, NULL, &fx->prof, &fx->stacks, &sr), 0);
	fclose(f);
	doc = report_to_json(&fx->rep);
	assert_int_equal(recording__from_json(doc, &rec, why, sizeof(why)), 0);
	assert_int_equal(rec.minor, SS_RECORDING_MINOR);
	assert_int_equal(rec.sres.nr_stacks, 4);
	assert_int_equal(rec.sres.stacks[1].tid, 12);
	assert_int_equal(rec.sres.stacks[1].depth, 2);
	assert_int_equal(rec.sres.stacks[1].ips[1], 0x403001);
	assert_int_equal(rec.sres.stacks[3].depth, 0);
	f = open_memstream(&replay, &lb);
	assert_int_equal(folded__write(f, recording__sym_name, &rec, &rec.prof, &rec.stacks,
				       rec.rep.samples), 0);
	fclose(f);
	/* (stack_name does not know the trace's stacks: the samples' lines.) */
	assert_non_null(strstr(live, "samples-cpu-clock;main;hot_loop 12\n"));
	assert_non_null(strstr(replay, "samples-"));
	assert_string_equal(strstr(replay, "samples-"), strstr(live, "samples-"));
	recording__free(&rec);
	free(live);
	free(replay);
	free(fx);
}

static int read_text(const char *text, struct ss_recording *rec, char *why, size_t len)
{
	return recording__from_json(json_tokener_parse(text), rec, why, len);
}

static void test_newer_major_refused(void **state)
{
	struct ss_recording rec;
	char why[256];

	assert_int_equal(read_text("{\"schema\":1,\"recording\":\"2.0\"}", &rec, why, sizeof(why)),
			 SS_EXIT_USAGE);
	assert_non_null(strstr(why, "recording version 2.0 is newer"));
	assert_null(strchr(why, '\n'));
	recording__free(&rec);
	/* A newer minor only added keys. */
	assert_int_equal(read_text("{\"schema\":1,\"recording\":\"1.99\",\"target\":{\"pid\":7},"
				   "\"future\":[1]}", &rec, why, sizeof(why)), 0);
	recording__free(&rec);
	assert_int_equal(read_text("{\"schema\":1,\"recording\":\"one\"}", &rec, why, sizeof(why)),
			 SS_EXIT_USAGE);
	recording__free(&rec);
	assert_int_equal(read_text("{\"schema\":7}", &rec, why, sizeof(why)), SS_EXIT_USAGE);
	recording__free(&rec);
	assert_int_equal(read_text("[1,2]", &rec, why, sizeof(why)), SS_EXIT_USAGE);
	recording__free(&rec);
}

static void test_older_recording_reads(void **state)
{
	struct ss_recording rec;
	char why[256];
	json_object *doc;

	assert_int_equal(recording__read("tests/fixtures/recording/report-0.x.json", &rec, why,
					 sizeof(why)), 0);
	assert_int_equal(rec.major, 0);
	/* Its totals, from its threads, are what it said they were. */
	doc = report_to_json(&rec.rep);
	assert_int_equal(json_object_get_uint64(json_object_object_get(
				 json_object_object_get(doc, "totals"), "futex_wait_ns")),
			 json_object_get_uint64(json_object_object_get(
				 json_object_object_get(rec.doc, "totals"), "futex_wait_ns")));
	assert_int_equal(rec.prof.nfutexes, json_object_array_length(json_object_object_get(rec.doc, "futexes")));
	/* The shown frames became the stacks. */
	assert_true(rec.stacks.n >= 1);
	assert_non_null(strstr(rec.stacks.v[0].frames[0], "__lll_lock_wait"));
	/* Without addresses, its frames get placeholders that name them. */
	{
		const char *mod, *name;

		assert_true(rec.stacks.v[0].ips[1] >= SS_RECORDING_NO_IP_BASE);
		name = recording__sym_name(&rec, rec.stacks.v[0].ips[1] - 1, &mod);
		assert_non_null(name);
		assert_string_equal(name, "worker");
	}
	/* Its futexes as it showed them, plus the recording's keys. */
	{
		json_object *f = json_object_array_get_idx(json_object_object_get(doc, "futexes"), 0);

		json_object_object_del(f, "waiter_stacks");
		json_object_object_del(f, "waiter_tids");
		/* Keys a 0.x recording lacks; its outcomes give the split. */
		assert_int_equal(json_object_get_uint64(json_object_object_get(f, "blocked")), 112);
		assert_int_equal(json_object_get_uint64(json_object_object_get(f, "returned_at_once")), 0);
		/* Nor did it time the at-once calls. */
		assert_int_equal(json_object_get_uint64(json_object_object_get(f, "at_once_ns")), 0);
		json_object_object_del(f, "blocked");
		json_object_object_del(f, "returned_at_once");
		json_object_object_del(f, "at_once_ns");
		json_object_object_del(f, "holder_wakes");
		json_object_object_del(f, "bitset_waits");
		/* Nor did it see woken threads wait again (0, not made up). */
		assert_int_equal(json_object_get_uint64(json_object_object_get(f, "reblocked")), 0);
		json_object_object_del(f, "reblocked");
		assert_string_equal(plain(json_object_object_get(doc, "futexes")),
				    plain(json_object_object_get(rec.doc, "futexes")));
	}
	json_object_put(doc);
	recording__free(&rec);
}

/* A real 1.1 recording (hot_lock, 2 threads on one mutex, -i 1, cpu-clock;
 * trimmed to stay under the fuzzer's 64 KiB inputs, as it seeds make fuzz:
 * the stored calibration and all but 8 sampled stacks dropped) reads with
 * what 1.1 added: whole sampled stacks, per-thread waits, per-thread rows
 * in the -i series. */
static void test_recording_1_1_reads(void **state)
{
	struct ss_recording rec;
	char why[256];
	int deepest = 0;
	json_object *iv;

	assert_int_equal(recording__read("tests/fixtures/recording/hot-lock-1.1.json", &rec, why,
					 sizeof(why)), 0);
	assert_int_equal(rec.major, 1);
	assert_int_equal(rec.minor, 1);
	assert_non_null(rec.rep.sample_stacks);
	assert_int_equal(rec.sample_stacks.n, 8);
	for (size_t i = 0; i < rec.sres.nr_stacks; i++)
		if ((int)rec.sres.stacks[i].depth > deepest)
			deepest = (int)rec.sres.stacks[i].depth;
	assert_true(deepest >= 3);
	assert_true(rec.prof.nfutexes >= 1);
	assert_int_equal(rec.prof.futexes[0].nshares, 2);	/* the two workers */
	assert_int_not_equal(rec.prof.futexes[0].shares[0].tid, rec.prof.futexes[0].shares[1].tid);
	assert_true(json_object_array_length(rec.intervals) >= 2);
	iv = json_object_array_get_idx(rec.intervals, 0);
	assert_true(json_object_array_length(json_object_object_get(iv, "thread_rows")) >= 2);
	recording__free(&rec);
}

static char *write_tmp(const void *data, size_t n, const char *suffix)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ss-recread-%d%s", getpid(), suffix);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
	return path;
}

/* One line, exit code 2, no crash, for every way a file is not one. */
static void test_bad_files_refused(void **state)
{
	struct fixture *fx = fixture();
	json_object *doc = report_to_json(&fx->rep);
	const char *text = plain(doc);
	size_t n = strlen(text), zn;
	void *z = malloc(ZSTD_compressBound(n));
	struct ss_recording rec;
	char why[512], *path;
	int code;

	assert_non_null(z);
	zn = ZSTD_compress(z, ZSTD_compressBound(n), text, n, 3);
	assert_false(ZSTD_isError(zn));
	path = write_tmp(z, zn / 2, ".json.zst");	/* truncated zstd */
	assert_int_equal(recording__read(path, &rec, why, sizeof(why)), SS_EXIT_USAGE);
	assert_non_null(strstr(why, "cannot read the recording"));
	assert_null(strchr(why, '\n'));
	recording__free(&rec);
	unlink(path);
	path = write_tmp(text, n / 2, ".json");		/* truncated JSON */
	assert_int_equal(recording__read(path, &rec, why, sizeof(why)), SS_EXIT_USAGE);
	recording__free(&rec);
	unlink(path);
	((char *)z)[zn / 2] ^= 0x5a;			/* a flipped byte */
	path = write_tmp(z, zn, ".json.zst");
	/* zstd's frame checksum is off: a flip may still decompress. */
	code = recording__read(path, &rec, why, sizeof(why));
	assert_true(code == 0 || code == SS_EXIT_USAGE);
	recording__free(&rec);
	unlink(path);
	assert_int_equal(recording__read("/nonexistent/x.json", &rec, why, sizeof(why)), SS_EXIT_USAGE);
	recording__free(&rec);
	{
		/* 5 Mi tiny values in 10 MiB: about 370 MiB to parse, over
		 * 16 times the size: refused before parsing. */
		size_t big = 10u << 20;
		char *many = malloc(big + 1);

		assert_non_null(many);
		memset(many, ' ', big);
		memcpy(many, "{\"schema\":1,\"x\":[", 17);
		for (size_t i = 17; i + 2 < big - 1; i += 2)
			memcpy(many + i, "0,", 2);
		memcpy(many + big - 2, "0]", 2);
		path = write_tmp(many, big, ".json");
		free(many);
		assert_int_equal(recording__read(path, &rec, why, sizeof(why)), SS_EXIT_USAGE);
		assert_non_null(strstr(why, "more than 16 times its size in memory"));
		unlink(path);
	}
	recording__free(&rec);
	free(z);
	json_object_put(doc);
	free(fx);
}

/* Against the schema (issue 30 item 6): before, wrong types read as
 * "pid 0 ()" and zeros, exit 0; a negative count as 0; u64-max counts
 * wrapped the totals. Now one line naming the member, exit 2. */
static void test_hostile_types(void **state)
{
#define T "{\"schema\":1,\"target\":{\"pid\":7,\"comm\":\"a\"},"
	static const char *const docs[][2] = {
		{ "{\"schema\":1,\"threads\":\"x\",\"futexes\":{},\"stacks\":7}", "target: missing" },
		{ "{\"schema\":1,\"target\":\"x\"}", "target: expected an object" },
		{ "{\"schema\":1,\"target\":{\"pid\":\"7\"}}", "target.pid: expected an integer" },
		{ "{\"schema\":1,\"target\":{\"pid\":0}}", "target.pid: 0 is out of range" },
		{ T "\"threads\":\"x\"}", "threads: expected an array" },
		{ T "\"threads\":[1]}", "threads[0]: expected an object" },
		{ T "\"threads\":[{\"tid\":-5}]}", "threads[0].tid: -5 is out of range" },
		{ T "\"threads\":[{\"tid\":5,\"comm\":3}]}", "threads[0].comm: expected a string" },
		{ T "\"threads\":[{\"tid\":5,\"futex_wait\":-1}]}", "threads[0].futex_wait: -1 is out of range" },
		{ T "\"threads\":[{\"tid\":5,\"sched_yield\":18446744073709551611}]}",
		  "threads[0].sched_yield: 18446744073709551611 is out of range" },
		{ T "\"threads\":[{\"tid\":5,\"oncpu_ns\":1.5}]}", "threads[0].oncpu_ns: expected an integer" },
		{ T "\"threads\":[{\"tid\":5,\"runq_hist_log2_ns\":[1,-2]}]}",
		  "threads[0].runq_hist_log2_ns[1]: -2 is out of range" },
		{ T "\"threads\":[{\"tid\":5,\"runq_ns\":9223372036854775807},"
		  "{\"tid\":6,\"runq_ns\":9223372036854775807},{\"tid\":7,\"runq_ns\":9223372036854775807}]}",
		  "threads[2].runq_ns: the threads' counts add up past 2^64" },
		{ T "\"threads\":[{\"tid\":5,\"sched_yield\":3},{\"tid\":6,\"sched_yield\":4}],"
		  "\"totals\":{\"sched_yield\":8}}", "totals.sched_yield: 8, but the threads' sum is 7" },
		{ T "\"threads\":[{\"tid\":5,\"runq_ns_max\":3},{\"tid\":6,\"runq_ns_max\":4}],"
		  "\"totals\":{\"runq_ns_max\":7}}", "totals.runq_ns_max: 7, but the threads' largest is 4" },
		{ T "\"threads\":[{\"tid\":5,\"sched_yield\":3}],\"exited_threads\":[{\"comm\":\"w\","
		  "\"threads\":2,\"sched_yield\":4}],\"totals\":{\"sched_yield\":8}}",
		  "totals.sched_yield: 8, but the threads' sum is 7" },
		{ T "\"exited_threads\":[{\"comm\":\"w\",\"futex_wait\":-1}]}",
		  "exited_threads[0].futex_wait: -1 is out of range" },
		{ T "\"exited_threads\":[{\"comm\":7}]}", "exited_threads[0].comm: expected a string" },
		{ T "\"futexes\":[{\"waits\":\"many\"}]}", "futexes[0].waits: expected an integer" },
		{ T "\"duration_ns\":-3}", "duration_ns: -3 is out of range" },
	};
#undef T

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct ss_recording rec;
		char why[256] = "";

		assert_int_equal(read_text(docs[i][0], &rec, why, sizeof(why)), SS_EXIT_USAGE);
		if (strncmp(why, docs[i][1], strlen(docs[i][1])))
			fail_msg("doc %zu: '%s', expected '%s'", i, why, docs[i][1]);
		recording__free(&rec);
	}
}

/* Threads that exited during the trace are in the totals: a recording
 * whose live threads waited on nothing and whose exited ones waited (a
 * benchmark's workers that finished while traced) reads, totals whole. */
static void test_exited_threads_in_totals(void **state)
{
	static const char doc[] = "{\"schema\":1,\"target\":{\"pid\":7,\"comm\":\"a\"},"
				  "\"threads\":[{\"tid\":7,\"futex_wait\":0}],"
				  "\"exited_threads\":[{\"comm\":\"worker\",\"threads\":4,\"futex_wait\":229309}],"
				  "\"totals\":{\"futex_wait\":229309}}";
	struct ss_recording rec;
	char why[256] = "";

	if (read_text(doc, &rec, why, sizeof(why)))
		fail_msg("refused: %s", why);
	assert_int_equal(rec.prof.totals.futex_wait, 229309);
	recording__free(&rec);
}

/* Members the report is not made of may be any type: read as empty. */
static void test_hostile_types_elsewhere(void **state)
{
	static const char *const docs[] = {
		"{\"schema\":1,\"target\":{\"pid\":7},\"recording\":\"1.0\",\"threads\":[{\"tid\":5}],"
		"\"futexes\":[{\"waiter_stacks\":[[1],[\"a\",2,3],7],\"waiter_threads\":99999999999,"
		"\"waiter_tids\":\"x\"}],\"stacks\":[{\"id\":1,\"frames\":[5,{\"module\":4},"
		"{\"module\":\"/m\",\"offset\":\"0xzz\",\"build_id\":[]}]}],"
		"\"yield_sites\":[{\"stack_id\":\"0x10\"}],\"intervals\":{},\"samples\":[],"
		"\"advisor_input\":{\"samples_top\":[1,{\"symbol\":[]}],\"numa_nodes\":[[1,2],[3]]}}",
		"{\"schema\":1,\"target\":{\"pid\":7},\"futexes\":[{\"stacks\":[{\"stack_id\":3,\"frames\":[\"a\",1,null]}]}]}",
	};

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct ss_recording rec;
		char why[256];
		json_object *out;

		if (read_text(docs[i], &rec, why, sizeof(why)))
			fail_msg("doc %zu refused: %s", i, why);
		out = report_to_json(&rec.rep);
		assert_non_null(out);
		json_object_put(out);
		recording__free(&rec);
	}
}

static void test_diff_names(void **state)
{
	char buf[64];

	diff__group_name("worker-12", buf, sizeof(buf));
	assert_string_equal(buf, "worker-#");
	diff__group_name("pool3-t45", buf, sizeof(buf));
	assert_string_equal(buf, "pool#-t#");
	diff__site_name("spin+0x12 (app)", buf, sizeof(buf));
	assert_string_equal(buf, "spin (app)");
	diff__site_name("app+0x40", buf, sizeof(buf));
	assert_string_equal(buf, "app+0x40");
}

/* A recording with futex_wait_ns per interval as given (1 s each). */
static void with_intervals(struct ss_recording *rec, const double *wait_ns, int n)
{
	rec->intervals = json_object_new_array();
	for (int i = 0; i < n; i++) {
		json_object *iv = json_object_new_object(), *t = json_object_new_object();

		json_object_object_add(t, "futex_wait_ns", json_object_new_uint64((__u64)wait_ns[i]));
		json_object_object_add(iv, "duration_ns", json_object_new_uint64(1000000000));
		json_object_object_add(iv, "totals", t);
		json_object_array_add(rec->intervals, iv);
	}
	json_object_object_add(rec->doc, "intervals", rec->intervals);
}

static const struct diff_row *find_row(const struct recording_diff *d, enum diff_section s,
				       const char *metric)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].section == s && !strcmp(d->rows[i].metric, metric))
			return &d->rows[i];
	return NULL;
}

/* fx's report written and read back into rec. */
static void read_back(const struct fixture *fx, struct ss_recording *rec)
{
	char why[256];

	if (recording__from_json(report_to_json(&fx->rep), rec, why, sizeof(why)))
		fail_msg("%s", why);
}

static void test_diff_noise_and_findings(void **state)
{
	static const double noisy[] = { 0.6e6, 1.6e6, 1.1e6 }, quiet[] = { 1.4e6, 1.5e6, 1.45e6 };
	struct fixture *fx = fixture();
	struct ss_recording b, a;
	struct recording_diff d;
	const struct diff_row *r;

	read_back(fx, &b);
	/* After: half the lock's wait, and the advice changed. */
	fx->futex.f.wait_ns = 1500000;
	read_back(fx, &a);
	json_object_array_add(json_object_object_get(b.doc, "advice"),
			      json_tokener_parse("{\"id\":\"futex-contention\",\"severity\":\"critical\",\"title\":\"t\"}"));
	json_object_array_add(json_object_object_get(a.doc, "advice"),
			      json_tokener_parse("{\"id\":\"futex-contention\",\"severity\":\"warning\",\"title\":\"t\"}"));
	json_object_array_add(json_object_object_get(a.doc, "advice"),
			      json_tokener_parse("{\"id\":\"spin-yield\",\"severity\":\"info\",\"title\":\"u\"}"));

	/* No -i series: significance unknown. */
	assert_int_equal(recording_diff__compute(&b, &a, &d), 0);
	r = find_row(&d, DIFF_LOCKS, "wait_ns");
	assert_non_null(r);
	assert_string_equal(r->name, "worker in app (via __lll_lock_wait in libc)");
	assert_true(r->before > 2.9e6 / 2 && r->before < 3.1e6 / 2);	/* per second of 2 s */
	assert_int_equal(r->significant, DIFF_SIG_UNKNOWN);
	assert_int_equal(d.nfindings, 2);
	assert_int_equal(d.findings[0].change, DIFF_BETTER);
	assert_int_equal(d.findings[1].change, DIFF_APPEARED);
	recording_diff__free(&d);

	/* A quiet series: the halving is beyond its noise... */
	with_intervals(&b, quiet, 3);
	with_intervals(&a, quiet, 3);
	assert_int_equal(recording_diff__compute(&b, &a, &d), 0);
	assert_int_equal(find_row(&d, DIFF_LOCKS, "wait_ns")->significant, DIFF_SIG_YES);
	recording_diff__free(&d);
	/* ... a noisy one (pooled stdev 0.36 ms/s, x3 against a 0.75 ms/s change) is not. */
	with_intervals(&a, noisy, 3);
	assert_int_equal(recording_diff__compute(&b, &a, &d), 0);
	assert_int_equal(find_row(&d, DIFF_LOCKS, "wait_ns")->significant, DIFF_SIG_NO);
	recording_diff__free(&d);
	recording__free(&b);
	recording__free(&a);
	free(fx);
}

/* Per-thread rows [tid, futex_wait_ns, 0...] for tids 11 (worker-1) and
 * 13 (main) on each interval with_intervals() made. */
static void with_thread_rows(struct ss_recording *rec, const double *worker, const double *main_,
			     int n)
{
	for (int i = 0; i < n; i++) {
		json_object *iv = json_object_array_get_idx(rec->intervals, i);
		json_object *rows = json_tokener_parse("[]");
		char text[128];

		snprintf(text, sizeof(text), "[11, %.0f, 0, 0, 0, 0]", worker[i]);
		json_object_array_add(rows, json_tokener_parse(text));
		snprintf(text, sizeof(text), "[13, %.0f, 0, 0, 0, 0]", main_[i]);
		json_object_array_add(rows, json_tokener_parse(text));
		json_object_object_add(iv, "thread_rows", rows);
	}
}

/* Thread groups are judged against their own threads' -i series (1.1):
 * a steady group stands out of a noisy process, and a noisy group does
 * not hide behind a steady total. */
static void test_diff_thread_groups_own_noise(void **state)
{
	static const double noisy[] = { 0.6e6, 1.6e6, 1.1e6 }, quiet[] = { 1.4e6, 1.5e6, 1.45e6 };
	static const double steady[] = { 1.45e6, 1.5e6, 1.55e6 }, none[] = { 0, 0, 0 };
	struct fixture *fx = fixture();
	struct ss_recording b, a;
	struct recording_diff d;
	const struct diff_row *r;

	read_back(fx, &b);
	fx->threads[0].futex_wait_ns = 1500000;	/* worker-1 waits half as long */
	fx->prof.totals.futex_wait_ns -= 1500000;	/* totals agree (recording_check.h) */
	fx->futex.f.wait_ns = 1500000;
	read_back(fx, &a);
	assert_non_null(json_object_object_get(b.doc, "interval_thread_columns"));
	/* Noisy totals (another thread's waits), a steady worker group. */
	with_intervals(&b, noisy, 3);
	with_intervals(&a, noisy, 3);
	assert_int_equal(recording_diff__compute(&b, &a, &d), 0);
	r = find_row(&d, DIFF_THREAD_GROUPS, "futex_wait_ns");
	assert_string_equal(r->name, "worker-#");
	assert_int_equal(r->significant, DIFF_SIG_NO);	/* the totals' noise, before 1.1 */
	recording_diff__free(&d);
	with_thread_rows(&b, steady, noisy, 3);
	with_thread_rows(&a, steady, noisy, 3);
	assert_int_equal(recording_diff__compute(&b, &a, &d), 0);
	r = find_row(&d, DIFF_THREAD_GROUPS, "futex_wait_ns");
	assert_string_equal(r->name, "worker-#");
	assert_true(r->noise > 0 && r->noise < 0.1e6);
	assert_int_equal(r->significant, DIFF_SIG_YES);
	recording_diff__free(&d);
	/* Quiet totals, a noisy worker group: within its noise. */
	with_intervals(&b, quiet, 3);
	with_intervals(&a, quiet, 3);
	with_thread_rows(&b, noisy, none, 3);
	with_thread_rows(&a, noisy, none, 3);
	assert_int_equal(recording_diff__compute(&b, &a, &d), 0);
	assert_int_equal(find_row(&d, DIFF_THREAD_GROUPS, "futex_wait_ns")->significant, DIFF_SIG_NO);
	assert_int_equal(find_row(&d, DIFF_LOCKS, "wait_ns")->significant, DIFF_SIG_YES);
	recording_diff__free(&d);
	recording__free(&b);
	recording__free(&a);
	free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parked_samples_round_trip),
		cmocka_unit_test(test_mechanism_round_trip),
		cmocka_unit_test(test_samples_round_trip),
		cmocka_unit_test(test_sample_stacks_come_back_whole),
		cmocka_unit_test(test_newer_major_refused),
		cmocka_unit_test(test_older_recording_reads),
		cmocka_unit_test(test_recording_1_1_reads),
		cmocka_unit_test(test_bad_files_refused),
		cmocka_unit_test(test_hostile_types),
		cmocka_unit_test(test_hostile_types_elsewhere),
		cmocka_unit_test(test_exited_threads_in_totals),
		cmocka_unit_test(test_diff_names),
		cmocka_unit_test(test_diff_noise_and_findings),
		cmocka_unit_test(test_diff_thread_groups_own_noise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

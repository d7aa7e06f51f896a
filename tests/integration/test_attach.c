// SPDX-License-Identifier: GPL-2.0
/*
 * --attach: which mechanism traces the futex and sched_yield calls. Each
 * forced mechanism attaches only its own program type (syscall tracepoints
 * or fentry/fexit tracing programs), and says so in the JSON; auto keeps
 * to the syscall tracepoints on every kernel, fentry only when asked
 * (fentry traces hung in the kernel matrix's guests; user/trace/attach.c
 * and docs/REFERENCE.md "Supported kernels" say why); a forced fentry that the kernel cannot
 * run is one line and exit 5, with nothing left attached. The exact counts
 * on each mechanism are test_trace_counts' (it runs on both where both work).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "tracetest.h"

#define WORK_TIMEOUT_MS 20000
#define END_TIMEOUT_MS 10000
#define RUN_TIMEOUT_MS 60000
#define YIELDS 200

/* How many of the programs spinscope holds are of each type that matters. */
struct prog_types {
	int tracepoint, tracing;
};

static struct prog_types held_programs(pid_t pid)
{
	struct prog_types n = { 0 };
	uint32_t ids[64];
	int k = tt_prog_ids_of(pid, ids, 64);

	assert_true(k > 0);
	for (int i = 0; i < k; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;	/* gone between the listing and now */
		assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
		close(fd);
		n.tracepoint += info.type == BPF_PROG_TYPE_TRACEPOINT;
		/* fentry/fexit, and tp_btf for the scheduler: both TRACING. */
		n.tracing += info.type == BPF_PROG_TYPE_TRACING;
	}
	return n;
}

/* Traces a yield loop with option mode (NULL: none given); the exact count
 * proves the calls were seen; *held: the programs while attached. */
static json_object *trace_yields(const char *mode, struct prog_types *held)
{
	const char *const *extra = mode ? TT_ARGS(mode) : NULL;
	const char *args[12] = { "-p", NULL, "-d", "0", "--json", "--no-calibrate" };
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc;
	char done[256];
	int n = 6;

	tt_workload_start(&w, "yield_n", TT_ARGS(tt_num(YIELDS), "1"));
	args[1] = tt_num(w.proc.pid);
	while (extra && *extra)
		args[n++] = *extra++;
	tt_trace_start(&t, args);
	*held = held_programs(t.proc.pid);
	tt_workload_go(&w);
	tt_workload_wait_line(&w, "done", done, sizeof(done), WORK_TIMEOUT_MS);
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	if (t.rc != 0)
		fail_msg("spinscope %s exited with %d; stderr: %s", mode ? mode : "", t.rc, t.err);
	doc = tt_parse_report(t.out);
	tt_trace_free(&t);
	tt_workload_end(&w);
	/* --light sees only yields that switch (test_light's). */
	if (!mode || strcmp(mode, "--light"))
		assert_int_equal(tt_u64(doc, "totals.sched_yield"), YIELDS);
	return doc;
}

static const char *mechanism(json_object *doc)
{
	return json_object_get_string(tt_get(doc, "traced.mechanism"));
}

/* What the kernel probes said; fentry also needs the x86-64 or arm64
 * syscall function names, and arm64 6.1 cannot attach at all. */
static bool kernel_runs_fentry(json_object *doc)
{
	return json_object_get_boolean(tt_get(doc, "kernel_features.fentry")) &&
	       json_object_get_boolean(tt_get(doc, "kernel_features.fexit"));
}

static void assert_tracepoints(json_object *doc, struct prog_types held)
{
	assert_string_equal(mechanism(doc), "syscall_tracepoints");
	assert_non_null(strstr(json_object_get_string(tt_get(doc, "traced.mechanism_cost")),
			       "every syscall on this host pays"));
	assert_true(held.tracepoint > 0);
}

static void assert_fentry(json_object *doc, struct prog_types held)
{
	assert_string_equal(mechanism(doc), "fentry");
	assert_non_null(strstr(json_object_get_string(tt_get(doc, "traced.mechanism_cost")),
			       "only those calls pay"));
	assert_int_equal(held.tracepoint, 0);
	assert_true(held.tracing > 0);
}

static void test_forced_tracepoint(void **state)
{
	struct prog_types held;
	json_object *doc;

	TL_REQUIRE_BPF();
	doc = trace_yields("--attach=tracepoint", &held);
	assert_tracepoints(doc, held);
	json_object_put(doc);
}

/* auto is the default: the tracepoints, whether or not the kernel runs fentry. */
static void test_auto_picks_by_probe(void **state)
{
	struct prog_types held;
	json_object *doc;

	TL_REQUIRE_BPF();
	doc = trace_yields(NULL, &held);
	print_message("auto chose %s (kernel fentry %s)\n", mechanism(doc),
		      kernel_runs_fentry(doc) ? "yes" : "no");
	if (!strcmp(tt_auto_mechanism(doc), "fentry"))
		assert_fentry(doc, held);
	else
		assert_tracepoints(doc, held);
	json_object_put(doc);
}

/* spinscope OPTION on a live target where the kernel cannot: exit 5, one
 * line on stderr saying says (and says2 unless NULL), no report, nothing
 * left attached. */
static void expect_exit_5(const char *option, const char *says, const char *says2)
{
	struct tt_bpf_mark mark;
	struct tt_workload w;
	char *out, *err;
	int rc;

	tt_bpf_mark(&mark);
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	rc = tt_run(TT_ARGS(tl_path("spinscope"), "-p", tt_num(w.proc.pid), "-d", "1",
			    "--no-calibrate", option),
		    &out, &err, RUN_TIMEOUT_MS);
	tt_workload_end(&w);
	if (rc != 5)
		fail_msg("exit %d, expected 5; stderr: %s", rc, err);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, says));
	if (says2)
		assert_non_null(strstr(err, says2));
	assert_non_null(strchr(err, '\n'));
	assert_string_equal(strchr(err, '\n'), "\n");
	/* A kernel-internal errno (arm64's 524) is named, not "Unknown". */
	assert_null(strstr(err, "Unknown error"));
	/* The kernel matrix shows the line (tests/vm/guest-init.sh). */
	print_message("mechanism: %s exit 5: %s", option, err);
	free(out);
	free(err);
	tt_assert_nothing_left(&mark);
}

#if defined(__x86_64__)
#define WRAPPER "__x64_sys_"
#else
#define WRAPPER "__arm64_sys_"
#endif

static bool in_btf(const struct btf *btf, const char *fn)
{
	return btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) >= 0;
}

/*
 * The functions fentry attaches to (user/trace/attach.c) are in this
 * kernel's BTF, whether or not it can attach there: so the arch's names
 * are checked on arm64 too, where 6.1 refuses the attach (-524). A yield
 * without arguments may be __do_sys_ only (x86-64 makes its wrapper an
 * alias, with no BTF of its own).
 */
static void assert_fentry_targets(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const char *yield = WRAPPER "sched_yield";
	bool futex;

	assert_non_null(btf);
	futex = in_btf(btf, WRAPPER "futex");
	if (!in_btf(btf, yield))
		yield = in_btf(btf, "__do_sys_sched_yield") ? "__do_sys_sched_yield" : NULL;
	print_message("mechanism: fentry targets in BTF: " WRAPPER "futex %s, sched_yield %s\n",
		      futex ? "yes" : "NO", yield ? yield : "NONE");
	btf__free(btf);
	assert_true(futex);
	assert_non_null(yield);
}

/* Forced fentry: traces where the kernel can; elsewhere exit 5. */
static void test_forced_fentry(void **state)
{
	struct prog_types held;
	json_object *doc;
	bool can;

	TL_REQUIRE_BPF();
	assert_fentry_targets();
	doc = trace_yields("--attach=tracepoint", &held);
	can = kernel_runs_fentry(doc);
	json_object_put(doc);
	/* The kernel matrix shows this line (tests/vm/guest-init.sh). */
	print_message("mechanism: --attach=fentry %s\n",
		      can ? "traces (the kernel runs fentry)" : "exits 5 (the kernel cannot)");
	if (!can) {
		/* "spinscope: --attach=fentry: ...: use --attach=..." */
		expect_exit_5("--attach=fentry", "spinscope: --attach=fentry: ",
			      "use --attach=tracepoint");
		return;
	}
	doc = trace_yields("--attach=fentry", &held);
	assert_fentry(doc, held);
	json_object_put(doc);
}

/* --light needs bpf_task_pt_regs (5.15): it traces where the kernel has
 * it, and elsewhere (the matrix's 5.10) is one line and exit 5. */
static void test_light_or_exit_5(void **state)
{
	/* What light_check_kernel() probes. */
	bool has = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_task_pt_regs,
					   NULL) > 0 &&
		   libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
					   BPF_FUNC_get_current_task_btf, NULL) > 0;
	struct prog_types held;
	json_object *doc;

	TL_REQUIRE_BPF();
	print_message("mechanism: --light %s\n",
		      has ? "traces (bpf_task_pt_regs)" : "exits 5 (no bpf_task_pt_regs)");
	if (!has) {
		expect_exit_5("--light", "--light needs BPF's bpf_task_pt_regs (Linux 5.15 or later)",
			      NULL);
		return;
	}
	doc = trace_yields("--light", &held);
	assert_string_equal(mechanism(doc), "light");
	assert_int_equal(held.tracepoint, 0);
	json_object_put(doc);
}

static void expect_usage_error(const char *const args[], const char *says)
{
	char *out, *err;
	int rc = tt_run(args, &out, &err, RUN_TIMEOUT_MS);

	if (rc != 2 || !strstr(err, says))
		fail_msg("exit %d (expected 2), stderr without '%s': %s", rc, says, err);
	free(out);
	free(err);
}

static void test_attach_usage_errors(void **state)
{
	const char *bin = tl_path("spinscope");
	char pid[16];

	(void)state;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	expect_usage_error(TT_ARGS(bin, "-p", pid, "--attach=kprobe"),
			   "--attach takes auto, fentry or tracepoint, not 'kprobe'");
	expect_usage_error(TT_ARGS(bin, "-p", pid, "--light", "--attach=fentry"),
			   "--light attaches no syscall program");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_forced_tracepoint, tt_teardown),
		cmocka_unit_test_teardown(test_auto_picks_by_probe, tt_teardown),
		cmocka_unit_test_teardown(test_forced_fentry, tt_teardown),
		cmocka_unit_test_teardown(test_light_or_exit_5, tt_teardown),
		cmocka_unit_test_teardown(test_attach_usage_errors, tt_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

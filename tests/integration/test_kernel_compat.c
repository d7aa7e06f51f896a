// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel compatibility, for real (root):
 *  - the syscall tracepoint programs' context reads are CO-RE relocated to
 *    the layout the BTF gives, so on PREEMPT_RT (trace_entry of 12 bytes)
 *    they read ret and the arguments where that kernel's records hold them:
 *    loaded here against BTF fixtures of each layout, the offsets the
 *    kernel accepted are read back from the loaded programs;
 *  - an empty or corrupt /sys/kernel/btf/vmlinux (bind-mounted over in a
 *    private mount namespace: the host is untouched) gives exit 5 naming
 *    the BTF and --btf, not exit 6 "No such process";
 *  - a --btf whose syscall records do not match this kernel's tracefs
 *    layout is refused before loading (exit 5);
 *  - the JSON report's kernel_features agree with bpftool and with the
 *    scheduler variant chosen.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf_fixture.h"
#include "tracetest.h"
#include "trace/syscall_layout.h"
#include "trace/tracer.h"
#include "trace.skel.h"

#define RUN_TIMEOUT_MS 20000

/* The offsets of every 8-byte load from the context (r1 on entry, and the
 * registers it is copied to) in a loaded program's instructions. */
static int ctx_load_offsets(int prog_fd, int *offs, int max)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n;
	struct bpf_insn *insns;
	unsigned int ctx_regs = 1u << BPF_REG_1;
	int found = 0;

	assert_int_equal(bpf_obj_get_info_by_fd(prog_fd, &info, &len), 0);
	n = info.xlated_prog_len / sizeof(*insns);
	insns = calloc(n, sizeof(*insns));
	assert_non_null(insns);
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = n * sizeof(*insns);
	info.xlated_prog_insns = (__u64)(unsigned long)insns;
	len = sizeof(info);
	assert_int_equal(bpf_obj_get_info_by_fd(prog_fd, &info, &len), 0);
	for (__u32 i = 0; i < n; i++) {
		const struct bpf_insn *in = &insns[i];
		__u8 cls = BPF_CLASS(in->code);

		if (in->code == (BPF_LDX | BPF_MEM | BPF_DW) && (ctx_regs >> in->src_reg & 1) &&
		    found < max)
			offs[found++] = in->off;
		if (in->code == (BPF_JMP | BPF_CALL))
			ctx_regs &= ~0x3eu;	/* r1-r5 clobbered */
		else if (in->code == (BPF_ALU64 | BPF_MOV | BPF_X) && (ctx_regs >> in->src_reg & 1))
			ctx_regs |= 1u << in->dst_reg;
		else if (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LD || cls == BPF_LDX)
			ctx_regs &= ~(1u << in->dst_reg);
	}
	free(insns);
	return found;
}

static bool has(const int *offs, int n, int off)
{
	for (int i = 0; i < n; i++)
		if (offs[i] == off)
			return true;
	return false;
}

/* Loads futex_enter_futex and futex_exit_futex relocated against a BTF
 * fixture, and checks where they read the context. */
static void check_relocation(enum btf_fixture_layout layout, int want_args, int want_ret)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	char *path = btf_fixture_write(layout);
	struct syscall_layout l;
	struct bpf_program *prog;
	struct btf *btf;
	struct trace *skel;
	int offs[16], n;

	assert_non_null(path);
	btf = btf__parse_raw(path);
	assert_non_null(btf);
	assert_int_equal(syscall_layout_from_btf(btf, &l), 0);
	btf__free(btf);
	assert_int_equal(l.args_off, want_args);
	assert_int_equal(l.ret_off, want_ret);
	opts.btf_custom_path = path;
	skel = trace__open_opts(&opts);
	assert_non_null(skel);
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.futex_enter_futex ||
						prog == skel->progs.futex_exit_futex);
	if (trace__load(skel))
		fail_msg("load against fixture %s: %s", path, strerror(errno));
	n = ctx_load_offsets(bpf_program__fd(skel->progs.futex_enter_futex), offs, 16);
	if (n != 2 || !has(offs, n, want_args) || !has(offs, n, want_args + 8))
		fail_msg("futex_enter_futex reads %d context words (first at %d), want args[0], args[1] at %d, %d",
			 n, n ? offs[0] : -1, want_args, want_args + 8);
	n = ctx_load_offsets(bpf_program__fd(skel->progs.futex_exit_futex), offs, 16);
	if (n != 1 || offs[0] != want_ret)
		fail_msg("futex_exit_futex reads %d context words (first at %d), want ret at %d", n,
			 n ? offs[0] : -1, want_ret);
	trace__destroy(skel);
	unlink(path);
	free(path);
}

static void test_reads_follow_btf_layout(void **state)
{
	TL_REQUIRE_BPF();
	check_relocation(BTF_FIXTURE_PLAIN, 16, 16);
	/* PREEMPT_RT: header of 12 bytes, nr at 12, args and ret still at 16
	 * (the raw_syscalls types put them at 24: refused at attach). */
	check_relocation(BTF_FIXTURE_RT, 16, 16);
	/* Not hard-wired: a layout with ret elsewhere is followed too. */
	check_relocation(BTF_FIXTURE_RT_RAW_SHAPE, 16, 24);
}

/*
 * Issue 11's PREEMPT_RT failure, reproduced on this kernel: a program that
 * reads the context past the event's record (ret at 24 of a 24-byte
 * sys_exit_futex record, where the raw_syscalls layout puts it on RT) loads
 * but is refused at attach with EACCES, and spinscope's line for that names
 * the program and says the kernel refused it: exit 6, not "insufficient
 * privileges" (we are root).
 */
static void test_refused_attach_named(void **state)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	char *path = btf_fixture_write(BTF_FIXTURE_RT_RAW_SHAPE), why[512];
	struct bpf_program *prog;
	struct bpf_link *link;
	struct trace *skel;
	int err;

	TL_REQUIRE_BPF();
	assert_non_null(path);
	/* libbpf finds the event's id in tracefs: mount it where only this
	 * test process sees it, as spinscope does. */
	if (access("/sys/kernel/tracing/events", F_OK)) {
		assert_int_equal(unshare(CLONE_NEWNS), 0);
		assert_int_equal(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
		assert_int_equal(mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL), 0);
	}
	opts.btf_custom_path = path;
	skel = trace__open_opts(&opts);
	assert_non_null(skel);
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.futex_exit_futex);
	assert_int_equal(trace__load(skel), 0);
	link = bpf_program__attach(skel->progs.futex_exit_futex);
	err = errno;
	if (link) {
		bpf_link__destroy(link);
		skip();	/* a kernel whose record is longer: nothing to refuse */
	}
	assert_int_equal(err, EACCES);
	assert_int_equal(tracer_attach_error("futex_exit_futex", "tracepoint/syscalls/sys_exit_futex",
					     err, 0, why, sizeof(why)), 6);
	assert_string_equal(why, "the kernel refused to attach BPF program futex_exit_futex "
			    "(tracepoint/syscalls/sys_exit_futex): Permission denied "
			    "(run with -v for libbpf's message)");
	assert_int_equal(tracer_attach_error("futex_exit_futex", "tracepoint/syscalls/sys_exit_futex",
					     ENOENT, 1, why, sizeof(why)), 5);
	assert_non_null(strstr(why, "this kernel has no tracepoint/syscalls/sys_exit_futex"));
	trace__destroy(skel);
	unlink(path);
	free(path);
}

/* ---- exit 5 for a bad kernel BTF ------------------------------------------ */

static void expect_exit5(const char *script, const char *const needles[])
{
	const char *argv[16] = { "/usr/bin/unshare", "-m", "--propagation", "private", "--",
				 "/bin/sh", "-ec", script, tl_path("spinscope") };
	struct tt_workload w;
	struct tt_bpf_mark mark;
	char *out, *err;
	int rc;

	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	argv[9] = "-p";
	argv[10] = tt_num(w.proc.pid);
	argv[11] = "-d";
	argv[12] = "1";
	tt_bpf_mark(&mark);
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc != 5)
		fail_msg("exit code %d, expected 5; stderr: %s", rc, err);
	if (strncmp(err, "spinscope: ", 11) || !strchr(err, '\n') || strchr(err, '\n')[1])
		fail_msg("expected one line \"spinscope: ...\" on stderr, got: %s", err);
	for (; *needles; needles++)
		if (!strstr(err, *needles))
			fail_msg("the error does not mention \"%s\": %s", *needles, err);
	tt_assert_nothing_left(&mark);
	free(out);
	free(err);
	tt_workload_end(&w);
}

/* Issue 13 case 6: an empty file bind-mounted over the kernel's BTF. */
static void test_empty_kernel_btf(void **state)
{
	TL_REQUIRE_BPF();
	expect_exit5("f=$(mktemp); mount --bind $f /sys/kernel/btf/vmlinux; rm -f $f; exec \"$0\" \"$@\"",
		     TT_ARGS("/sys/kernel/btf/vmlinux", "empty", "--btf"));
}

/* A header that holds up but types that do not: only a full parse sees it. */
static void test_corrupt_kernel_btf(void **state)
{
	TL_REQUIRE_BPF();
	expect_exit5("f=$(mktemp); cat /sys/kernel/btf/vmlinux > $f;"
		     " printf '\\377\\377\\377\\377\\377\\377\\377\\377' | dd of=$f bs=1 seek=28 conv=notrunc 2>/dev/null;"
		     " mount --bind $f /sys/kernel/btf/vmlinux; rm -f $f; exec \"$0\" \"$@\"",
		     TT_ARGS("/sys/kernel/btf/vmlinux", "corrupt", "--btf"));
}

/* A kernel without BTF of its own, where --btf stands in: the builds of
 * trace.bpf.c and light.bpf.c without kfuncs load (libbpf needs the
 * kernel's own BTF to resolve one) and trace, with the raw_tp scheduler
 * set; light: with --light (mechanism "light"), else NULL (the default). */
static void trace_with_btf_file_only(const char *light)
{
	const char *script = "f=$(mktemp); trap 'rm -f $f' EXIT; e=$(mktemp);"
			     " cat /sys/kernel/btf/vmlinux > $f;"
			     " mount --bind $e /sys/kernel/btf/vmlinux; rm -f $e;"
			     " \"$0\" --btf $f \"$@\"";
	const char *argv[18] = { "/usr/bin/unshare", "-m", "--propagation", "private", "--",
				 "/bin/sh", "-ec", script, tl_path("spinscope"), "-p", NULL,
				 "-d", "1", "--json", "-v", "--no-calibrate", light };
	struct tt_workload w;
	json_object *doc;
	char *out, *err;
	int rc;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	argv[10] = tt_num(w.proc.pid);
	rc = tt_run(argv, &out, &err, RUN_TIMEOUT_MS);
	if (rc != 0)
		fail_msg("exit code %d, expected 0; stderr: %s", rc, err);
	assert_non_null(strstr(err, "spinscope: BPF object: trace.bpf.c without kfuncs"));
	doc = tt_parse_report(out);
	assert_string_equal(json_object_get_string(tt_get(doc, "traced.sched")), "raw_tp");
	assert_string_equal(json_object_get_string(tt_get(doc, "traced.mechanism")),
			    light ? "light" : "syscall_tracepoints");
	assert_int_equal(tt_u64(doc, "target.pid"), w.proc.pid);
	json_object_put(doc);
	free(out);
	free(err);
	tt_workload_end(&w);
}

static void test_btf_file_without_kernel_btf(void **state)
{
	trace_with_btf_file_only(NULL);
}

static void test_btf_file_without_kernel_btf_light(void **state)
{
	trace_with_btf_file_only("--light");
}

/* A --btf of the other layout (RT on a plain host, plain on an RT one) is
 * refused before anything is loaded. */
static void test_btf_of_other_layout(void **state)
{
	struct utsname u;
	bool rt_host = uname(&u) == 0 && strstr(u.version, "PREEMPT_RT");
	char *other = btf_fixture_write(rt_host ? BTF_FIXTURE_PLAIN : BTF_FIXTURE_RT);
	char script[512];

	TL_REQUIRE_BPF();
	assert_non_null(other);
	snprintf(script, sizeof(script), "exec \"$0\" --btf %s \"$@\"", other);
	expect_exit5(script, TT_ARGS(other, "does not match this kernel's syscall tracepoints",
				     rt_host ? "tracefs says 12, 16 and 16" : "tracefs says 8, 16 and 16"));
	unlink(other);
	free(other);
}

/* A kernel older than 5.8 (uname made to say 2.6 through the UNAME26
 * personality, as setarch does) gets one line and exit 5, before any BPF
 * call could print a verifier log. */
static void test_old_kernel_one_line(void **state)
{
	struct utsname u;
	struct tt_workload w;
	char *out, *err;
	int rc;

	TL_REQUIRE_BPF();
	assert_int_equal(uname(&u), 0);
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	rc = tt_run(TT_ARGS("/usr/bin/setarch", u.machine, "--uname-2.6", tl_path("spinscope"), "-p",
			    tt_num(w.proc.pid), "-d", "1", "-v"),
		    &out, &err, RUN_TIMEOUT_MS);
	if (rc != 5 || strncmp(err, "spinscope: needs Linux 5.8 or later with BTF: this is 2.6 (2.6.", 62) ||
	    !strchr(err, '\n') || strchr(err, '\n')[1])
		fail_msg("exit %d, stderr: %s", rc, err);
	free(out);
	free(err);
	tt_workload_end(&w);
}

/* ---- kernel_features -------------------------------------------------------- */

static bool bpftool_says(const char *out, const char *what)
{
	return strstr(out, what) != NULL;
}

static void test_kernel_features_reported(void **state)
{
	const char *bpftool[] = { "/usr/sbin/bpftool", "feature", "probe", "kernel", NULL };
	const char *keys[] = { "fentry", "fexit", "tp_btf", "raw_tp", "syscall_tracepoints",
			       "task_storage", "bpf_cmpxchg" };
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc, *kf;
	char *out, *err;

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS("1", "1"));
	tt_trace_start(&t, TT_ARGS("-p", tt_num(w.proc.pid), "-d", "0", "--json", "-v",
				   "--no-calibrate"));
	tt_trace_end(&t, SIGINT, RUN_TIMEOUT_MS);
	assert_int_equal(t.rc, 0);
	assert_non_null(strstr(t.err, "spinscope: kernel features: fentry "));
	doc = tt_parse_report(t.out);
	kf = tt_get(doc, "kernel_features");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_true(json_object_is_type(tt_get(kf, keys[i]), json_type_boolean));
	/* spinscope attached its syscall tracepoints and a scheduler set. */
	assert_true(json_object_get_boolean(tt_get(kf, "syscall_tracepoints")));
	assert_true(json_object_get_boolean(tt_get(kf, "raw_tp")));
	assert_string_equal(json_object_get_string(tt_get(doc, "traced.sched")),
			    json_object_get_boolean(tt_get(kf, "tp_btf")) ? "tp_btf" : "raw_tp");
	/* A second opinion where bpftool has one. */
	if (tt_run(bpftool, &out, &err, RUN_TIMEOUT_MS) == 0) {
		assert_int_equal(json_object_get_boolean(tt_get(kf, "task_storage")),
				 bpftool_says(out, "eBPF map_type task_storage is available"));
		assert_int_equal(json_object_get_boolean(tt_get(kf, "raw_tp")),
				 bpftool_says(out, "eBPF program_type raw_tracepoint is available"));
		free(out);
		free(err);
	}
	json_object_put(doc);
	tt_trace_free(&t);
	tt_workload_end(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_reads_follow_btf_layout, tt_teardown),
		cmocka_unit_test_teardown(test_refused_attach_named, tt_teardown),
		cmocka_unit_test_teardown(test_empty_kernel_btf, tt_teardown),
		cmocka_unit_test_teardown(test_corrupt_kernel_btf, tt_teardown),
		cmocka_unit_test_teardown(test_btf_file_without_kernel_btf, tt_teardown),
		cmocka_unit_test_teardown(test_btf_file_without_kernel_btf_light, tt_teardown),
		cmocka_unit_test_teardown(test_btf_of_other_layout, tt_teardown),
		cmocka_unit_test_teardown(test_old_kernel_one_line, tt_teardown),
		cmocka_unit_test_teardown(test_kernel_features_reported, tt_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c without root: --attach's choice between fentry/fexit and the
 * syscall tracepoints on trace.bpf.c's real (opened, never loaded) object,
 * against kernel BTFs made here that have or lack the syscall functions,
 * and probe results that say fentry works or not. The programs really
 * loaded and attached on each kernel are tests/integration/test_attach.c's.
 */
#include "testlib.h"
#include <errno.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/errors.h"
#include "model/kernel_features.h"
#include "trace/attach.h"
#include "trace.skel.h"

#if defined(__x86_64__)
#define WRAPPER "__x64_sys_"
#else
#define WRAPPER "__arm64_sys_"
#endif

/* A kernel BTF with these functions (each long f(void): only names count). */
static struct btf *kernel_with(const char *const *fns)
{
	struct btf *btf = btf__new_empty();
	int lng, proto;

	assert_non_null(btf);
	lng = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	proto = btf__add_func_proto(btf, lng);
	assert_true(lng > 0 && proto > 0);
	for (; *fns; fns++)
		assert_true(btf__add_func(btf, *fns, BTF_FUNC_GLOBAL, proto) > 0);
	return btf;
}

static const char *const all_fns[] = {
	WRAPPER "futex", WRAPPER "futex_waitv", WRAPPER "futex_wait", WRAPPER "futex_wake",
	WRAPPER "futex_requeue", "__do_sys_sched_yield", NULL,
};

static const struct kernel_features can = { .fentry = { .ok = true }, .fexit = { .ok = true } };
static const struct kernel_features cannot = {
	.fentry = { .ok = false, .err = EPERM }, .fexit = { .ok = false, .err = EPERM },
};

static bool loads(struct trace *s, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(s->obj, name);

	assert_non_null(p);
	return bpf_program__autoload(p);
}

/* Exactly one of each syscall program and its fe_ twin loads. */
static void assert_set(struct trace *s, bool fentry)
{
	static const char *const tps[] = {
		"futex_enter_futex", "futex_exit_futex", "futex_enter_waitv", "futex_exit_waitv",
		"futex_enter_wake2", "futex_exit_requeue2", "yield_enter",
	};

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		char fe[64];

		snprintf(fe, sizeof(fe), "fe_%s", tps[i]);
		if (loads(s, tps[i]) != !fentry || loads(s, fe) != fentry)
			fail_msg("%s loads %d, %s loads %d (fentry %d)", tps[i], loads(s, tps[i]), fe,
				 loads(s, fe), fentry);
	}
	/* The scheduler programs are not the mechanism's. */
	assert_true(loads(s, "sched_switch_btf"));
}

static int choose(enum tracer_attach want, bool light, const struct kernel_features *k,
		  const char *const *fns, bool *fentry, char *why, struct trace **out)
{
	struct trace *s = trace__open();
	struct btf *btf = fns ? kernel_with(fns) : NULL;
	int code;

	assert_non_null(s);
	code = attach_choose(want, light, &(struct attach_kernel){ .features = k, .btf = btf },
			     s->obj, fentry, why, 256);
	btf__free(btf);
	*out = s;
	return code;
}

/* fentry where it works only when asked: auto keeps to the tracepoints
 * (traces on fentry hung in the kernel matrix's guests, user/trace/attach.c). */
static void test_auto_takes_tracepoints_fentry_when_asked(void **state)
{
	struct trace *s;
	char why[256] = "";
	bool fentry = true;

	(void)state;
	assert_int_equal(choose(TRACER_ATTACH_AUTO, false, &can, all_fns, &fentry, why, &s), 0);
	assert_false(fentry);
	assert_set(s, false);
	trace__destroy(s);
	/* Forced: fentry. */
	assert_int_equal(choose(TRACER_ATTACH_FENTRY, false, &can, all_fns, &fentry, why, &s), 0);
	assert_true(fentry);
	trace__destroy(s);
}

/* sched_yield's x86-64 wrapper is an alias (no BTF function of its own):
 * __do_sys_sched_yield serves; for a syscall with arguments it never does. */
static void test_yield_alias_serves_futex_needs_wrapper(void **state)
{
	static const char *const no_futex[] = {
		"__do_sys_futex", WRAPPER "futex_waitv", WRAPPER "futex_wait", WRAPPER "futex_wake",
		WRAPPER "futex_requeue", WRAPPER "sched_yield", NULL,
	};
	struct trace *s;
	char why[256] = "";
	bool fentry = true;

	(void)state;
	assert_int_equal(choose(TRACER_ATTACH_AUTO, false, &can, no_futex, &fentry, why, &s), 0);
	assert_false(fentry);
	assert_set(s, false);
	trace__destroy(s);
	assert_int_equal(choose(TRACER_ATTACH_FENTRY, false, &can, no_futex, &fentry, why, &s),
			 SS_EXIT_KERNEL);
	assert_string_equal(why, "--attach=fentry: this kernel's BTF has no function of syscall futex to attach to: use --attach=tracepoint or --attach=auto");
	trace__destroy(s);
}

/* A syscall the kernel lacks (its programs switched off, as the tracer
 * does from tracefs) needs no function. */
static void test_missing_syscall_needs_no_function(void **state)
{
	static const char *const old[] = { WRAPPER "futex", "__do_sys_sched_yield", NULL };
	static const char *const off[] = {
		"futex_enter_waitv", "futex_exit_waitv", "futex_enter_wait2", "futex_exit_wait2",
		"futex_enter_wake2", "futex_exit_wake2", "futex_enter_requeue2", "futex_exit_requeue2",
	};
	struct trace *s = trace__open();
	struct btf *btf = kernel_with(old);
	char why[256] = "";
	bool fentry = false;

	(void)state;
	assert_non_null(s);
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		bpf_program__set_autoload(bpf_object__find_program_by_name(s->obj, off[i]), false);
	assert_int_equal(attach_choose(TRACER_ATTACH_FENTRY, false,
				       &(struct attach_kernel){ .features = &can, .btf = btf }, s->obj,
				       &fentry, why, sizeof(why)), 0);
	assert_true(fentry);
	assert_true(loads(s, "fe_futex_enter_futex") && loads(s, "fe_yield_enter"));
	assert_false(loads(s, "fe_futex_enter_waitv") || loads(s, "futex_enter_waitv"));
	btf__free(btf);
	trace__destroy(s);
}

/* This host: fentry refused (EPERM). auto falls back, forced is exit 5. */
static void test_kernel_without_trampolines(void **state)
{
	struct trace *s;
	char why[256] = "";
	bool fentry = true;

	(void)state;
	assert_int_equal(choose(TRACER_ATTACH_AUTO, false, &cannot, all_fns, &fentry, why, &s), 0);
	assert_false(fentry);
	assert_set(s, false);
	trace__destroy(s);
	assert_int_equal(choose(TRACER_ATTACH_FENTRY, false, &cannot, all_fns, &fentry, why, &s),
			 SS_EXIT_KERNEL);
	assert_string_equal(why, "--attach=fentry: this kernel cannot attach BPF fentry/fexit programs (Operation not permitted): use --attach=tracepoint or --attach=auto");
	trace__destroy(s);
	/* No kernel BTF at all (--btf on a kernel without it): tracepoints. */
	assert_int_equal(choose(TRACER_ATTACH_AUTO, false, &can, NULL, &fentry, why, &s), 0);
	assert_false(fentry);
	trace__destroy(s);
}

/* PREEMPT_RT: auto keeps to the tracepoints; forced fentry still runs. */
static void test_rt_kernel_auto_takes_tracepoints(void **state)
{
	struct attach_kernel rt = { .features = &can, .preempt_rt = true };
	struct trace *s = trace__open();
	char why[256] = "";
	bool fentry = true;

	(void)state;
	assert_non_null(s);
	rt.btf = kernel_with(all_fns);
	assert_int_equal(attach_choose(TRACER_ATTACH_AUTO, false, &rt, s->obj, &fentry, why,
				       sizeof(why)), 0);
	assert_false(fentry);
	assert_set(s, false);
	assert_int_equal(attach_choose(TRACER_ATTACH_FENTRY, false, &rt, s->obj, &fentry, why,
				       sizeof(why)), 0);
	assert_true(fentry);
	assert_set(s, true);
	btf__free((struct btf *)rt.btf);
	trace__destroy(s);
}

static void test_tracepoint_and_light_load_no_fentry(void **state)
{
	struct trace *s;
	char why[256] = "";
	bool fentry = true;

	(void)state;
	assert_int_equal(choose(TRACER_ATTACH_TRACEPOINT, false, &can, all_fns, &fentry, why, &s), 0);
	assert_false(fentry);
	assert_set(s, false);
	trace__destroy(s);
	assert_int_equal(choose(TRACER_ATTACH_AUTO, true, &can, all_fns, &fentry, why, &s), 0);
	assert_false(fentry);
	assert_false(loads(s, "fe_futex_enter_futex") || loads(s, "fe_yield_enter"));
	trace__destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_takes_tracepoints_fentry_when_asked),
		cmocka_unit_test(test_yield_alias_serves_futex_needs_wrapper),
		cmocka_unit_test(test_missing_syscall_needs_no_function),
		cmocka_unit_test(test_kernel_without_trampolines),
		cmocka_unit_test(test_rt_kernel_auto_takes_tracepoints),
		cmocka_unit_test(test_tracepoint_and_light_load_no_fentry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

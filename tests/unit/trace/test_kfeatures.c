// SPDX-License-Identifier: GPL-2.0
/*
 * kfeatures.c without root: the oldest-kernel check (one line, exit 5,
 * never a verifier dump on a 5.4 host), and how probe results are shown
 * by -v and recorded in the JSON report. The probes themselves run in
 * tests/integration/test_kernel_compat.c. Whether sched_switch passes
 * prev's state is read from BTF built here in each kernel's shape.
 */
#include "testlib.h"
#include <errno.h>
#include <string.h>
#include "common/errors.h"
#include "trace/kfeatures.h"
#include "report/report.h"
#include <bpf/btf.h>

static void test_old_kernels_refused(void **state)
{
	char why[256] = "";

	assert_int_equal(kernel_check_version("5.4.0-150-generic", why, sizeof(why)), SS_EXIT_KERNEL);
	assert_string_equal(why, "needs Linux 5.8 or later with BTF: this is 5.4 (5.4.0-150-generic)");
	assert_int_equal(kernel_check_version("4.19.0-27-amd64", why, sizeof(why)), SS_EXIT_KERNEL);
	assert_non_null(strstr(why, "this is 4.19"));
	assert_int_equal(kernel_check_version("5.7.19", why, sizeof(why)), SS_EXIT_KERNEL);
}

static void test_supported_kernels_pass(void **state)
{
	static const char *const ok[] = {
		"5.8.0", "5.10.0-33-amd64", "6.1.0-31-rt-amd64", "6.12.12-arm64", "6.18.0", "10.0",
	};
	char why[256];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		why[0] = 0;
		assert_int_equal(kernel_check_version(ok[i], why, sizeof(why)), 0);
		assert_string_equal(why, "");
	}
	/* Unreadable releases are let through: the probes say more. */
	assert_int_equal(kernel_check_version("custom", why, sizeof(why)), 0);
	assert_int_equal(kernel_check_version(NULL, why, sizeof(why)), 0);
}

static void test_describe_and_json(void **state)
{
	struct kernel_features f = {
		.fentry = { .ok = false, .err = EPERM },
		.fexit = { .ok = false, .err = EPERM },
		.tp_btf = { .ok = true },
		.raw_tp = { .ok = true },
		.syscall_tracepoints = { .ok = true },
		.task_storage = { .ok = false, .err = EOPNOTSUPP },
		.bpf_cmpxchg = { .ok = false, .err = EINVAL },
	};
	char line[512], small[20];
	json_object *o = report_kernel_features_json(&f);

	kernel_features_describe(&f, line, sizeof(line));
	assert_string_equal(line, "fentry no (Operation not permitted), fexit no (Operation not permitted), "
			    "tp_btf yes, raw_tp yes, syscall_tracepoints yes, "
			    "task_storage no (Operation not supported), bpf_cmpxchg no (Invalid argument)");
	kernel_features_describe(&f, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), 7);
	assert_false(json_object_get_boolean(json_object_object_get(o, "fentry")));
	assert_true(json_object_get_boolean(json_object_object_get(o, "tp_btf")));
	assert_false(json_object_get_boolean(json_object_object_get(o, "bpf_cmpxchg")));
	json_object_put(o);
}

/* A BTF holding btf_trace_sched_switch as the kernel defines it: a pointer
 * to void (void *, bool, struct task_struct *, struct task_struct *[,
 * unsigned int prev_state]). */
static struct btf *sched_switch_btf(bool prev_state)
{
	struct btf *b = btf__new_empty();
	int uint_id = btf__add_int(b, "unsigned int", 4, 0);
	int boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	int task = btf__add_fwd(b, "task_struct", BTF_FWD_STRUCT);
	int task_ptr = btf__add_ptr(b, task);
	int void_ptr = btf__add_ptr(b, 0);
	int proto = btf__add_func_proto(b, 0);

	assert_true(uint_id > 0 && boolean > 0 && task_ptr > 0 && void_ptr > 0 && proto > 0);
	assert_int_equal(btf__add_func_param(b, "__data", void_ptr), 0);
	assert_int_equal(btf__add_func_param(b, "preempt", boolean), 0);
	assert_int_equal(btf__add_func_param(b, "prev", task_ptr), 0);
	assert_int_equal(btf__add_func_param(b, "next", task_ptr), 0);
	if (prev_state)
		assert_int_equal(btf__add_func_param(b, "prev_state", uint_id), 0);
	assert_true(btf__add_typedef(b, "btf_trace_sched_switch", btf__add_ptr(b, proto)) > 0);
	return b;
}

static void test_switch_state_from_btf(void **state)
{
	struct btf *k518 = sched_switch_btf(true), *k510 = sched_switch_btf(false), *none = btf__new_empty();

	assert_true(kernel_switch_passes_state(k518));
	assert_false(kernel_switch_passes_state(k510));
	assert_false(kernel_switch_passes_state(none));	/* no such typedef */
	assert_false(kernel_switch_passes_state(NULL));
	btf__free(k518);
	btf__free(k510);
	btf__free(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_kernels_refused),
		cmocka_unit_test(test_supported_kernels_pass),
		cmocka_unit_test(test_describe_and_json),
		cmocka_unit_test(test_switch_state_from_btf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

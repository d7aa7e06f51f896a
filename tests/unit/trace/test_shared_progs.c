// SPDX-License-Identifier: GPL-2.0
/*
 * shared_progs.c without root, on trace.bpf.c's real (opened, never
 * loaded) object: which syscall tracepoint programs give their load to a
 * twin of the same body, and which tracepoints that twin then takes too.
 * The exact counts through the shared programs are test_trace_counts'
 * (test_futex2_calls_exact) and the kernel matrix's futex2 checks.
 */
#include "testlib.h"
#include <string.h>
#include <bpf/libbpf.h>
#include "trace/shared_progs.h"
#include "trace.skel.h"

static struct bpf_program *prog(struct trace *s, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(s->obj, name);

	assert_non_null(p);
	return p;
}

static bool loads(struct trace *s, const char *name)
{
	return bpf_program__autoload(prog(s, name));
}

/* The object as the tracer has it before load on a kernel with every
 * tracepoint: the syscall tracepoints chosen, one twin of each (unw: the
 * unwinding ones). */
static struct trace *opened(bool unw)
{
	struct trace *s = trace__open();
	struct bpf_program *p;

	assert_non_null(s);
	bpf_object__for_each_program(p, s->obj) {
		const char *name = bpf_program__name(p);
		size_t n = strlen(name);
		bool is_unw = n > 4 && !strcmp(name + n - 4, "_unw");
		char twin[64];

		if (!strncmp(name, "fe_", 3)) {
			bpf_program__set_autoload(p, false);
			continue;
		}
		snprintf(twin, sizeof(twin), "%s_unw", name);
		if (is_unw || bpf_object__find_program_by_name(s->obj, twin))
			bpf_program__set_autoload(p, is_unw == unw);
	}
	return s;
}

static const char *extra_of(const struct shared_progs *sp, const char *prog_name)
{
	for (int i = 0; i < sp->n; i++)
		if (!strcmp(bpf_program__name(sp->extra[i].prog), prog_name))
			return sp->extra[i].tracepoint;
	return NULL;
}

/* Both pairs share: the second of each does not load, the first takes its
 * tracepoint; programs with stacks share as their loaded twin. */
static void test_pairs_share_their_loaded_twin(void **state)
{
	for (int unw = 0; unw < 2; unw++) {
		struct trace *s = opened(unw);
		struct shared_progs sp;
		const char *wake = unw ? "futex_exit_wake2_unw" : "futex_exit_wake2";

		shared_progs__choose(&sp, s->obj);
		assert_int_equal(sp.n, 2);
		assert_string_equal(extra_of(&sp, wake), "sys_exit_futex_requeue");
		assert_string_equal(extra_of(&sp, "futex_exit_waitv"), "sys_exit_futex_wait");
		assert_false(loads(s, unw ? "futex_exit_requeue2_unw" : "futex_exit_requeue2"));
		assert_false(loads(s, "futex_exit_wait2"));
		assert_true(loads(s, wake));
		assert_true(loads(s, "futex_exit_waitv"));
		/* Entries differ in what they read: never shared. */
		assert_true(loads(s, "futex_enter_wake2"));
		assert_true(loads(s, "futex_enter_requeue2"));
		trace__destroy(s);
	}
}

/* A kernel without futex_waitv (before 5.16) still traces futex_wait's
 * exits with their own program. */
static void test_missing_partner_keeps_own_program(void **state)
{
	struct trace *s = opened(false);
	struct shared_progs sp;

	bpf_program__set_autoload(prog(s, "futex_exit_waitv"), false);
	shared_progs__choose(&sp, s->obj);
	assert_int_equal(sp.n, 1);
	assert_null(extra_of(&sp, "futex_exit_waitv"));
	assert_true(loads(s, "futex_exit_wait2"));
	trace__destroy(s);
}

/* On fentry no tracepoint program loads: nothing shared, the fe_ twins
 * untouched (each is attached to its own syscall function). */
static void test_fentry_shares_nothing(void **state)
{
	struct trace *s = opened(false);
	struct bpf_program *p;
	struct shared_progs sp;

	bpf_object__for_each_program(p, s->obj)
		if (!strncmp(bpf_program__section_name(p), "tracepoint/syscalls/", 20))
			bpf_program__set_autoload(p, false);
	bpf_program__set_autoload(prog(s, "fe_futex_exit_requeue2"), true);
	shared_progs__choose(&sp, s->obj);
	assert_int_equal(sp.n, 0);
	assert_true(loads(s, "fe_futex_exit_requeue2"));
	trace__destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_share_their_loaded_twin),
		cmocka_unit_test(test_missing_partner_keeps_own_program),
		cmocka_unit_test(test_fentry_shares_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

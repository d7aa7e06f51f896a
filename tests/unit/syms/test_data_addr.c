// SPDX-License-Identifier: GPL-2.0
/*
 * data_addr.c: effective addresses of hand-assembled instructions (Intel
 * SDM and Arm ARM encodings) from known registers: the instruction at the
 * IP and the one before it, found by decoding from the function's start;
 * an operand whose base the retired instruction changed is dropped, TLS
 * and bytes capstone rejects are counted, never guessed.
 */
#include "testlib.h"
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
#include "syms/data_addr.h"

#define BASE 0x400000ull
#define X86_RAX 10
#define X86_RDI 14

static uint64_t regs[SS_REGS_WORDS];

static void set_regs(void)
{
	memset(regs, 0, sizeof(regs));
	regs[X86_RDI] = 0x1000;
	regs[X86_RAX] = 0x2000;
}

static void test_store_and_the_atomic_before_it(void **state)
{
	/* lock xadd %rax,(%rdi); mov %eax,0x8(%rdi) */
	static const uint8_t code[] = { 0xf0, 0x48, 0x0f, 0xc1, 0x07, 0x89, 0x47, 0x08 };
	struct data_addr_stats st = { 0 };
	struct data_access a[4];
	size_t n;

	set_regs();
	n = data_addr__decode(DATA_ARCH_X86_64, code, sizeof(code), BASE, true, BASE + 5, regs, a,
			      4, &st);
	assert_int_equal(n, 2);
	assert_int_equal(a[0].addr, 0x1008);
	assert_int_equal(a[0].size, 4);
	assert_true(a[0].store);
	assert_false(a[0].before);
	assert_int_equal(a[1].addr, 0x1000);
	assert_int_equal(a[1].size, 8);
	assert_true(a[1].store);
	assert_true(a[1].before);
	assert_int_equal(a[1].ip, BASE);
	assert_non_null(strstr(a[1].insn, "xadd"));
	/* Without the function's start, the one before is not looked for. */
	n = data_addr__decode(DATA_ARCH_X86_64, code + 5, 3, BASE + 5, false, BASE + 5, regs, a, 4,
			      &st);
	assert_int_equal(n, 1);
	assert_int_equal(st.no_boundary, 1);
}

/* A sample right after a fence (HotSpot's volatile store: the store, then
 * lock addl $0,-0x40(%rsp)) is charged to the store before the fence. */
static void test_store_before_a_fence(void **state)
{
	/* mov %rax,0x10(%rdi); lock addl $0,-0x40(%rsp); mov 0x348(%r15),%r11 */
	static const uint8_t code[] = { 0x48, 0x89, 0x47, 0x10, 0xf0, 0x83, 0x44, 0x24, 0xc0, 0x00,
					0x4d, 0x8b, 0x9f, 0x48, 0x03, 0x00, 0x00 };
	/* the same, but the store's base is loaded after it: dropped */
	static const uint8_t moved[] = { 0x48, 0x89, 0x47, 0x10, 0x48, 0x8b, 0x3f,
					 0x4d, 0x8b, 0x9f, 0x48, 0x03, 0x00, 0x00 };
	struct data_addr_stats st = { 0 };
	struct data_access a[8];
	bool seen = false;
	size_t n;

	set_regs();
	n = data_addr__decode(DATA_ARCH_X86_64, code, sizeof(code), BASE, true, BASE + 10, regs, a,
			      8, &st);
	for (size_t i = 0; i < n; i++)
		seen |= a[i].store && a[i].addr == 0x1010 && a[i].before && a[i].ip == BASE;
	assert_true(seen);
	/* Not a fence: only the one before the IP counts. */
	n = data_addr__decode(DATA_ARCH_X86_64, moved, sizeof(moved), BASE, true, BASE + 7, regs, a,
			      8, &st);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(a[i].ip, BASE);
}

static void test_changed_base_is_dropped(void **state)
{
	/* mov (%rax),%rax; mov (%rdi),%ecx: the load at the IP reads. */
	static const uint8_t code[] = { 0x48, 0x8b, 0x00, 0x8b, 0x0f };
	struct data_addr_stats st = { 0 };
	struct data_access a[4];
	size_t n;

	set_regs();
	n = data_addr__decode(DATA_ARCH_X86_64, code, sizeof(code), BASE, true, BASE + 3, regs, a,
			      4, &st);
	assert_int_equal(n, 1);
	assert_false(a[0].store);
	assert_int_equal(a[0].addr, 0x1000);
	assert_int_equal(st.base_changed, 1);
}

static void test_rip_relative_tls_and_garbage(void **state)
{
	/* mov 0x10(%rip),%eax */
	static const uint8_t rip[] = { 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 };
	/* mov %fs:0x28,%rax */
	static const uint8_t tls[] = { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00 };
	static const uint8_t bad[] = { 0x06 };	/* push %es: invalid in 64-bit mode */
	/* lea 0x8(%rdi),%rax; nopw 0x0(%rax,%rax,1) */
	static const uint8_t none[] = { 0x48, 0x8d, 0x47, 0x08, 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	struct data_addr_stats st = { 0 };
	struct data_access a[4];

	set_regs();
	assert_int_equal(data_addr__decode(DATA_ARCH_X86_64, rip, sizeof(rip), BASE, true, BASE,
					   regs, a, 4, &st), 1);
	assert_int_equal(a[0].addr, BASE + 6 + 0x10);
	assert_int_equal(data_addr__decode(DATA_ARCH_X86_64, tls, sizeof(tls), BASE, true, BASE,
					   regs, a, 4, &st), 0);
	assert_int_equal(st.segment, 1);
	assert_int_equal(data_addr__decode(DATA_ARCH_X86_64, bad, sizeof(bad), BASE, true, BASE,
					   regs, a, 4, &st), 0);
	assert_int_equal(st.undecodable, 1);
	assert_int_equal(data_addr__decode(DATA_ARCH_X86_64, none, sizeof(none), BASE, true,
					   BASE + 4, regs, a, 4, &st), 0);
}

static void test_arm64(void **state)
{
	/* ldr x2, [x0], #8 (post-index); str w1, [x0, #8] */
	static const uint8_t code[] = { 0x02, 0x84, 0x40, 0xf8, 0x01, 0x08, 0x00, 0xb9 };
	/* ldr x3, [x0, x1, lsl #3] */
	static const uint8_t idx[] = { 0x03, 0x78, 0x61, 0xf8 };
	struct data_addr_stats st = { 0 };
	struct data_access a[4];
	size_t n;

	memset(regs, 0, sizeof(regs));
	regs[0] = 0x5000;
	regs[1] = 3;
	n = data_addr__decode(DATA_ARCH_ARM64, code, sizeof(code), BASE, true, BASE + 4, regs, a,
			      4, &st);
	assert_int_equal(n, 1);		/* the post-indexed load moved x0 */
	assert_int_equal(a[0].addr, 0x5008);
	assert_int_equal(a[0].size, 4);
	assert_true(a[0].store);
	assert_int_equal(st.base_changed, 1);
	n = data_addr__decode(DATA_ARCH_ARM64, idx, sizeof(idx), BASE, true, BASE, regs, a, 4, &st);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].addr, 0x5000 + 3 * 8);
	assert_int_equal(a[0].size, 8);
	assert_false(a[0].store);
}

/*
 * ARMv8.1's atomics, which capstone 4 does not decode: by their encoding.
 * ldadd x0, x0, [x1] then ret: sampled at the ldadd, a store of 8 bytes at
 * [x1]; sampled at the ret, the same access as the one before it.
 * casal w3, w2, [x4] stores 4 bytes at [x4]; ldapr x0, [x1] only loads.
 */
static void test_arm64_lse_atomics(void **state)
{
	static const uint8_t ldadd_ret[] = { 0x20, 0x00, 0x20, 0xf8, 0xc0, 0x03, 0x5f, 0xd6 };
	static const uint8_t casal[] = { 0x83, 0xfc, 0xe2, 0x88 };
	static const uint8_t ldapr[] = { 0x20, 0xc0, 0xbf, 0xf8 };
	struct data_addr_stats st = { 0 };
	struct data_access a[4];
	size_t n;

	memset(regs, 0, sizeof(regs));
	regs[1] = 0x7000;
	regs[4] = 0x9004;
	n = data_addr__decode(DATA_ARCH_ARM64, ldadd_ret, sizeof(ldadd_ret), BASE, true, BASE, regs, a,
			      4, &st);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].addr, 0x7000);
	assert_int_equal(a[0].size, 8);
	assert_true(a[0].store);
	assert_false(a[0].before);
	assert_non_null(strstr(a[0].insn, "ldadd"));
	n = data_addr__decode(DATA_ARCH_ARM64, ldadd_ret, sizeof(ldadd_ret), BASE, true, BASE + 4, regs,
			      a, 4, &st);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].addr, 0x7000);
	assert_true(a[0].store && a[0].before);
	assert_int_equal(a[0].ip, BASE);
	n = data_addr__decode(DATA_ARCH_ARM64, casal, sizeof(casal), BASE, true, BASE, regs, a, 4, &st);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].addr, 0x9004);
	assert_int_equal(a[0].size, 4);
	assert_true(a[0].store);
	n = data_addr__decode(DATA_ARCH_ARM64, ldapr, sizeof(ldapr), BASE, true, BASE, regs, a, 4, &st);
	assert_int_equal(n, 1);
	assert_false(a[0].store);
	assert_int_equal(st.undecodable, 0);
}

long fs_global_pair[2];

/* Stores to fs_global_pair[1]: decoded from this process's own code.
 * Not instrumented: under `make asan` the shadow check before the store
 * pushed it past the 24 bytes the test decodes. */
static __attribute__((noinline, no_sanitize_address)) void store_second(long v)
{
	__atomic_store_n(&fs_global_pair[1], v, __ATOMIC_RELAXED);
}

/* This process as the target: a real function is decoded and its global
 * named; the vDSO, anonymous code without a perf map and an unmapped IP
 * are counted and skipped. */
static void test_own_process_and_bad_input(void **state)
{
	struct ss_regs_sample r = { .tid = 1 };
	const struct data_addr_stats *st;
	struct data_access a[8];
	struct data_addr *da;
	char name[160];
	uint8_t *anon;
	size_t n = 0;

	store_second(1);
	anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(anon != MAP_FAILED);
	memset(anon, 0x90, 4096);	/* nops: decodable, but nobody's code */
	da = data_addr__new(getpid(), DATA_ARCH_HOST, NULL, 0);
	assert_non_null(da);
	/* Each instruction of store_second, as if sampled there. */
	for (uint64_t ip = (uint64_t)(uintptr_t)store_second, k = 0; k < 24; k++) {
		r.regs[16] = ip + k;	/* x86 pt_regs: ip */
		n = data_addr__sample(da, &r, a, 8);
		for (size_t i = 0; i < n; i++)
			if (a[i].store && a[i].addr == (uint64_t)(uintptr_t)&fs_global_pair[1])
				goto found;
	}
	fail_msg("no store to fs_global_pair[1] decoded");
found:
	assert_int_equal(data_addr__name(da, a[0].addr, name, sizeof(name)), DATA_GLOBAL);
	/* built with -g: the element, from DWARF */
	assert_non_null(strstr(name, "fs_global_pair[1] ("));
	st = data_addr__stats(da);
	r.regs[16] = getauxval(AT_SYSINFO_EHDR) + 0x100;
	assert_int_equal(data_addr__sample(da, &r, a, 8), 0);
	assert_int_equal(st->vdso, 1);
	r.regs[16] = (uint64_t)(uintptr_t)anon + 16;
	assert_int_equal(data_addr__sample(da, &r, a, 8), 0);
	assert_int_equal(st->jit_no_map, 1);
	r.regs[16] = 0x1000;	/* the zero page: never mapped */
	assert_int_equal(data_addr__sample(da, &r, a, 8), 0);
	assert_int_equal(st->unmapped, 1);
	data_addr__free(da);
	munmap(anon, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_and_the_atomic_before_it),
		cmocka_unit_test(test_changed_base_is_dropped),
		cmocka_unit_test(test_store_before_a_fence),
		cmocka_unit_test(test_rip_relative_tls_and_garbage),
		cmocka_unit_test(test_arm64),
		cmocka_unit_test(test_arm64_lse_atomics),
#if defined(__x86_64__)
		cmocka_unit_test(test_own_process_and_bad_input),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

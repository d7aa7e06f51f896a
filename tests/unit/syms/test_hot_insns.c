// SPDX-License-Identifier: GPL-2.0
/*
 * hot_insns.c: the x86-64 byte patterns of sampled instructions. Hand-
 * assembled encodings (from the Intel SDM opcode tables) are classified at
 * ip and ending just before ip, as a timer sample lands on the instruction
 * about to run or just after the one that stalled; look-alikes (XCHG between
 * registers, LFENCE, SFENCE, a plain add, a LOCK too far back) stay plain.
 * Then the compiler's own code: functions built from __atomic builtins in
 * this file, read back from memory, and through /proc/self/mem.
 */
#include "testlib.h"
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "syms/hot_insns.h"

struct enc {
	const char *what;
	uint8_t bytes[8];
	size_t len;
	enum insn_kind kind;
};

#define ENC(what, kind, ...) { what, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), kind }

static const struct enc encodings[] = {
	ENC("lock addq $1,(%rax)", INSN_ATOMIC_RMW, 0xf0, 0x48, 0x83, 0x00, 0x01),
	ENC("lock xadd %eax,(%rdx)", INSN_ATOMIC_RMW, 0xf0, 0x0f, 0xc1, 0x02),
	ENC("lock cmpxchg %rdx,(%rdi)", INSN_ATOMIC_RMW, 0xf0, 0x48, 0x0f, 0xb1, 0x17),
	ENC("lock incl (%rdi)", INSN_ATOMIC_RMW, 0xf0, 0xff, 0x07),
	ENC("lock btsl $3,(%rax)", INSN_ATOMIC_RMW, 0xf0, 0x0f, 0xba, 0x28, 0x03),
	ENC("lock cmpxchg %cx,(%rdx) (66 before f0)", INSN_ATOMIC_RMW, 0x66, 0xf0, 0x0f, 0xb1, 0x0a),
	ENC("lock orq $1,0x8(%rsp) (SIB, disp8)", INSN_ATOMIC_RMW, 0xf0, 0x48, 0x83, 0x4c, 0x24,
	    0x08, 0x01),
	ENC("mfence", INSN_FENCE, 0x0f, 0xae, 0xf0),
	ENC("xchg %rax,(%rdi)", INSN_FENCE, 0x48, 0x87, 0x07),
	ENC("xchg %eax,(%rdi)", INSN_FENCE, 0x87, 0x07),
	ENC("xchg %al,(%rsi)", INSN_FENCE, 0x86, 0x06),
	ENC("xchg %eax,0x10(%rbp) (disp8)", INSN_FENCE, 0x87, 0x45, 0x10),
	ENC("xchg %eax,0x4(%rsp) (SIB, disp8)", INSN_FENCE, 0x87, 0x44, 0x24, 0x04),
	ENC("xchg %eax,0x100(%rip)", INSN_FENCE, 0x87, 0x05, 0x00, 0x01, 0x00, 0x00),
	ENC("xchg %eax,%eax (registers: no fence)", INSN_PLAIN, 0x87, 0xc0),
	ENC("xchg %rbx,%rcx (registers: no fence)", INSN_PLAIN, 0x48, 0x87, 0xd9),
	ENC("addq $1,(%rax) (no lock)", INSN_PLAIN, 0x48, 0x83, 0x00, 0x01),
	ENC("lfence", INSN_PLAIN, 0x0f, 0xae, 0xe8),
	ENC("sfence", INSN_PLAIN, 0x0f, 0xae, 0xf8),
	ENC("mov (%rdi),%rax", INSN_PLAIN, 0x48, 0x8b, 0x07),
	ENC("lock nop (LOCK on an opcode it does not go with)", INSN_PLAIN, 0xf0, 0x90),
	ENC("pause", INSN_PLAIN, 0xf3, 0x90),
};

#define NOP 0x90
#define PAD 12		/* more than the classifier looks back or ahead */

/* enc between nops, ip at its first byte or at the byte after its last. */
static enum insn_kind classify_placed(const struct enc *e, bool ends_at_ip)
{
	uint8_t code[PAD + 8 + PAD];

	memset(code, NOP, sizeof(code));
	memcpy(code + PAD, e->bytes, e->len);
	return insn__classify(code, sizeof(code), PAD + (ends_at_ip ? e->len : 0));
}

static const char *kind_name(enum insn_kind k)
{
	static const char *const names[] = { "unknown", "plain", "atomic-rmw", "fence" };

	return k <= INSN_FENCE ? names[k] : "?";
}

static void check_encodings(bool ends_at_ip)
{
	for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
		enum insn_kind k = classify_placed(&encodings[i], ends_at_ip);

		if (k != encodings[i].kind)
			fail_msg("%s %s: %s, want %s", encodings[i].what,
				 ends_at_ip ? "ending at ip" : "at ip", kind_name(k),
				 kind_name(encodings[i].kind));
	}
}

static void test_each_encoding_at_ip(void **state)
{
	check_encodings(false);
}

/* The instruction that stalled, with ip on the (plain) one after it. */
static void test_each_encoding_ending_at_ip(void **state)
{
	check_encodings(true);
}

/* The code window may end at ip (nothing readable after it). */
static void test_window_ending_at_ip(void **state)
{
	static const uint8_t lock_add[] = { NOP, NOP, 0xf0, 0x48, 0x83, 0x00, 0x01 };
	static const uint8_t mfence[] = { NOP, NOP, 0x0f, 0xae, 0xf0 };
	static const uint8_t xchg[] = { NOP, NOP, 0x48, 0x87, 0x07 };
	static const uint8_t plain[] = { NOP, NOP, 0x48, 0x83, 0x00, 0x01 };

	assert_int_equal(insn__classify(lock_add, sizeof(lock_add), sizeof(lock_add)),
			 INSN_ATOMIC_RMW);
	assert_int_equal(insn__classify(mfence, sizeof(mfence), sizeof(mfence)), INSN_FENCE);
	assert_int_equal(insn__classify(xchg, sizeof(xchg), sizeof(xchg)), INSN_FENCE);
	assert_int_not_equal(insn__classify(plain, sizeof(plain), sizeof(plain)), INSN_ATOMIC_RMW);
	assert_int_not_equal(insn__classify(plain, sizeof(plain), sizeof(plain)), INSN_FENCE);
}

/* What ends further back than the sample's skid: a LOCK'd instruction
 * more than 8 bytes before ip, or an MFENCE or XCHG with an instruction
 * between it and ip. */
static void test_lock_further_back_is_plain(void **state)
{
	/* lock addq $1,(%rax); mov (%rdi),%rax; ip */
	static const uint8_t code[] = { 0xf0, 0x48, 0x83, 0x00, 0x01, 0x48, 0x8b, 0x07,
					0x48, 0x8b, 0x07, NOP, NOP, NOP };
	/* mfence; mov (%rdi),%rax; ip */
	static const uint8_t fence[] = { 0x0f, 0xae, 0xf0, 0x48, 0x8b, 0x07, 0x48, 0x8b, 0x07,
					 NOP, NOP, NOP, NOP, NOP };
	/* xchg %rax,(%rdi); mov (%rdi),%rax; ip */
	static const uint8_t xchg[] = { 0x48, 0x87, 0x07, 0x48, 0x8b, 0x07, NOP, NOP };

	assert_int_equal(insn__classify(code, sizeof(code), 11), INSN_PLAIN);
	assert_int_equal(insn__classify(fence, sizeof(fence), 9), INSN_PLAIN);
	assert_int_equal(insn__classify(xchg, sizeof(xchg), 6), INSN_PLAIN);
}

static void test_bad_windows_are_unknown(void **state)
{
	static const uint8_t code[] = { 0xf0, 0x48, 0x83, 0x00, 0x01 };

	/* ip beyond the bytes given */
	assert_int_equal(insn__classify(code, sizeof(code), sizeof(code) + 1), INSN_UNKNOWN);
	/* prefixes cut off by the window: nothing to decode, nothing before */
	assert_int_equal(insn__classify(code, 2, 0), INSN_UNKNOWN);
	assert_int_equal(insn__classify(code, 0, 0), INSN_UNKNOWN);
	/* unreadable targets */
	assert_int_equal(insn__classify_at(0x7fffffff, 0x401000), INSN_UNKNOWN);
	assert_int_equal(insn__classify_at(getpid(), 4), INSN_UNKNOWN);
}

/* ---- the compiler's code, read back ------------------------------------ */

/*
 * Each function alone in its section, so [__start_x, __stop_x) is exactly
 * its code. The counter is a parameter: the result must be computed. No
 * sanitizer code in them (make asan): its calls' random rel32 bytes could
 * look like anything.
 */
#define IN_SECTION(s) __attribute__((noinline, noclone, used, section(s), \
					no_sanitize("address", "undefined")))

extern const uint8_t __start_hi_atomic[], __stop_hi_atomic[];
extern const uint8_t __start_hi_plain[], __stop_hi_plain[];
extern const uint8_t __start_hi_seq_cst[], __stop_hi_seq_cst[];

IN_SECTION("hi_atomic") static void hi_fetch_add(long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

IN_SECTION("hi_plain") static void hi_plain_add(long *counter)
{
	*(volatile long *)counter += 1;
}

IN_SECTION("hi_seq_cst") static void hi_store_seq_cst(long *flag, long v)
{
	__atomic_store_n(flag, v, __ATOMIC_SEQ_CST);
}

struct seen {
	int atomic, fence, plain, unknown;
	size_t first_atomic, first_fence;
};

/* Classifies every byte offset of [start, stop) as ip, from a copy padded
 * with nops so that neighbouring code cannot count. */
static struct seen classify_function(const uint8_t *start, const uint8_t *stop)
{
	size_t n = (size_t)(stop - start);
	uint8_t code[PAD + 512 + PAD];
	struct seen s = { 0 };

	assert_true(n > 0 && n <= 512);
	memset(code, NOP, sizeof(code));
	memcpy(code + PAD, start, n);
	for (size_t off = 0; off < n; off++) {
		switch (insn__classify(code, PAD + n + PAD, PAD + off)) {
		case INSN_ATOMIC_RMW:
			if (!s.atomic++)
				s.first_atomic = off;
			break;
		case INSN_FENCE:
			if (!s.fence++)
				s.first_fence = off;
			break;
		case INSN_PLAIN:
			s.plain++;
			break;
		default:
			s.unknown++;
		}
	}
	return s;
}

static void test_own_code(void **state)
{
	long counter = 0;
	struct seen a, p, f;

	/* They work as written (and are not dead code). */
	hi_fetch_add(&counter);
	hi_plain_add(&counter);
	hi_store_seq_cst(&counter, counter + 1);
	assert_int_equal(counter, 3);

	a = classify_function(__start_hi_atomic, __stop_hi_atomic);
	p = classify_function(__start_hi_plain, __stop_hi_plain);
	f = classify_function(__start_hi_seq_cst, __stop_hi_seq_cst);
	print_message("# fetch_add: %d atomic offsets of %zu bytes; plain add: %d plain of %zu; "
		      "seq_cst store: %d fence offsets of %zu\n", a.atomic,
		      (size_t)(__stop_hi_atomic - __start_hi_atomic), p.plain,
		      (size_t)(__stop_hi_plain - __start_hi_plain), f.fence,
		      (size_t)(__stop_hi_seq_cst - __start_hi_seq_cst));
#if defined(__x86_64__)
	/* A LOCK'd add or xadd: its first byte is LOCK (or a prefix before). */
	assert_true(a.atomic >= 1);
	assert_int_equal(a.fence, 0);
	assert_true(__start_hi_atomic[a.first_atomic] == 0xf0 ||
		    __start_hi_atomic[a.first_atomic + 1] == 0xf0);
	/* A plain read-modify-write: nothing shared or fenced. */
	assert_int_equal(p.atomic, 0);
	assert_int_equal(p.fence, 0);
	/* gcc stores seq_cst with XCHG (or MOV + MFENCE): a full fence. */
	assert_true(f.fence >= 1);
	assert_int_equal(f.atomic, 0);

	/* The same bytes read through /proc/PID/mem, as from a target. */
	assert_int_equal(insn__classify_at(getpid(), (uint64_t)(uintptr_t)
					   (__start_hi_atomic + a.first_atomic)),
			 INSN_ATOMIC_RMW);
	assert_int_equal(insn__classify_at(getpid(), (uint64_t)(uintptr_t)
					   (__start_hi_seq_cst + f.first_fence)),
			 INSN_FENCE);
#else
	/* Elsewhere nothing is classified from real code. */
	assert_int_equal(insn__classify_at(getpid(), (uint64_t)(uintptr_t)__start_hi_atomic),
			 INSN_UNKNOWN);
#endif
}

/* Spin loops: a hint with a backward branch after it that lands on or
 * before the hint. */
static void test_spin_hint_in_a_loop(void **state)
{
	/* 1: pause; mov eax,[rdi]; test eax,eax; jne 1b */
	static const uint8_t x86_loop[] = { 0x90, 0x90, 0xf3, 0x90, 0x8b, 0x07, 0x85, 0xc0,
					    0x75, 0xf8, 0xc3, 0x90 };
	/* pause; ret: a hint, but no loop */
	static const uint8_t x86_once[] = { 0x90, 0x90, 0xf3, 0x90, 0xc3, 0x90, 0x90, 0x90 };
	/* a loop without a hint: 1: mov eax,[rdi]; test; jne 1b */
	static const uint8_t x86_plain[] = { 0x8b, 0x07, 0x85, 0xc0, 0x75, 0xfa, 0xc3, 0x90 };
	/* 1: isb; ldr w1,[x0]; cbnz w1, 1b */
	static const uint8_t arm_loop[] = { 0xdf, 0x3f, 0x03, 0xd5, 0x01, 0x00, 0x40, 0xb9,
					    0xc1, 0xff, 0xff, 0x35, 0xc0, 0x03, 0x5f, 0xd6 };

	assert_string_equal(insn__spin_hint(x86_loop, sizeof(x86_loop), 6, false), "pause");
	assert_null(insn__spin_hint(x86_once, sizeof(x86_once), 4, false));
	assert_null(insn__spin_hint(x86_plain, sizeof(x86_plain), 2, false));
	assert_string_equal(insn__spin_hint(arm_loop, sizeof(arm_loop), 8, true), "isb");
	assert_null(insn__spin_hint(arm_loop, 8, 4, true));	/* the branch cut off */
}

/* The direct call before a return address, as objdump shows
 * tests/workloads/lang/tail_unlock's "1410: call 1330 <acc_long_section>"
 * (e8 1b ff ff ff, returning to 0x1415) and an AArch64 bl. */
static void test_call_targets(void **state)
{
	static const uint8_t x86[] = { 0x90, 0x90, 0x90, 0xe8, 0x1b, 0xff, 0xff, 0xff };
	static const uint8_t x86_indirect[] = { 0x90, 0x90, 0xff, 0x15, 0x10, 0x00, 0x00, 0x00 };
	/* bl -0x100 at 0x2000 (imm26 = -64), then bl +0x40 */
	static const uint8_t bl_back[] = { 0xc0, 0xff, 0xff, 0x97 };
	static const uint8_t bl_fwd[] = { 0x10, 0x00, 0x00, 0x94 };
	static const uint8_t not_bl[] = { 0x1f, 0x20, 0x03, 0xd5 };	/* nop */
	uint64_t t = 0;

	assert_true(insn__call_target(x86, sizeof(x86), 0x1415, false, &t));
	assert_int_equal(t, 0x1330);
	assert_false(insn__call_target(x86_indirect, sizeof(x86_indirect), 0x1415, false, &t));
	assert_false(insn__call_target(x86, 4, 0x1415, false, &t));
	assert_true(insn__call_target(bl_back, sizeof(bl_back), 0x2004, true, &t));
	assert_int_equal(t, 0x2000 - 0x100);
	assert_true(insn__call_target(bl_fwd, sizeof(bl_fwd), 0x2004, true, &t));
	assert_int_equal(t, 0x2000 + 0x40);
	assert_false(insn__call_target(not_bl, sizeof(not_bl), 0x2004, true, &t));
	assert_false(insn__call_target(bl_fwd, sizeof(bl_fwd), 2, true, &t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin_hint_in_a_loop),
		cmocka_unit_test(test_each_encoding_at_ip),
		cmocka_unit_test(test_each_encoding_ending_at_ip),
		cmocka_unit_test(test_window_ending_at_ip),
		cmocka_unit_test(test_lock_further_back_is_plain),
		cmocka_unit_test(test_bad_windows_are_unknown),
		cmocka_unit_test(test_own_code),
		cmocka_unit_test(test_call_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

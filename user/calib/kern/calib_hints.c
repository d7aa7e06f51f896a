// SPDX-License-Identifier: GPL-2.0
/*
 * Spin-wait hints: detection from cpuid / AT_HWCAP / cpuinfo, and their
 * execution (see calib_hints.h). The instructions of the other
 * architecture are not compiled in, and those of this one run only after
 * detection found them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif
#include "calib_hints.h"

#if defined(__aarch64__) && defined(HWCAP_SB)
_Static_assert(HWCAP_SB == CALIB_ARM64_HWCAP_SB, "HWCAP_SB moved in the uapi");
#endif

/* How long TPAUSE, UMWAIT and MWAITX may wait, in TSC ticks: short, as a
 * spin loop's hint is (a few hundred ns at most on any current part). */
#define CALIB_WAIT_TICKS 256

struct hint_desc {
	const char *name;
	enum calib_arch arch;
	const char *requires;
	const char *absent;	/* why it is missing when detection says so */
};

static const struct hint_desc hints[CALIB_HINT__COUNT] = {
	[CALIB_HINT_NONE]	= { "none", 0, "nothing", "" },
	[CALIB_HINT_PAUSE]	= { "pause", CALIB_ARCH_X86_64, "x86-64", "not an x86-64 CPU" },
	[CALIB_HINT_NOP_X86]	= { "nop", CALIB_ARCH_X86_64, "x86-64", "not an x86-64 CPU" },
	[CALIB_HINT_TPAUSE]	= { "tpause", CALIB_ARCH_X86_64, "cpuid WAITPKG",
				    "no WAITPKG in cpuid (leaf 7 ecx bit 5)" },
	[CALIB_HINT_UMWAIT]	= { "umwait", CALIB_ARCH_X86_64, "cpuid WAITPKG",
				    "no WAITPKG in cpuid (leaf 7 ecx bit 5)" },
	[CALIB_HINT_MWAITX]	= { "mwaitx", CALIB_ARCH_X86_64, "cpuid MONITORX (AMD)",
				    "no MONITORX in cpuid (leaf 0x80000001 ecx bit 29)" },
	[CALIB_HINT_ISB]	= { "isb", CALIB_ARCH_ARM64, "AArch64", "not an AArch64 CPU" },
	[CALIB_HINT_SB]		= { "sb", CALIB_ARCH_ARM64, "HWCAP_SB (FEAT_SB)",
				    "no HWCAP_SB in AT_HWCAP" },
	[CALIB_HINT_YIELD]	= { "yield", CALIB_ARCH_ARM64, "AArch64", "not an AArch64 CPU" },
	[CALIB_HINT_NOP_ARM64]	= { "nop", CALIB_ARCH_ARM64, "AArch64", "not an AArch64 CPU" },
	[CALIB_HINT_WFE]	= { "wfe", CALIB_ARCH_ARM64, "AArch64", "not an AArch64 CPU" },
};

const char *calib_hints__name(enum calib_hint h)
{
	return h < CALIB_HINT__COUNT ? hints[h].name : "?";
}

enum calib_arch calib_hints__arch(enum calib_hint h)
{
	return hints[h].arch;
}

const char *calib_hints__requires(enum calib_hint h)
{
	return hints[h].requires;
}

const char *calib_hints__why_absent(enum calib_hint h)
{
	return hints[h].absent;
}

int calib_hints__by_name(const char *name)
{
#if defined(__aarch64__)
	enum calib_arch here = CALIB_ARCH_ARM64;
#else
	enum calib_arch here = CALIB_ARCH_X86_64;
#endif
	/* "nop" exists on both: prefer this architecture's. */
	for (int h = 0; h < CALIB_HINT__COUNT; h++)
		if (!strcmp(hints[h].name, name) &&
		    (h == CALIB_HINT_NONE || hints[h].arch == here))
			return h;
	for (int h = 0; h < CALIB_HINT__COUNT; h++)
		if (!strcmp(hints[h].name, name))
			return h;
	return -1;
}

#define X86_BASE (CALIB_HINT_BIT(CALIB_HINT_NONE) | CALIB_HINT_BIT(CALIB_HINT_PAUSE) | \
		  CALIB_HINT_BIT(CALIB_HINT_NOP_X86))
#define ARM64_BASE (CALIB_HINT_BIT(CALIB_HINT_NONE) | CALIB_HINT_BIT(CALIB_HINT_ISB) | \
		    CALIB_HINT_BIT(CALIB_HINT_YIELD) | CALIB_HINT_BIT(CALIB_HINT_NOP_ARM64) | \
		    CALIB_HINT_BIT(CALIB_HINT_WFE))
#define WAITPKG_HINTS (CALIB_HINT_BIT(CALIB_HINT_TPAUSE) | CALIB_HINT_BIT(CALIB_HINT_UMWAIT))

uint32_t calib_hints__from_cpuid(const struct calib_cpuid *id)
{
	uint32_t mask = X86_BASE;

	if (id->max_leaf >= 7 && (id->leaf7_ecx & CALIB_CPUID7_ECX_WAITPKG))
		mask |= WAITPKG_HINTS;
	/* MONITORX is AMD's; the bit is reserved elsewhere, and Hygon
	 * inherits AMD's leaves. */
	if ((!strcmp(id->vendor, "AuthenticAMD") || !strcmp(id->vendor, "HygonGenuine")) &&
	    id->max_ext_leaf >= 0x80000001u && (id->ext1_ecx & CALIB_CPUID81_ECX_MONITORX))
		mask |= CALIB_HINT_BIT(CALIB_HINT_MWAITX);
	return mask;
}

uint32_t calib_hints__from_hwcap(unsigned long hwcap)
{
	uint32_t mask = ARM64_BASE;

	if (hwcap & CALIB_ARM64_HWCAP_SB)
		mask |= CALIB_HINT_BIT(CALIB_HINT_SB);
	return mask;
}

/* True when the whitespace-separated list in [p, end) holds word. */
static bool list_has(const char *p, const char *end, const char *word)
{
	size_t wl = strlen(word);

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		const char *q = p;
		while (q < end && *q != ' ' && *q != '\t')
			q++;
		if ((size_t)(q - p) == wl && !memcmp(p, word, wl))
			return true;
		p = q;
	}
	return false;
}

uint32_t calib_hints__from_cpuinfo(const char *text, enum calib_arch arch)
{
	const char *key = arch == CALIB_ARCH_ARM64 ? "Features" : "flags";
	uint32_t mask = arch == CALIB_ARCH_ARM64 ? ARM64_BASE : X86_BASE;
	size_t kl = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		const char *colon;

		if (!end)
			end = line + strlen(line);
		colon = memchr(line, ':', (size_t)(end - line));
		if (!strncmp(line, key, kl) && colon &&
		    strspn(line + kl, " \t") == (size_t)(colon - line - (long)kl)) {
			/* The first CPU's line speaks for all (they agree). */
			if (arch == CALIB_ARCH_ARM64) {
				if (list_has(colon + 1, end, "sb"))
					mask |= CALIB_HINT_BIT(CALIB_HINT_SB);
			} else {
				if (list_has(colon + 1, end, "waitpkg"))
					mask |= WAITPKG_HINTS;
				if (list_has(colon + 1, end, "mwaitx"))
					mask |= CALIB_HINT_BIT(CALIB_HINT_MWAITX);
			}
			return mask;
		}
		line = *end ? end + 1 : end;
	}
	return mask;
}

void calib_hints__read_cpuid(struct calib_cpuid *id)
{
	memset(id, 0, sizeof(*id));
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	id->max_leaf = a;
	memcpy(id->vendor, &b, 4);
	memcpy(id->vendor + 4, &d, 4);
	memcpy(id->vendor + 8, &c, 4);
	if (id->max_leaf >= 1) {
		__cpuid(1, a, b, c, d);
		id->leaf1_ecx = c;
	}
	if (id->max_leaf >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		id->leaf7_ecx = c;
	}
	__cpuid(0x80000000u, a, b, c, d);
	id->max_ext_leaf = a;
	if (id->max_ext_leaf >= 0x80000001u) {
		__cpuid(0x80000001u, a, b, c, d);
		id->ext1_ecx = c;
	}
#endif
}

unsigned long calib_hints__read_hwcap(void)
{
#if defined(__aarch64__)
	return getauxval(AT_HWCAP);
#else
	return 0;
#endif
}

uint32_t calib_hints__available(void)
{
	static uint32_t cached;
	uint32_t mask = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (mask)
		return mask;
#if defined(__x86_64__)
	struct calib_cpuid id;

	calib_hints__read_cpuid(&id);
	mask = calib_hints__from_cpuid(&id);
#elif defined(__aarch64__)
	mask = calib_hints__from_hwcap(calib_hints__read_hwcap());
#else
	mask = CALIB_HINT_BIT(CALIB_HINT_NONE);
#endif
	__atomic_store_n(&cached, mask, __ATOMIC_RELAXED);
	return mask;
}

#if defined(__x86_64__)
static inline void tsc_deadline(uint32_t *lo, uint32_t *hi)
{
	uint64_t t = __rdtsc() + CALIB_WAIT_TICKS;

	*lo = (uint32_t)t;
	*hi = (uint32_t)(t >> 32);
}
#endif

void calib_hints__spin_once(enum calib_hint h, const void *addr)
{
	switch (h) {
#if defined(__x86_64__)
	case CALIB_HINT_PAUSE:
		__asm__ volatile("pause" ::: "memory");
		break;
	case CALIB_HINT_NOP_X86:
		__asm__ volatile("nop" ::: "memory");
		break;
	case CALIB_HINT_TPAUSE: {
		uint32_t lo, hi;

		tsc_deadline(&lo, &hi);
		/* ecx bit 0 = 1: the lighter C0.1 state, quicker to wake. */
		__asm__ volatile("tpause %%ecx" :: "c"(1), "a"(lo), "d"(hi) : "cc", "memory");
		break;
	}
	case CALIB_HINT_UMWAIT: {
		uint32_t lo, hi;

		__asm__ volatile("umonitor %%rax" :: "a"(addr) : "memory");
		tsc_deadline(&lo, &hi);
		__asm__ volatile("umwait %%ecx" :: "c"(1), "a"(lo), "d"(hi) : "cc", "memory");
		break;
	}
	case CALIB_HINT_MWAITX:
		__asm__ volatile("monitorx %%rax, %%ecx, %%edx" :: "a"(addr), "c"(0), "d"(0) : "memory");
		/* ecx bit 1 enables the timer in ebx; eax 0xf0: no C-state. */
		__asm__ volatile("mwaitx %%eax, %%ecx, %%ebx"
				 :: "a"(0xf0), "c"(2), "b"(CALIB_WAIT_TICKS) : "memory");
		break;
#elif defined(__aarch64__)
	case CALIB_HINT_ISB:
		__asm__ volatile("isb" ::: "memory");
		break;
	case CALIB_HINT_SB:
		/* SB by its encoding: the assembler needs +sb for the name. */
		__asm__ volatile(".inst 0xd50330ff" ::: "memory");
		break;
	case CALIB_HINT_YIELD:
		__asm__ volatile("yield" ::: "memory");
		break;
	case CALIB_HINT_NOP_ARM64:
		__asm__ volatile("nop" ::: "memory");
		break;
	case CALIB_HINT_WFE: {
		uint64_t tmp;

		/* Arm the exclusive monitor on the watched word so a store to
		 * it (or the kernel's event stream) ends the wait, the way
		 * smp_cond_load_relaxed() waits. */
		__asm__ volatile("ldxr %0, [%1]\n\twfe" : "=&r"(tmp) : "r"(addr) : "memory");
		break;
	}
#endif
	default:
		__asm__ volatile("" ::: "memory");
		break;
	}
}

int calib_hints__exec(enum calib_hint h, uint64_t n)
{
	static uint64_t word __attribute__((aligned(64)));

	if (h >= CALIB_HINT__COUNT || !(calib_hints__available() & CALIB_HINT_BIT(h)))
		return -ENOTSUP;
	/* One switch outside the loop per hint keeps the loop to the
	 * instruction plus a counter, the shape a spin loop has. */
	switch (h) {
#define LOOP(stmt) for (uint64_t i = 0; i < n; i++) { stmt; } break
#if defined(__x86_64__)
	case CALIB_HINT_PAUSE: LOOP(__asm__ volatile("pause" ::: "memory"));
	case CALIB_HINT_NOP_X86: LOOP(__asm__ volatile("nop" ::: "memory"));
#elif defined(__aarch64__)
	case CALIB_HINT_ISB: LOOP(__asm__ volatile("isb" ::: "memory"));
	case CALIB_HINT_SB: LOOP(__asm__ volatile(".inst 0xd50330ff" ::: "memory"));
	case CALIB_HINT_YIELD: LOOP(__asm__ volatile("yield" ::: "memory"));
	case CALIB_HINT_NOP_ARM64: LOOP(__asm__ volatile("nop" ::: "memory"));
#endif
	case CALIB_HINT_NONE: LOOP(__asm__ volatile("" ::: "memory"));
	default: LOOP(calib_hints__spin_once(h, &word));
#undef LOOP
	}
	return 0;
}

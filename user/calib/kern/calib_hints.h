/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spin-wait hint instructions of x86-64 and AArch64: which ones this CPU
 * offers, and executing them. Detection is a pure function of the CPU's
 * own answers (cpuid registers, the AT_HWCAP word, /proc/cpuinfo text) so
 * tests feed it fake inputs; calib_hints__exec() refuses any hint that
 * detection did not find, so an instruction the CPU lacks never runs.
 */
#ifndef SPINSCOPE_CALIB_HINTS_H
#define SPINSCOPE_CALIB_HINTS_H

#include <stdbool.h>
#include <stdint.h>

enum calib_hint {
	CALIB_HINT_NONE,	/* no instruction: the baseline spin */
	/* x86-64 */
	CALIB_HINT_PAUSE,
	CALIB_HINT_NOP_X86,
	CALIB_HINT_TPAUSE,	/* WAITPKG */
	CALIB_HINT_UMWAIT,	/* WAITPKG: UMONITOR + UMWAIT */
	CALIB_HINT_MWAITX,	/* AMD MONITORX: MONITORX + MWAITX with timer */
	/* AArch64 */
	CALIB_HINT_ISB,
	CALIB_HINT_SB,		/* FEAT_SB, HWCAP_SB */
	CALIB_HINT_YIELD,
	CALIB_HINT_NOP_ARM64,
	CALIB_HINT_WFE,
	CALIB_HINT__COUNT
};

#define CALIB_HINT_BIT(h)	(1u << (h))

enum calib_arch { CALIB_ARCH_X86_64, CALIB_ARCH_ARM64 };

/* Name ("pause", "sb", ...), architecture, and what is needed for it. */
const char *calib_hints__name(enum calib_hint h);
enum calib_arch calib_hints__arch(enum calib_hint h);
const char *calib_hints__requires(enum calib_hint h);
/* Looks a hint up by name; returns -1 when unknown. */
int calib_hints__by_name(const char *name);

/* The cpuid answers detection needs (leaf numbers in the field names). */
struct calib_cpuid {
	char vendor[13];	/* leaf 0: "GenuineIntel", "AuthenticAMD" */
	uint32_t max_leaf;	/* leaf 0 eax */
	uint32_t leaf7_ecx;	/* leaf 7 subleaf 0 ecx: bit 5 WAITPKG */
	uint32_t max_ext_leaf;	/* leaf 0x80000000 eax */
	uint32_t ext1_ecx;	/* leaf 0x80000001 ecx: bit 29 MONITORX */
	uint32_t leaf1_ecx;	/* leaf 1 ecx: bit 31 hypervisor present */
};

#define CALIB_CPUID7_ECX_WAITPKG	(1u << 5)
#define CALIB_CPUID81_ECX_MONITORX	(1u << 29)
#define CALIB_CPUID1_ECX_HYPERVISOR	(1u << 31)
/* AT_HWCAP bit of FEAT_SB in the arm64 uapi (asm/hwcap.h: HWCAP_SB). */
#define CALIB_ARM64_HWCAP_SB		(1ul << 29)

/* Bitmask (CALIB_HINT_BIT) of the hints each input shows. Leaves beyond
 * the reported maximum are ignored, as the CPU leaves them undefined. */
uint32_t calib_hints__from_cpuid(const struct calib_cpuid *id);
uint32_t calib_hints__from_hwcap(unsigned long hwcap);
/* From /proc/cpuinfo text: x86 "flags" (waitpkg, monitorx) or arm64
 * "Features" (sb); for the fingerprint and for hosts where the driver
 * reads a saved cpuinfo. arch selects which line is read. */
uint32_t calib_hints__from_cpuinfo(const char *text, enum calib_arch arch);
/* Why a hint is absent here, in words ("no WAITPKG in cpuid"). */
const char *calib_hints__why_absent(enum calib_hint h);

/* This CPU's hints (cached after the first call): cpuid on x86-64,
 * getauxval(AT_HWCAP) on AArch64. CALIB_HINT_NONE is always present. */
uint32_t calib_hints__available(void);
/* The raw inputs behind calib_hints__available(), for reports. */
void calib_hints__read_cpuid(struct calib_cpuid *id);	/* zeros off x86 */
unsigned long calib_hints__read_hwcap(void);		/* 0 off AArch64 */

/* Executes hint h n times. Returns 0, or -ENOTSUP (nothing executed) when
 * h is not in calib_hints__available(). */
int calib_hints__exec(enum calib_hint h, uint64_t n);
/* One hint as a spin loop uses it while waiting on *addr (UMWAIT and
 * MWAITX arm their monitor on addr). Caller checked availability. */
void calib_hints__spin_once(enum calib_hint h, const void *addr);

#endif

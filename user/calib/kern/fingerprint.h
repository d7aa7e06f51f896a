/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host fingerprint that travels with calibration results: what CPU,
 * how many of it, which kernel, under which hypervisor and mitigations,
 * and how busy the host was. Read from /proc and /sys under a root prefix
 * so tests feed fake trees; plain structs, no json-c (calib_store.c holds
 * the JSON form), so the AArch64 driver prints it too.
 */
#ifndef SPINSCOPE_FINGERPRINT_H
#define SPINSCOPE_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_MAX_CACHES	8
#define FP_MAX_VULNS	32

struct fp_cache {
	int level;		/* 1, 2, 3 */
	char type[16];		/* "Data", "Instruction", "Unified" */
	uint32_t size_kb;
	uint32_t line;		/* coherency_line_size, bytes */
};

struct fp_vuln {
	char name[48];		/* "spectre_v2" */
	char status[160];	/* "Mitigation: Retpolines; ..." */
};

struct ss_fingerprint {
	char arch[16];		/* "x86_64", "aarch64" */
	char vendor[64];	/* "GenuineIntel", "ARM" */
	char model_name[128];
	int family, model, stepping;	/* arm64: architecture, part, variant<<4|revision */
	char microcode[32];	/* "0xf0"; "" where the kernel does not say */
	int cores;		/* distinct (package, core) pairs */
	int threads;		/* online CPUs */
	int nodes;		/* online NUMA nodes */
	int cache_line;		/* bytes, cpu0 index0 coherency_line_size; 0 unknown */
	struct fp_cache caches[FP_MAX_CACHES];
	int ncaches;
	char kernel[128];	/* release */
	bool hypervisor;
	char hypervisor_name[64];	/* "KVMKVMKVM", "xen", or "" */
	struct fp_vuln vulns[FP_MAX_VULNS];
	int nvulns;
	char governor[32];	/* cpufreq scaling_governor, "none" without cpufreq */
	double load1;
	double steal_frac;	/* steal / all CPU time since boot */
};

/* Reads the fingerprint from root ("" or NULL for the live host; else a
 * fake tree with proc/ and sys/). The live host also consults cpuid for
 * the hypervisor bit and name. Returns 0, or -errno when /proc/cpuinfo is
 * unreadable (other files missing leave their fields empty). */
int fingerprint__read(const char *root, struct ss_fingerprint *fp);

/* Pure parts of the reading, for tests. */
void fingerprint__parse_cpuinfo(const char *text, struct ss_fingerprint *fp);
/* "32K" -> 32, "8M" -> 8192, "512" (bytes) -> 0 rounded; -1 malformed. */
long fingerprint__parse_size_kb(const char *text);

/* Whether results measured on saved apply here: same CPU model, microcode,
 * cores, threads, nodes and kernel. Returns true on a match; otherwise
 * false and why says which field differs, with both values. */
bool fingerprint__match(const struct ss_fingerprint *saved,
			const struct ss_fingerprint *here, char *why, size_t len);

#endif

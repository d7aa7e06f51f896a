// SPDX-License-Identifier: GPL-2.0
/*
 * Reads the host fingerprint from /proc and /sys (under a root prefix) and
 * decides whether saved calibration results apply to this host.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include "common/sort.h"
#include "calib_hints.h"
#include "calib_util.h"
#include "fingerprint.h"

/* Arm's implementer codes (MIDR_EL1 bits 31:24) for the vendors a server
 * is likely to have; others print as the code. */
static const struct { unsigned code; const char *name; } arm_implementers[] = {
	{ 0x41, "ARM" }, { 0x42, "Broadcom" }, { 0x43, "Cavium" }, { 0x46, "Fujitsu" },
	{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" }, { 0x50, "APM" }, { 0x51, "Qualcomm" },
	{ 0x61, "Apple" }, { 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

/* Value of "key<tabs>: value" if line is that key's line, else NULL. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t kl = strlen(key);

	if (strncmp(line, key, kl))
		return NULL;
	line += kl;
	line += strspn(line, " \t");
	if (*line != ':')
		return NULL;
	line++;
	return line + strspn(line, " \t");
}

static void copy_value(char *dst, size_t len, const char *v)
{
	size_t n = strcspn(v, "\n");

	if (n >= len)
		n = len - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

/* True when the space-separated list v (to the end of its line) holds w. */
static bool has_word(const char *v, const char *w)
{
	size_t wl = strlen(w), n;

	while (*v && *v != '\n') {
		v += strspn(v, " \t");
		n = strcspn(v, " \t\n");
		if (n == wl && !strncmp(v, w, wl))
			return true;
		v += n;
	}
	return false;
}

void fingerprint__parse_cpuinfo(const char *text, struct ss_fingerprint *fp)
{
	int implementer = -1, variant = 0, revision = 0, part = -1, arch = 0;
	const char *line = text, *v;

	/* The first processor block speaks for all: stop at the blank line. */
	while (line && *line && *line != '\n') {
		if ((v = cpuinfo_value(line, "vendor_id")))
			copy_value(fp->vendor, sizeof(fp->vendor), v);
		else if ((v = cpuinfo_value(line, "model name")))
			copy_value(fp->model_name, sizeof(fp->model_name), v);
		else if ((v = cpuinfo_value(line, "cpu family")))
			fp->family = (int)strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "model")))
			fp->model = (int)strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "stepping")))
			fp->stepping = (int)strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "microcode")))
			copy_value(fp->microcode, sizeof(fp->microcode), v);
		else if ((v = cpuinfo_value(line, "flags")))
			fp->hypervisor |= has_word(v, "hypervisor");
		else if ((v = cpuinfo_value(line, "CPU implementer")))
			implementer = (int)strtol(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU architecture")))
			arch = (int)strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "CPU variant")))
			variant = (int)strtol(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU part")))
			part = (int)strtol(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU revision")))
			revision = (int)strtol(v, NULL, 10);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (implementer >= 0) {
		snprintf(fp->vendor, sizeof(fp->vendor), "0x%02x", implementer);
		for (size_t i = 0; i < sizeof(arm_implementers) / sizeof(arm_implementers[0]); i++)
			if (arm_implementers[i].code == (unsigned)implementer)
				snprintf(fp->vendor, sizeof(fp->vendor), "%s", arm_implementers[i].name);
		fp->family = arch;
		fp->model = part;
		fp->stepping = variant << 4 | revision;
		if (!fp->model_name[0])
			snprintf(fp->model_name, sizeof(fp->model_name), "%s part 0x%03x r%dp%d",
				 fp->vendor, part, variant, revision);
	}
}

long fingerprint__parse_size_kb(const char *text)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (end == text || v < 0)
		return -1;
	switch (*end) {
	case 'K': return v;
	case 'M': return v * 1024;
	case 'G': return v * 1024 * 1024;
	case '\0': case '\n': return (v + 1023) / 1024;
	default: return -1;
	}
}

static int read_int(const char *root, const char *rel, int dflt)
{
	char buf[64], *end;
	long v;

	if (calib__read_text(root, rel, buf, sizeof(buf)) || !buf[0])
		return dflt;
	v = strtol(buf, &end, 10);
	return end == buf ? dflt : (int)v;
}

static void read_caches(const char *root, struct ss_fingerprint *fp)
{
	for (int i = 0; i < 16 && fp->ncaches < FP_MAX_CACHES; i++) {
		struct fp_cache *c = &fp->caches[fp->ncaches];
		char rel[128], buf[64];
		long kb;

		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (calib__read_text(root, rel, buf, sizeof(buf)))
			break;
		if ((kb = fingerprint__parse_size_kb(buf)) < 0)
			continue;
		c->size_kb = (uint32_t)kb;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		c->level = read_int(root, rel, 0);
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		calib__read_text(root, rel, c->type, sizeof(c->type));
		snprintf(rel, sizeof(rel),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
		c->line = (uint32_t)read_int(root, rel, 0);
		fp->ncaches++;
	}
	if (fp->ncaches)
		fp->cache_line = (int)fp->caches[0].line;
}

static void read_topology(const char *root, struct ss_fingerprint *fp)
{
	char buf[4096];
	cpu_set_t online;
	/* (package << 20 | core) of each counted core */
	long *seen = calloc(CPU_SETSIZE, sizeof(*seen));
	int nseen = 0;

	if (!seen)
		return;
	if (calib__read_text(root, "/sys/devices/system/cpu/online", buf, sizeof(buf)) ||
	    calib__parse_cpulist(buf, &online))
		CPU_ZERO(&online);
	fp->threads = CPU_COUNT(&online);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char rel[128];
		long key;
		int pkg, core, k;

		if (!CPU_ISSET(cpu, &online))
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
		pkg = read_int(root, rel, 0);
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		core = read_int(root, rel, cpu);
		key = (long)pkg << 20 | core;
		for (k = 0; k < nseen && seen[k] != key; k++)
			;
		if (k == nseen)
			seen[nseen++] = key;
	}
	fp->cores = nseen;
	free(seen);

	cpu_set_t nodes;
	if (!calib__read_text(root, "/sys/devices/system/node/online", buf, sizeof(buf)) &&
	    !calib__parse_cpulist(buf, &nodes))
		fp->nodes = CPU_COUNT(&nodes);
	else
		fp->nodes = 1;	/* no NUMA support compiled in: one node */
}

static int cmp_vuln(const void *a, const void *b)
{
	return strcmp(((const struct fp_vuln *)a)->name, ((const struct fp_vuln *)b)->name);
}

static void read_vulns(const char *root, struct ss_fingerprint *fp)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/vulnerabilities", root ? root : "");
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && fp->nvulns < FP_MAX_VULNS) {
		struct fp_vuln *v = &fp->vulns[fp->nvulns];
		char rel[256];

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(v->name))
			continue;
		memcpy(v->name, de->d_name, strlen(de->d_name) + 1);
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/vulnerabilities/%s", v->name);
		if (!calib__read_text(root, rel, v->status, sizeof(v->status)))
			fp->nvulns++;
	}
	closedir(d);
	/* readdir order is the filesystem's: sort so equal hosts print alike. */
	ss_sort(fp->vulns, (size_t)fp->nvulns, sizeof(fp->vulns[0]), cmp_vuln);
}

/* The live host's cpuid: the hypervisor bit and the hypervisor's name
 * (leaf 0x40000000), which a guest's cpuinfo may not show. */
static void read_live_hypervisor(struct ss_fingerprint *fp)
{
#if defined(__x86_64__)
	struct calib_cpuid id;
	unsigned int a, b, c, d;

	calib_hints__read_cpuid(&id);
	if (!(id.leaf1_ecx & CALIB_CPUID1_ECX_HYPERVISOR))
		return;
	fp->hypervisor = true;
	__cpuid(0x40000000u, a, b, c, d);
	memcpy(fp->hypervisor_name, &b, 4);
	memcpy(fp->hypervisor_name + 4, &c, 4);
	memcpy(fp->hypervisor_name + 8, &d, 4);
	fp->hypervisor_name[12] = '\0';
	/* Some hypervisors pad with NULs or spaces. */
	for (int i = 11; i >= 0 && (fp->hypervisor_name[i] == ' ' || !fp->hypervisor_name[i]); i--)
		fp->hypervisor_name[i] = '\0';
#else
	(void)fp;
#endif
}

int fingerprint__read(const char *root, struct ss_fingerprint *fp)
{
	bool live = !root || !*root || !strcmp(root, "/");
	struct calib_busy_sample busy;
	size_t cap = 1 << 20;
	char *text;
	int err;

	memset(fp, 0, sizeof(*fp));
	if (live)
		root = "";
#if defined(__x86_64__)
	snprintf(fp->arch, sizeof(fp->arch), "x86_64");
#elif defined(__aarch64__)
	snprintf(fp->arch, sizeof(fp->arch), "aarch64");
#else
	snprintf(fp->arch, sizeof(fp->arch), "unknown");
#endif
	text = malloc(cap);
	if (!text)
		return -ENOMEM;
	err = calib__read_text(root, "/proc/cpuinfo", text, cap);
	if (!err)
		fingerprint__parse_cpuinfo(text, fp);
	free(text);
	if (err)
		return err;
	if (calib__read_text(root, "/proc/sys/kernel/osrelease", fp->kernel, sizeof(fp->kernel))) {
		struct utsname u;

		if (live && !uname(&u))
			snprintf(fp->kernel, sizeof(fp->kernel), "%s", u.release);
	}
	if (!calib__read_text(root, "/sys/hypervisor/type", fp->hypervisor_name,
			      sizeof(fp->hypervisor_name)) && fp->hypervisor_name[0])
		fp->hypervisor = true;
	if (live)
		read_live_hypervisor(fp);
	read_topology(root, fp);
	read_caches(root, fp);
	read_vulns(root, fp);
	if (calib__read_text(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
			     fp->governor, sizeof(fp->governor)) || !fp->governor[0])
		snprintf(fp->governor, sizeof(fp->governor), "none");
	if (!calib_busy__read(root, &busy)) {
		fp->load1 = busy.load1;
		fp->steal_frac = busy.total ? (double)busy.steal / (double)busy.total : 0;
	}
	return 0;
}

bool fingerprint__match(const struct ss_fingerprint *saved,
			const struct ss_fingerprint *here, char *why, size_t len)
{
	const struct { const char *name; const char *a, *b; } strs[] = {
		{ "architecture", saved->arch, here->arch },
		{ "CPU vendor", saved->vendor, here->vendor },
		{ "CPU model", saved->model_name, here->model_name },
		{ "microcode", saved->microcode, here->microcode },
		{ "kernel", saved->kernel, here->kernel },
	};
	const struct { const char *name; int a, b; } ints[] = {
		{ "CPU family", saved->family, here->family },
		{ "CPU model number", saved->model, here->model },
		{ "CPU stepping", saved->stepping, here->stepping },
		{ "cores", saved->cores, here->cores },
		{ "threads", saved->threads, here->threads },
		{ "NUMA nodes", saved->nodes, here->nodes },
	};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strcmp(strs[i].a, strs[i].b)) {
			snprintf(why, len, "different %s: calibrated on '%s', this host has '%s'",
				 strs[i].name, strs[i].a, strs[i].b);
			return false;
		}
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (ints[i].a != ints[i].b) {
			snprintf(why, len, "different %s: calibrated with %d, this host has %d",
				 ints[i].name, ints[i].a, ints[i].b);
			return false;
		}
	if (len)
		why[0] = '\0';
	return true;
}

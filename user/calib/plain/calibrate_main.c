// SPDX-License-Identifier: GPL-2.0
/*
 * spinscope-calibrate: the reference kernels of the false_sharing,
 * spin_hint and memory_order families with a plain-text driver, for hosts
 * where the full spinscope cannot be built (no libbpf or json-c for the
 * target: `make ARCH=arm64` cross-builds this alone, statically). It shows
 * which spin hints this CPU offers and runs only those; under an emulator
 * its timings mean nothing, its feature lines and counts do.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib/kern/calib_hints.h"
#include "calib/kern/calib_kern.h"
#include "calib/kern/calib_util.h"
#include "calib/kern/fingerprint.h"

enum { ONLY_HINTS = 1, ONLY_FS = 2, ONLY_MO = 4, ONLY_HOST = 8 };

struct opts {
	unsigned only;
	bool tiny;		/* smallest sizes: proves each kernel runs */
	cpu_set_t cpus;
};

static const char usage[] =
	"Usage: spinscope-calibrate [--only host,spin_hint,false_sharing,memory_order]\n"
	"                           [--cpus LIST] [--tiny]\n"
	"  --tiny  smallest sample sizes (under an emulator: checks that every\n"
	"          offered hint runs; the timings mean nothing there)\n";

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "only", required_argument, NULL, 'O' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "tiny", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	o->only = ONLY_HINTS | ONLY_FS | ONLY_MO | ONLY_HOST;
	o->tiny = false;
	sched_getaffinity(0, sizeof(o->cpus), &o->cpus);
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'O': {
			char buf[256], *save = NULL;

			o->only = 0;
			snprintf(buf, sizeof(buf), "%s", optarg);
			for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (!strcmp(t, "spin_hint"))
					o->only |= ONLY_HINTS;
				else if (!strcmp(t, "false_sharing"))
					o->only |= ONLY_FS;
				else if (!strcmp(t, "memory_order"))
					o->only |= ONLY_MO;
				else if (!strcmp(t, "host"))
					o->only |= ONLY_HOST;
				else {
					fprintf(stderr, "spinscope-calibrate: unknown family '%s' in --only\n", t);
					return 2;
				}
			}
			break;
		}
		case 'c':
			if (calib__parse_cpulist(optarg, &o->cpus)) {
				fprintf(stderr, "spinscope-calibrate: bad --cpus list '%s': e.g. 0-3,6\n", optarg);
				return 2;
			}
			break;
		case 't':
			o->tiny = true;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	return 0;
}

static void print_host(void)
{
	struct ss_fingerprint fp;

	if (fingerprint__read(NULL, &fp)) {
		printf("host: unreadable /proc/cpuinfo\n");
		return;
	}
	printf("host: %s, %s, %d threads, %d cores, %d nodes, cache line %d, kernel %s\n",
	       fp.arch, fp.model_name, fp.threads, fp.cores, fp.nodes, fp.cache_line, fp.kernel);
}

static int run_hints(const struct opts *o, int ncpus)
{
	uint32_t avail = calib_hints__available();
	int bad = 0;

#if defined(__aarch64__)
	printf("hwcap: 0x%lx\n", calib_hints__read_hwcap());
#elif defined(__x86_64__)
	struct calib_cpuid id;

	calib_hints__read_cpuid(&id);
	printf("cpuid: vendor %s leaf7.ecx 0x%x ext1.ecx 0x%x\n", id.vendor, id.leaf7_ecx, id.ext1_ecx);
#endif
	for (int h = 1; h < CALIB_HINT__COUNT; h++) {
		double ns;

#if defined(__aarch64__)
		if (calib_hints__arch(h) != CALIB_ARCH_ARM64)
			continue;
#else
		if (calib_hints__arch(h) != CALIB_ARCH_X86_64)
			continue;
#endif
		if (!(avail & CALIB_HINT_BIT(h))) {
			printf("hint %s: unavailable (%s)\n", calib_hints__name(h),
			       calib_hints__why_absent(h));
			continue;
		}
		if (calib_sh__hint_cost(h, o->tiny ? 2 : 20, o->tiny ? 64 : 4096, &ns)) {
			printf("hint %s: failed\n", calib_hints__name(h));
			bad++;
			continue;
		}
		printf("hint %s: measured %.2f ns per hint\n", calib_hints__name(h), ns);
	}
	for (int t = 1; t <= 2 * ncpus; t *= 2)
		for (int h = 0; h < CALIB_HINT__COUNT; h++) {
			struct calib_sh_counter c;
			uint64_t target = o->tiny ? 2000 : 200000;

			if (!(avail & CALIB_HINT_BIT(h)))
				continue;
			if (calib_sh__shared_counter(&o->cpus, t, h, target, &c)) {
				bad++;
				continue;
			}
			bool ok = c.final == target && c.successes == target;
			bad += !ok;
			printf("shared counter: %d threads, hint %s: %.2f ms per million, count %s\n", t,
			       calib_hints__name(h), c.ns_per_million / 1e6, ok ? "exact" : "WRONG");
		}
	return bad;
}

static int run_fs(const struct opts *o, int ncpus)
{
	static const size_t spacings[] = { 8, 64, 128, 256 };
	uint64_t iters = o->tiny ? 2000 : 2000000;
	int threads = ncpus < 2 ? 2 : ncpus, bad = 0;

	for (int atomic = 0; atomic <= 1; atomic++)
		for (size_t s = 0; s < 4; s++) {
			struct calib_fs_result r;

			if (calib_fs__run(&o->cpus, threads, spacings[s], atomic, iters, &r)) {
				bad++;
				continue;
			}
			bool ok = r.total == (uint64_t)threads * iters;
			bad += !ok;
			printf("false sharing: %d threads, %s, spacing %zu: %.2f ns per increment, "
			       "overlap %.0f%%, count %s\n", threads, atomic ? "atomic" : "plain",
			       spacings[s], r.ns_per_inc, r.overlap * 100, ok ? "exact" : "WRONG");
		}
	return bad;
}

static int run_mo(const struct opts *o)
{
	uint64_t n = o->tiny ? 2000 : 1000000;
	int bad = 0;

	for (int op = 0; op < CALIB_MO__COUNT; op++) {
		struct calib_mo_result r;
		uint64_t final;
		double alone = calib_mo__uncontended(op, n, &final);
		bool ok = final == n;

		if (calib_mo__contended(&o->cpus, 2, op, n, &r)) {
			bad++;
			continue;
		}
		ok = ok && (!calib_mo__is_cas(op) || r.final == 2 * n);
		bad += !ok;
		printf("memory order: %s: %.2f ns alone, %.2f ns with 2 threads, count %s\n",
		       calib_mo__name(op), alone, r.ns_per_op, ok ? "exact" : "WRONG");
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct opts o;
	int err, bad = 0, ncpus;

	if ((err = parse(argc, argv, &o)))
		return err;
	ncpus = CPU_COUNT(&o.cpus);
	if (o.only & ONLY_HOST)
		print_host();
	if (o.only & ONLY_HINTS)
		bad += run_hints(&o, ncpus);
	if (o.only & ONLY_FS)
		bad += run_fs(&o, ncpus);
	if (o.only & ONLY_MO)
		bad += run_mo(&o);
	if (fflush(stdout) || ferror(stdout))
		return 1;
	if (bad)
		fprintf(stderr, "spinscope-calibrate: %d kernel run(s) failed or miscounted\n", bad);
	return bad ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Does the distance between two CPUs change under us, and does a contended
 * lock's throughput change with it? On CPUs A and B, over and over, the
 * two measurements spinscope calibrate makes, from its own kernels
 * (user/calib/kern):
 *   - a cache line's round trip between them (calib_hc__c2c(), host_costs'
 *     measurement; ROUND_TRIPS trips, the mean), and
 *   - a contended lock for LOCK_MS, one thread on each CPU
 *     (spin_threshold's bench: spin SPINS times, then park on a futex,
 *     with its work inside and outside the lock).
 * One line per iteration: "round_trip_ns acquisitions_per_s". In a VM
 * whose hypervisor moves the vCPUs between cores that share a cache and
 * cores that do not, the two columns move together (docs/BENCHMARKS.md,
 * issue 10): what makes spinscope calibrate's cross-CPU figures and lock
 * verdicts differ between runs.
 *
 *   cpu_distance [-a CPU] [-b CPU] [-n ITERATIONS] [-s SPINS]
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calib/kern/calib_host_kern.h"
#include "calib/kern/calib_swlock.h"

#define ROUND_TRIPS 20000
#define LOCK_MS 30

/* A whole number from lo to hi, or exit 2 naming the option. */
static int number(const char *arg, char opt, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		fprintf(stderr, "cpu_distance: -%c needs a number from %ld to %ld, got '%s'\n", opt,
			lo, hi, arg);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	int a = 0, b = 1, iterations = 40, spins = 63, opt, err;
	struct swbench_cfg cfg = { .nthreads = 2, .cs_work = SWBENCH_CS_WORK,
				   .outside_work = SWBENCH_OUTSIDE_WORK };
	struct swbench_sample *s = malloc(sizeof(*s));
	struct swbench *bench;

	while ((opt = getopt(argc, argv, "a:b:n:s:")) != -1) {
		switch (opt) {
		case 'a': a = number(optarg, 'a', 0, CPU_SETSIZE - 1); break;
		case 'b': b = number(optarg, 'b', 0, CPU_SETSIZE - 1); break;
		case 'n': iterations = number(optarg, 'n', 1, 1000000); break;
		case 's': spins = number(optarg, 's', 0, 1 << 20); break;
		default:
			fprintf(stderr, "usage: cpu_distance [-a CPU] [-b CPU] [-n ITERATIONS] [-s SPINS]\n");
			return 2;
		}
	}
	if (a == b) {
		fprintf(stderr, "cpu_distance: -a and -b must be two different CPUs\n");
		return 2;
	}
	if (!s)
		return 1;
	CPU_ZERO(&cfg.cpus);
	CPU_SET(a, &cfg.cpus);
	CPU_SET(b, &cfg.cpus);
	err = swbench__create(&bench, &cfg);
	if (err) {
		fprintf(stderr, "cpu_distance: cannot run threads on CPUs %d and %d: %s\n", a, b,
			strerror(-err));
		return 1;
	}
	swbench__set_lock(bench, SWLOCK_SPIN_THEN_PARK, (uint32_t)spins);
	printf("# round_trip_ns acquisitions_per_s (CPUs %d and %d, spin %d then park)\n", a, b, spins);
	for (int i = 0; i < iterations && !err; i++) {
		uint64_t final;
		double rt;

		err = calib_hc__c2c(a, b, ROUND_TRIPS, &rt, &final);
		if (!err)
			err = swbench__run(bench, LOCK_MS * 1000000ull, 0, 1, s);
		if (!err)
			printf("%.0f %.0f\n", rt, (double)s->total_acq * 1e9 / (double)s->run_ns);
		fflush(stdout);
	}
	swbench__destroy(bench);
	free(s);
	if (err)
		fprintf(stderr, "cpu_distance: a measurement failed: %s\n", strerror(-err));
	return err ? 1 : 0;
}

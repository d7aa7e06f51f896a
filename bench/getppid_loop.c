// SPDX-License-Identifier: GPL-2.0
/*
 * An unrelated process's system calls: getppid(2) in a loop for SECONDS of
 * its own CPU time, then one line "calls_per_s=N": calls per second of CPU
 * it used, so that a loaded host (which takes CPU away from it) changes
 * how long it runs, not the rate. Used by bench/light_host_cost.sh to see
 * what a tracer of another process costs every syscall on the host.
 *
 *   getppid_loop SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc == 2 ? atof(argv[1]) : 0, t0, t;
	unsigned long long n = 0;

	if (secs <= 0) {
		fprintf(stderr, "usage: getppid_loop SECONDS\n");
		return 2;
	}
	t0 = cpu_s();
	do {
		/* The raw syscall, as any program's would enter the kernel. */
		for (int i = 0; i < 10000; i++)
			syscall(SYS_getppid);
		n += 10000;
		t = cpu_s();
	} while (t - t0 < secs);
	printf("calls_per_s=%.0f\n", n / (t - t0));
	return 0;
}

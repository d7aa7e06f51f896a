// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of symbolization (`make bench-syms`; results in docs/BENCHMARKS.md):
 *  - load + resolve 100k random addresses in libc's code (this process),
 *    and the same addresses again (C++ names are demangled on first use),
 *  - the same in a large library (libLLVM, placed by a fake maps file so
 *    that it is not loaded into this process),
 *  - loading every module of a running JVM (syms__new + syms__load_all)
 *    and resolving 100k addresses in libjvm.so; optionally its JIT map.
 * Each figure is the median of RUNS; "load" is with the page cache warm
 * and spinscope's symbol cache empty (flushed before each run).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "syms/elf_cache.h"
#include "syms/proc_maps.h"
#include "syms/syms.h"

#define RUNS 5
#define ADDRS 100000
#define LARGE_LIB "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
/* its executable PT_LOAD (offset 0) per readelf -lW, Debian 12 */
#define LARGE_LIB_TEXT 0x6161880ull
#define TABLE_HEAD "| module | load ms | 100k resolve ms | again ms | symbols MiB | named | peak RSS MiB |\n" \
	"|---|---|---|---|---|---|---|\n"

struct result {
	double load_ms;		/* syms__new + loading the module's symbols */
	double resolve_ms;	/* ADDRS resolutions after that */
	double again_ms;	/* the same again: C++ names already demangled */
	size_t heap_bytes;	/* heap held by the loaded symbols */
	uint64_t named;		/* of the ADDRS, how many got a function name */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dcmp);
	return v[n / 2];
}

/* The executable mapping of pid whose path ends in name. */
static int find_text(const char *proc, int pid, const char *name, uint64_t *start, uint64_t *end)
{
	char path[256], *line = NULL;
	size_t cap = 0, nl = strlen(name);
	struct proc_map m;
	FILE *f;
	int found = -1;

	snprintf(path, sizeof(path), "%s/%d/maps", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (found && getline(&line, &cap, f) > 0)
		if (!proc_map__parse(line, &m) && m.executable && m.path_len >= nl &&
		    !memcmp(m.path + m.path_len - nl, name, nl)) {
			*start = m.start;
			*end = m.end;
			found = 0;
		}
	free(line);
	fclose(f);
	return found;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* One run: fresh cache, new syms, first resolve loads the module, then
 * ADDRS random addresses in [start, end). */
static void run_once(int pid, const struct syms_opts *opts, uint64_t start, uint64_t end,
		     struct result *r)
{
	static uint64_t addrs[ADDRS];
	struct elf_cache_stats before, after;
	struct sym_info si;
	struct syms *s;
	double t0, t1, t2, t3;

	for (int i = 0; i < ADDRS; i++)
		addrs[i] = start + rnd() % (end - start);
	elf_cache__flush();
	elf_cache__stats(&before);
	t0 = now_ms();
	s = syms__new_opts(pid, opts);
	if (!s) {
		fprintf(stderr, "syms_resolve: pid %d: %s\n", pid, strerror(errno));
		exit(1);
	}
	syms__resolve(s, start, &si);
	t1 = now_ms();
	r->named = 0;
	for (int i = 0; i < ADDRS; i++) {
		syms__resolve(s, addrs[i], &si);
		r->named += si.name != NULL;
	}
	t2 = now_ms();
	for (int i = 0; i < ADDRS; i++)
		syms__resolve(s, addrs[i], &si);
	t3 = now_ms();
	elf_cache__stats(&after);
	r->load_ms = t1 - t0;
	r->resolve_ms = t2 - t1;
	r->again_ms = t3 - t2;
	r->heap_bytes = after.bytes - before.bytes;
	syms__free(s);
}

/* Medians of RUNS runs, measured in a child process so that its peak
 * RSS (from wait4) is this scenario's alone. */
static void bench_module(const char *label, int pid, const struct syms_opts *opts, const char *name)
{
	double load[RUNS], res[RUNS], again[RUNS];
	struct result r, out;
	struct rusage ru;
	uint64_t start, end;
	int p[2], status;
	pid_t child;

	if (find_text(opts && opts->proc_root ? opts->proc_root : "/proc", pid, name, &start, &end)) {
		printf("| %s | not mapped | | | | | |\n", label);
		return;
	}
	fflush(stdout);
	if (pipe(p) || (child = fork()) < 0)
		exit(1);
	if (child == 0) {
		for (int i = 0; i < RUNS; i++) {
			run_once(pid, opts, start, end, &r);
			load[i] = r.load_ms;
			res[i] = r.resolve_ms;
			again[i] = r.again_ms;
		}
		r.load_ms = median(load, RUNS);
		r.resolve_ms = median(res, RUNS);
		r.again_ms = median(again, RUNS);
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &out, sizeof(out)) != sizeof(out) || wait4(child, &status, 0, &ru) != child)
		exit(1);
	close(p[0]);
	printf("| %s | %.1f | %.1f | %.1f | %.2f | %.1f%% | %.1f |\n", label, out.load_ms, out.resolve_ms,
	       out.again_ms, out.heap_bytes / 1048576.0, 100.0 * (double)out.named / ADDRS, ru.ru_maxrss / 1024.0);
}

/* Peak RSS of a child that does nothing: what the columns above include. */
static double baseline_rss_mib(void)
{
	struct rusage ru;
	int status;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(0);
	if (child < 0 || wait4(child, &status, 0, &ru) != child)
		return -1;
	return ru.ru_maxrss / 1024.0;
}

/* A fake /proc tree whose process maps LARGE_LIB's code at a made-up
 * address; its root is ours, so the file itself is opened. */
static int fake_large(char *dir, size_t size)
{
	char path[300];
	struct stat st;
	FILE *f;

	if (stat(LARGE_LIB, &st))
		return -1;
	snprintf(dir, size, "/tmp/ss-bench-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/1", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/1/root", dir);
	if (symlink("/", path))
		return -1;
	snprintf(path, sizeof(path), "%s/1/maps", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	/* its first segment is its code, from offset 0 */
	fprintf(f, "7f0000000000-%llx r-xp 00000000 00:00 %llu %s\n",
		0x7f0000000000ull + ((LARGE_LIB_TEXT + 0xfff) & ~0xfffull),
		(unsigned long long)st.st_ino, LARGE_LIB);
	return fclose(f);
}

static void cleanup_fake(const char *dir)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/1/root", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/1/maps", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/1", dir);
	rmdir(path);
	rmdir(dir);
}

/* Starts `java bench/syms_idle.java` and waits for its "ready" line. */
static pid_t start_java(int *pid_out)
{
	int p[2];
	pid_t pid;
	char line[128] = "";
	FILE *f;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execlp("java", "java", "-Xshare:auto", "-XX:+UnlockDiagnosticVMOptions",
		       "bench/syms_idle.java", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	if (!f || !fgets(line, sizeof(line), f) || sscanf(line, "ready %d", pid_out) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static void bench_jvm(void)
{
	enum frame_ptr_state fp = FRAME_PTR_UNKNOWN;
	uint64_t start, end;
	double load[RUNS];
	int jpid, loaded = 0;
	pid_t pid = start_java(&jpid);
	struct elf_cache_stats st;
	struct syms_stats ss;
	struct syms *s;

	if (pid < 0) {
		printf("\nJVM: could not start java\n");
		return;
	}
	for (int i = 0; i < RUNS; i++) {
		double t0;

		elf_cache__flush();
		t0 = now_ms();
		s = syms__new(jpid);
		loaded = s ? syms__load_all(s) : -1;
		load[i] = now_ms() - t0;
		elf_cache__stats(&st);
		if (s)
			syms__stats(s, &ss);
		if (s && i == RUNS - 1 && !find_text("/proc", jpid, "/libjvm.so", &start, &end))
			fp = syms__frame_pointers(s, start);
		syms__free(s);
	}
	printf("\nJVM (pid %d): syms__new + syms__load_all: median %.1f ms over %d runs;"
	       " %d files loaded (%u mapped, %u unreadable), %.1f MiB of symbols cached\n",
	       jpid, median(load, RUNS), RUNS, loaded, ss.files, ss.files_unreadable, st.bytes / 1048576.0);
	printf("libjvm.so frame pointers: %s\n", frame_ptr__str(fp));
	printf("\n" TABLE_HEAD);
	bench_module("libjvm.so (JVM process)", jpid, NULL, "/libjvm.so");

	/* JIT symbols: ask the JVM for its perf map, then count them */
	{
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "jcmd %d Compiler.perfmap >/dev/null 2>&1", jpid);
		if (system(cmd) == 0 && (s = syms__new(jpid))) {
			syms__stats(s, &ss);
			printf("\nJIT: jcmd Compiler.perfmap wrote %u entries (%u lines rejected)\n",
			       ss.perfmap_entries, ss.perfmap_rejected);
			syms__free(s);
			snprintf(cmd, sizeof(cmd), "/tmp/perf-%d.map", jpid);
			unlink(cmd);
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	struct syms_opts fake = { 0 };
	char dir[64];

	printf("peak RSS of a child that does nothing (included in the last column): %.1f MiB\n\n",
	       baseline_rss_mib());
	printf(TABLE_HEAD);
	bench_module("libc.so.6 (this process)", getpid(), NULL, "/libc.so.6");
	if (!fake_large(dir, sizeof(dir))) {
		fake.proc_root = dir;
		bench_module("libLLVM-14.so.1 (fake maps)", 1, &fake, "/libLLVM-14.so.1");
		cleanup_fake(dir);
	}
	bench_jvm();
	return 0;
}

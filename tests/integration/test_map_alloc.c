// SPDX-License-Identifier: GPL-2.0
/*
 * How spinscope's BPF maps take kernel memory. From Linux 6.1 (not
 * PREEMPT_RT) the hash maps of the tracing programs are allocated as
 * entries are made (BPF_F_NO_PREALLOC): an idle target with two threads
 * then holds kilobytes, not the whole default sizes. Before 6.1 such a map
 * in a tracing program makes the verifier print a kernel warning, and RT
 * refuses it, so there every map is preallocated; and perf_event programs
 * (the sampler) may only ever use preallocated maps. The kernel's own rule
 * is the oracle here: each map is judged by the programs that use it.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include "tracetest.h"

#define WORK_TIMEOUT_MS 20000
#define END_TIMEOUT_MS 10000
#define YIELDS 200
#define MAX_MAPS 64

/* What uname says: at least major.minor, and whether it is PREEMPT_RT. */
static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &ma, &mi), 2);
	return ma > major || (ma == major && mi >= minor);
}

static bool kernel_is_rt(void)
{
	struct utsname u;

	assert_int_equal(uname(&u), 0);
	return strstr(u.version, "PREEMPT_RT") != NULL;
}

/* The kernel's figure for a map: the memlock line of its fdinfo. */
static unsigned long long map_memlock(int fd)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* A map in use, and whether a perf_event program is among its users. */
struct used_map {
	__u32 id;
	bool by_perf_event;
};

static struct used_map *find_or_add(struct used_map *m, int *n, __u32 id)
{
	for (int i = 0; i < *n; i++)
		if (m[i].id == id)
			return &m[i];
	assert_true(*n < MAX_MAPS);
	m[*n] = (struct used_map){ .id = id };
	return &m[(*n)++];
}

/* Every map the programs of pid use, marked by the programs' types. */
static int maps_in_use(pid_t pid, struct used_map *maps)
{
	uint32_t progs[64];
	int nprogs = tt_prog_ids_of(pid, progs, 64), n = 0;

	assert_true(nprogs > 0);
	for (int i = 0; i < nprogs; i++) {
		__u32 map_ids[MAX_MAPS];
		struct bpf_prog_info info = { .nr_map_ids = MAX_MAPS,
					      .map_ids = (__u64)(unsigned long)map_ids };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(progs[i]);

		if (fd < 0)
			continue;
		assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
		close(fd);
		for (__u32 k = 0; k < info.nr_map_ids && k < MAX_MAPS; k++) {
			struct used_map *m = find_or_add(maps, &n, map_ids[k]);

			m->by_perf_event |= info.type == BPF_PROG_TYPE_PERF_EVENT;
		}
	}
	return n;
}

static void test_hash_maps_grow_where_the_kernel_allows(void **state)
{
	bool grow = kernel_at_least(6, 1) && !kernel_is_rt();
	/* Before 6.6 fdinfo's memlock is the size at max_entries either way. */
	bool memlock_is_use = kernel_at_least(6, 6);
	const char *args[] = { "-p", NULL, "-d", "0", "--json", "--no-calibrate", NULL };
	struct used_map maps[MAX_MAPS];
	int nmaps, checked = 0;
	struct tt_workload w;
	struct tt_trace t;
	json_object *doc;
	char done[256];

	TL_REQUIRE_BPF();
	tt_workload_start(&w, "yield_n", TT_ARGS(tt_num(YIELDS), "1"));
	args[1] = tt_num(w.proc.pid);
	tt_trace_start(&t, args);
	nmaps = maps_in_use(t.proc.pid, maps);
	for (int i = 0; i < nmaps; i++) {
		struct bpf_map_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(maps[i].id);
		bool no_prealloc;

		if (fd < 0)
			continue;
		assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
		if (info.type != BPF_MAP_TYPE_HASH) {
			close(fd);
			continue;
		}
		no_prealloc = info.map_flags & BPF_F_NO_PREALLOC;
		print_message("maps: %-16s %s, %u entries at most, memlock %llu, used by %s\n",
			      info.name, no_prealloc ? "grows as used" : "preallocated",
			      info.max_entries, map_memlock(fd),
			      maps[i].by_perf_event ? "perf_event programs" : "tracing programs");
		if (maps[i].by_perf_event) {
			if (no_prealloc)
				fail_msg("map %s is used by a perf_event program but not preallocated",
					 info.name);
		} else if (no_prealloc != grow) {
			fail_msg("map %s is %s on %s Linux %s 6.1", info.name,
				 no_prealloc ? "not preallocated" : "preallocated",
				 kernel_is_rt() ? "a PREEMPT_RT" : "a", grow ? "from" : "before");
		} else if (grow && memlock_is_use && !strcmp(info.name, "threads")) {
			/* Two threads' records of max_entries: far under an eighth. */
			unsigned long long whole = (unsigned long long)info.max_entries * info.value_size;

			if (map_memlock(fd) * 8 > whole)
				fail_msg("map threads holds %llu bytes for two threads (%llu at max_entries)",
					 map_memlock(fd), whole);
		}
		checked += !maps[i].by_perf_event;
		close(fd);
	}
	/* threads, futexes, waiters, release_sites, yield_sites at least. */
	assert_true(checked >= 5);
	print_message("maps: %d hash maps of the tracing programs %s\n", checked,
		      grow ? "grow as used" : "preallocated");
	tt_workload_go(&w);
	tt_workload_wait_line(&w, "done", done, sizeof(done), WORK_TIMEOUT_MS);
	tt_trace_end(&t, SIGINT, END_TIMEOUT_MS);
	if (t.rc != 0)
		fail_msg("spinscope exited with %d; stderr: %s", t.rc, t.err);
	doc = tt_parse_report(t.out);
	tt_trace_free(&t);
	tt_workload_end(&w);
	/* The maps hold what they held preallocated: every call counted. */
	assert_int_equal(tt_u64(doc, "totals.sched_yield"), YIELDS);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hash_maps_grow_where_the_kernel_allows, tt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

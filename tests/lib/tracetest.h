/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the integration tests that trace a workload with the real
 * spinscope binary: start a workload and wait for its "ready" line, attach
 * spinscope and wait for its "tracing" line, end the trace and read the JSON
 * report, and check that no BPF program outlives spinscope.
 *
 * Every wait has a timeout, and every process started here is killed by
 * tt_teardown() if a failed assertion left it running: a broken spinscope
 * makes a test fail, never hang. A timeout of a wait for a child is a budget
 * of that child's own CPU time (a loaded host slows it, it does not make it
 * work more), capped at six times as much wall-clock time for a child that
 * blocks for good.
 */
#ifndef SPINSCOPE_TRACETEST_H
#define SPINSCOPE_TRACETEST_H

#include <json-c/json.h>
#include "testlib.h"

/* A NULL-terminated argument list: TT_ARGS("-p", pid, "--json"). */
#define TT_ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Decimal text of v, in one of a few rotating static buffers. */
const char *tt_num(long long v);

/* CPU time pid (all its threads) and its reaped children used, in ms; -1
 * once it is gone. */
long long tt_cpu_ms(pid_t pid);

/* The monotonic clock in ms: for wall-time bounds a test derives. */
long long tt_now_ms(void);

/* cmocka teardown: kills and reaps whatever the test started and left. */
int tt_teardown(void **state);
/* A child started otherwise (tl_spawn) that tt_teardown() must end if a
 * failed assertion leaves it running, and its end: a JVM or a workload of
 * "0" seconds outlived its failed test by twenty minutes under `make asan`. */
void tt_track(pid_t pid);
void tt_untrack(pid_t pid);

/* ---- workloads (tests/workloads, see workload.h for the handshake) ------ */

struct tt_workload {
	struct tl_proc proc;
	char ready[1024];	/* its "ready pid=N ..." line */
};

/* Starts build/workloads/NAME with the given arguments; waits for "ready". */
void tt_workload_start(struct tt_workload *w, const char *name, const char *const args[]);
/* Tells it to do its work (SIGUSR1). */
void tt_workload_go(struct tt_workload *w);
/* Waits for a stdout line starting with prefix (e.g. "done"), copied to buf. */
void tt_workload_wait_line(struct tt_workload *w, const char *prefix, char *buf, size_t size,
			   int timeout_ms);
/* Waits for the workload to exit by itself; returns its exit status. */
int tt_workload_wait_exit(struct tt_workload *w, int timeout_ms);
/* Kills (SIGKILL) and reaps it, if still there. */
void tt_workload_end(struct tt_workload *w);

/* The number after " key=" in a workload's line (decimal or 0x hex). */
unsigned long long tt_field(const char *line, const char *key);
/* The comma-separated numbers after " key="; returns how many (at most max). */
int tt_field_list(const char *line, const char *key, long long *out, int max);

/* ---- spinscope ---------------------------------------------------------- */

struct tt_trace {
	struct tl_proc proc;
	double attach_s;	/* from spawn to the "spinscope: tracing" line */
	char tracing[1024];	/* that line */
	char *out, *err;	/* everything it printed (after tt_trace_end) */
	int rc;			/* its exit status (after tt_trace_end) */
};

/* Runs spinscope with args and waits (10 s of its CPU) for its "tracing" line;
 * fails the test, showing its stderr, if it exits instead. */
void tt_trace_start(struct tt_trace *t, const char *const args[]);
/* Sends sig (0: none) and waits up to timeout_ms for spinscope to exit,
 * collecting its output and exit status. */
void tt_trace_end(struct tt_trace *t, int sig, int timeout_ms);
void tt_trace_free(struct tt_trace *t);
/* Traces w (-d 0 --json --no-calibrate, then extra, which may be NULL)
 * from before its go until its "done" line, stops spinscope with SIGINT
 * and returns the JSON report; fails the test unless it exits 0. */
json_object *tt_trace_until_done(struct tt_workload *w, const char *const extra[],
				 int work_timeout_ms, int end_timeout_ms);

/* Runs argv (argv[0] a path) to completion within timeout_ms; *out and *err
 * get its output (malloc'd). Returns its exit status (128+signal if killed).
 * Unlike tl_run, a child that hangs fails the test instead of blocking it. */
int tt_run(const char *const argv[], char **out, char **err, int timeout_ms);

/* A TCP port of 127.0.0.1 free a moment ago (for --metrics). */
int tt_free_port(void);

/* ---- the JSON report ---------------------------------------------------- */

/* Parses stdout as exactly one JSON object (fails the test otherwise). */
json_object *tt_parse_report(const char *out);

/* This host calibrated for families (`spinscope calibrate --quick --only
 * families`) once per test program, into a temporary folder: its path.
 * tt_calibration_remove() removes the folder (a group teardown). */
const char *tt_calibration(const char *families, int timeout_ms);

/* Starts a Java workload (build/workloads/java; "-cp" in jargs is followed
 * by the class path) and reads its "ready" line (a JVM starts slowly on a
 * loaded host: up to a minute). End it with tl_kill, tl_wait, and close
 * its fds (tt_java_end). */
/* Runs spinscope's argv (with --json) to its end: the parsed report; fails
 * the test when it exits non-zero. */
json_object *tt_run_report(const char *const argv[], int timeout_ms);

void tt_java_start(struct tl_proc *p, const char *const jargs[]);
void tt_java_end(struct tl_proc *p);
int tt_calibration_remove(void **state);

/* NAME in a scratch folder of this test binary's own, made at the first
 * call (the last 4 paths stay valid); tt_scratch_remove() removes it and
 * all in it (a group teardown, or at the end of main). */
const char *tt_scratch_path(const char *name);
int tt_scratch_remove(void **state);
/* The member at a dotted path ("totals.sched_yield"); fails if absent. */
json_object *tt_get(json_object *o, const char *path);
/* An unsigned integer member at a dotted path; fails if absent or not one. */
uint64_t tt_u64(json_object *o, const char *path);
/* The entry of "threads" with this tid, or NULL. */
json_object *tt_thread(json_object *report, long long tid);
/* The entry of "futexes" with this uaddr, or NULL. */
json_object *tt_futex(json_object *report, unsigned long long uaddr);
/* The "uaddr" of a futexes entry, as a number. */
unsigned long long tt_uaddr(json_object *futex);
/* The "advice" finding with this id, or NULL. */
json_object *tt_finding(json_object *report, const char *id);
/* The value of a finding's evidence line with this label, or NULL. */
const char *tt_evidence(json_object *finding, const char *label);

/* ---- stacks ------------------------------------------------------------- */

/* True when a report's frame is "fn+0x<hex> (module)" exactly. */
bool tt_frame_is(const char *frame, const char *fn, const char *module);

/* A function of a workload binary: where it was loaded (as the workload
 * printed it) and its size from the binary's symbol table. */
struct tt_func {
	const char *name;
	unsigned long long addr;	/* run-time address */
	unsigned long long value;	/* st_value in the ELF file */
	unsigned long long size;
};

/* Looks up name in build/workloads/<workload>; addr is the run-time address
 * the workload printed. Fails the test if the symbol is missing. */
void tt_func_init(struct tt_func *f, const char *workload, const char *name,
		  unsigned long long addr);
/* True if one of the "frames" of a stack object (hex addresses, or once
 * symbolized, "name+0x..." / "module+0x...") lies in one of the functions. */
bool tt_stack_has(json_object *stack, const char *workload, const struct tt_func *funcs, int n);

/* ---- BPF objects left behind -------------------------------------------- */

/* The newest BPF program and link ids when the mark was taken. */
struct tt_bpf_mark {
	uint32_t prog_id;
	uint32_t link_id;
};

void tt_bpf_mark(struct tt_bpf_mark *m);
/*
 * Fails unless every BPF program and link created since the mark either is
 * gone or is still held open by a live process (another tool, or another
 * test, running now). A program nobody holds that survives is pinned or
 * attached for good: what a crashed or failed spinscope must never leave.
 * The kernel frees objects asynchronously, so this polls for up to 3 s.
 */
void tt_assert_nothing_left(const struct tt_bpf_mark *m);
/* The ids of the BPF programs process pid holds open (from its fdinfo). */
int tt_prog_ids_of(pid_t pid, uint32_t *ids, int max);
/* True while a BPF program with this id exists. */
bool tt_prog_exists(uint32_t id);

/* The mechanism --attach=auto takes: "syscall_tracepoints" on every
 * kernel for now, fentry only when asked (see user/trace/attach.c). */
const char *tt_auto_mechanism(json_object *report);

#endif

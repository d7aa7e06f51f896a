// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope -p PID`: check the target and our privileges, load and attach,
 * wait for the end (duration, SIGINT/SIGTERM/SIGHUP, or the target's exit)
 * while printing interval summaries, then detach and report.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "report/advice.h"
#include "trace/btf_locate.h"
#include "cli.h"
#include "commands.h"
#include "common/errors.h"
#include "common/outfile.h"
#include "report/folded.h"
#include "report/html.h"
#include "trace/perf_events.h"
#include "trace/privs.h"
#include "common/procfs.h"
#include "report/recording.h"
#include "report/report.h"
#include "report/recording_json.h"
#include "report/samples_report.h"
#include "report/verdict.h"
#include "trace/samples.h"
#include "model/stacks.h"
#include "advisor/runtime.h"
#include "syms/jvm_perfmap.h"
#include "syms/pyframes.h"
#include "syms/runtime_detect.h"
#include "syms/syms.h"
#include "syms/unwind_table.h"
#include "trace_advise.h"
#include "trace_record.h"
#include "trace_cmd.h"
#include "trace_exports.h"
#include "trace/tracer.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9: a pidfd of one thread */
#endif

struct run_state {
	int sigfd;
	int pidfd;		/* -1: poll /proc instead (kernels before 5.3) */
	sigset_t old_mask;
	bool exited;
	int stop_signal;
};

static int signals_block(struct run_state *rs)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, &rs->old_mask))
		return -errno;
	rs->sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	return rs->sigfd < 0 ? -errno : 0;
}

static void signals_restore(struct run_state *rs)
{
	if (rs->sigfd >= 0)
		close(rs->sigfd);
	sigprocmask(SIG_SETMASK, &rs->old_mask, NULL);
}

static bool target_gone(struct run_state *rs, int pid)
{
	char path[64];

	if (rs->pidfd >= 0)
		return false;	/* poll() reports it */
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (access(path, F_OK))
		return true;
	{
		struct proc_status st;

		return proc_read_status("/proc", pid, &st) || st.state == 'Z';
	}
}

/* Waits up to timeout_ms (-1: forever) for a signal or the target's exit.
 * Returns 1 when the trace must end, 0 on timeout. */
static int wait_event(struct run_state *rs, int pid, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = rs->sigfd, .events = POLLIN },
		{ .fd = rs->pidfd, .events = POLLIN },
	};
	int nfds = rs->pidfd >= 0 ? 2 : 1;

	/* Without a pidfd, look at /proc every 100 ms. */
	if (rs->pidfd < 0 && (timeout_ms < 0 || timeout_ms > 100))
		timeout_ms = 100;
	for (;;) {
		int n = poll(pfd, nfds, timeout_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(rs->sigfd, &si, sizeof(si)) == sizeof(si))
				rs->stop_signal = si.ssi_signo;
			return 1;
		}
		if ((n > 0 && nfds == 2 && pfd[1].revents) || target_gone(rs, pid)) {
			rs->exited = true;
			return 1;
		}
		return 0;
	}
}

static int read_stack_cb(void *arg, __s32 id, __u64 *ips, int max)
{
	return tracer__stack(arg, id, ips, max);
}

/* Frame strings of the report: "func+0x12 (module)", module+offset or
 * [unknown]. Callers' frames hold return addresses: the call is at ip - 1. */
static const char *format_frame(void *arg, __u64 ip, int depth, char *buf, size_t len)
{
	if (!arg) {
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
		return buf;
	}
	return syms__format(arg, depth ? ip - 1 : ip, buf, len);
}

/* Copies the stacks the report shows (all of them for --folded, --pprof,
 * --html and the metrics' names) before the maps go away. */
static int collect_stacks(struct tracer *t, const struct ss_profile *p, bool all,
			  struct ss_stacks *s)
{
	size_t nf = all ? p->nfutexes : SS_REPORT_TOP_FUTEXES;
	size_t ns = all ? SIZE_MAX : SS_REPORT_TOP_STACKS;
	int err = 0;

	for (size_t i = 0; i < p->nfutexes && i < nf; i++) {
		for (size_t k = 0; k < p->futexes[i].nstacks && k < ns; k++)
			err = err ?: stacks__add(s, p->futexes[i].stacks[k].stack_id, read_stack_cb, t);
		/* Release sites: a few per word, each named by the advice. */
		for (size_t k = 0; k < p->futexes[i].nreleases; k++)
			err = err ?: stacks__add(s, p->futexes[i].releases[k].stack_id, read_stack_cb, t);
	}
	for (size_t i = 0; i < p->nyields; i++)
		err = err ?: stacks__add(s, p->yields[i].stack_id, read_stack_cb, t);
	return err;
}

/* Names an address for samples' reports and folded stacks. */
static const char *sym_name(void *arg, __u64 ip, const char **module)
{
	struct sym_info si;

	*module = NULL;
	if (!arg || syms__resolve(arg, ip, &si))
		return NULL;
	*module = si.module;
	return si.name;
}

/* How far the stacks can be trusted: truncated stacks and the modules
 * without frame pointers that cut them. */
static void note_symbols(struct syms *syms, const struct ss_stacks *stacks,
			 struct ss_report_symbols *out)
{
	struct syms_fp_module nofp[SS_REPORT_MAX_NOFP];
	struct syms_stats st;

	for (size_t i = 0; i < stacks->n; i++)
		syms__note_stack(syms, (const uint64_t *)stacks->v[i].ips, stacks->v[i].depth);
	out->nno_fp = syms__modules_without_fp(syms, nofp, SS_REPORT_MAX_NOFP);
	if (out->nno_fp > SS_REPORT_MAX_NOFP)
		out->nno_fp = SS_REPORT_MAX_NOFP;
	for (size_t i = 0; i < out->nno_fp; i++) {
		out->no_fp[i] = nofp[i].path;
		out->no_fp_partial[i] = nofp[i].fp == FRAME_PTR_PARTIAL;
	}
	syms__stats(syms, &st);
	out->stacks = st.stacks;
	out->stacks_truncated = st.stacks_truncated;
	out->stacks_unnamed_end = st.stacks_unnamed_end;
	out->resolved = st.resolved;
	out->module_only = st.module_only;
	out->unknown = st.unknown;
}

/* stdout failed: said on stderr only (a JSON error would go where the
 * report could not). */
static int stdout_failed(int err)
{
	ss_set_json_errors(false);
	return ss_error(SS_EXIT_ERROR, "cannot write the report to stdout: %s", strerror(-err));
}

/* A file that could not be written at the end of the trace: one line on
 * stderr only, since stdout still gets the whole report; exit 1. */
static int file_failed(void *arg, const char *what, const char *path, const char *why)
{
	const struct ss_opts *o = arg;
	int code;

	ss_set_json_errors(false);
	code = ss_error(SS_EXIT_ERROR, "cannot write %s to %s: %s (the report still goes to stdout)",
			what, path, why);
	ss_set_json_errors(o->json);
	return code;
}

/* Through outfile__stdout: a failed write keeps its errno (ENOSPC, EPIPE). */
static int emit_json(json_object *o, bool one_line)
{
	int flags = one_line ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	const char *text;

	flags |= JSON_C_TO_STRING_NOSLASHESCAPE;
	text = json_object_to_json_string_ext(o, flags);
	return outfile__stdout(text, strlen(text)) ?: outfile__stdout("\n", 1);
}

struct interval_text {
	const struct ss_profile *diff;
	double t_s;
};

static int fill_interval_text(FILE *f, void *arg)
{
	const struct interval_text *it = arg;

	report_print_interval_text(it->diff, it->t_s, f);
	return 0;
}

/* Returns a BPF read error; a failed write to stdout goes to *out_err. */
static int print_interval(const struct ss_opts *o, struct tracer *t, struct ss_profile *prev,
			  __u64 start_ns, int *out_err, json_object *series)
{
	struct ss_profile cur, diff;
	int err = tracer__read(t, &cur);

	if (err)
		return err;
	err = profile_diff(&cur, prev->threads ? prev : NULL, &diff);
	if (!err) {
		double t_s = (cur.now_ns - start_ns) / 1e9;

		/* The series the recording keeps for diff's noise estimate: the
		 * totals, and the threads as compact rows (their objects would
		 * grow it by threads x seconds x every counter). */
		if (series) {
			json_object *iv = report_interval_json(&diff, t_s, false);

			json_object_object_add(iv, "thread_rows", recording__interval_threads(&diff));
			json_object_array_add(series, iv);
		}
		if (o->json) {
			json_object *j = report_interval_json(&diff, t_s, true);

			*out_err = emit_json(j, true);
			json_object_put(j);
		} else {
			struct interval_text it = { .diff = &diff, .t_s = t_s };

			*out_err = outfile__stdout_stream(fill_interval_text, &it);
		}
		profile_free(&diff);
	}
	profile_free(prev);
	*prev = cur;
	return err;
}

/* Identity of the target's executable: it changes when the target execs. */
static bool exe_changed(int pid, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;
	bool changed;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (stat(path, &st))
		return false;
	changed = *ino && (st.st_dev != *dev || st.st_ino != *ino);
	*dev = st.st_dev;
	*ino = st.st_ino;
	return changed;
}

/* Look for an exec (a new program image needs new maps) and for CPUs
 * that came online (they need perf events) this often. */
#define EXEC_CHECK_MS 250

static int trace_loop(const struct ss_opts *o, struct tracer *t, struct run_state *rs,
		      struct syms *syms, struct samples *smp, struct trace_exports *ex,
		      __u64 start_ns, json_object *series)
{
	struct ss_profile prev = {0};
	dev_t exe_dev = 0;
	ino_t exe_ino = 0;
	__u64 end_ns = o->duration_s > 0 ? start_ns + (__u64)(o->duration_s * 1e9) : 0;
	__u64 step_ns = o->interval_s > 0 ? (__u64)(o->interval_s * 1e9) : 0;
	__u64 next_ns = step_ns ? start_ns + step_ns : 0;
	int err = 0;

	for (;;) {
		__u64 now = tracer_now_ns(), wake = end_ns;
		int timeout;

		if (next_ns && (!wake || next_ns < wake))
			wake = next_ns;
		timeout = !wake ? -1 : wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		if (timeout < 0 || timeout > EXEC_CHECK_MS)
			timeout = EXEC_CHECK_MS;
		/* with -t, the trace ends when that thread does */
		if (wait_event(rs, o->tid ? o->tid : o->pid, timeout))
			break;
		if (exe_changed(o->pid, &exe_dev, &exe_ino) && syms)
			syms__refresh(syms);
		samples__update_cpus(smp);
		samples__drain(smp);
		/* Out of memory: the entries stay in the maps, which may
		 * fill (counted), as before there was a drain. */
		tracer__drain_exited(t);
		now = tracer_now_ns();
		trace_exports__tick(ex, t, syms, now);
		if (end_ns && now >= end_ns)
			break;
		if (next_ns && now >= next_ns) {
			int out_err = 0;

			err = print_interval(o, t, &prev, start_ns, &out_err, series);
			if (err)
				break;
			/* The next end: the first on the grid more than half a
			 * step after this one's (which is before now). A loop
			 * that fell behind (a loaded host, a slow read) skips
			 * the ticks it missed: one longer interval, where
			 * catching up printed a burst of intervals milliseconds
			 * long, stamped alike at -i's 0.1 s resolution. */
			now = tracer_now_ns();
			do
				next_ns += step_ns;
			while (next_ns <= now + step_ns / 2);
			if (out_err) {
				/* A reader that went away (`| head -1`) ends the
				 * summaries, never the trace: its files and the
				 * final report still come. */
				ss_warn("cannot write interval summaries to stdout (%s): the trace goes on without them",
					strerror(-out_err));
				step_ns = next_ns = 0;
			}
		}
	}
	profile_free(&prev);
	return err;
}

/* Everything one trace holds, from the checks to the report. Each step of
 * trace_run() fills its part; trace_session__free() releases all of it, so
 * a step that fails just returns its exit code. */
struct trace_session {
	const struct ss_opts *o;
	struct run_state rs;
	bool signals_blocked;		/* rs.old_mask is to be restored */
	struct host_info host;
	struct proc_status target;	/* as checked before attaching */
	const char *runtime;		/* its language runtime (syms/runtime_detect.h) */
	char jvm_map[320];		/* what asking a JVM for its perf map did; "": not asked */
	struct pyframes *py;		/* CPython's frames, polled while tracing */
	char py_functions[ADV_NAME_LEN];	/* what they said, or why not read; "": not tried */
	int target_dir;			/* its /proc/PID: never another process's */
	char btf[512];			/* "": the kernel's own BTF */
	__u64 t0, start_ns;
	struct host_ticks ticks0, ticks1;	/* /proc/stat at the start and end */
	struct tracer *t;
	struct samples *smp;
	struct syms *syms;		/* NULL: stacks show addresses only */
	/* The model: the maps as read at the end, before detaching. */
	struct ss_profile prof;
	struct ss_stacks stacks;
	struct ss_stacks sample_stacks;	/* the samples' stacks, for -o and --json */
	struct samples_result sres;
	bool have_sres;
	struct tracer_features feat;
	struct ss_report rep;
	struct advice_input advice_in;	/* what the advisor was given */
	struct adv_report *advice;	/* NULL: no advice */
	json_object *intervals;		/* the -i series, for the recording */
	struct trace_exports ex;	/* --pprof, --metrics, --metrics-file */
};

/* Checks the target, our privileges, the kernel's BTF and the output
 * paths: a path we cannot write must fail now, not after the trace. */
static int trace_check(struct trace_session *s)
{
	const struct ss_opts *o = s->o;
	char why[1024];
	uint64_t caps;
	int code;

	/* Before anything else: on a kernel too old, nothing below can work. */
	host_info_read("/proc", &s->host);
	code = kernel_check_version(s->host.kernel, why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	code = proc_check_target("/proc", o->pid, o->tid, &s->target, why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	/* while it runs: the advice speaks its language */
	s->runtime = runtime_detect("/proc", o->pid);
	/* Held to the end: its name is read again through it, and a process
	 * that took the pid after the target's exit is never read. */
	s->target_dir = proc_open_pid_dir("/proc", o->pid, s->target.starttime);
	if (privs_effective(&caps))
		return ss_error(SS_EXIT_PERM, "cannot read this process's capabilities: %s", strerror(errno));
	code = privs_check_caps(caps, why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	code = btf_locate(o->btf_path, "/sys/kernel/btf/vmlinux", s->host.kernel, s->btf,
			  sizeof(s->btf), why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	/* Only looked at (outfile.h): a planted FIFO would block an open. */
	code = outputs_check(&o->out);
	if (code)
		return code;
	return trace_exports__open(&s->ex, o, s->target.name);
}

/*
 * The unwind table of the target's libraries without frame pointers
 * (syms/unwind_table.h), built once for both BPF objects; empty with
 * SPINSCOPE_UNWIND=off, which keeps the kernel's frame-pointer walk (to
 * compare stacks or costs with) or when the maps cannot be read.
 */
static void build_unwind_table(const struct ss_opts *o, struct unwind_table *ut,
			       struct ss_unwind_table *out)
{
	const char *env = getenv("SPINSCOPE_UNWIND");
	int err;

	memset(ut, 0, sizeof(*ut));
	memset(out, 0, sizeof(*out));
	if (env && !strcmp(env, "off")) {
		if (o->verbose)
			ss_notice("SPINSCOPE_UNWIND=off: user stacks through frame pointers only");
		return;
	}
	err = unwind_table__build(o->pid, NULL, ut);
	if (err) {
		if (o->verbose)
			ss_notice("no unwind table for pid %d: %s", o->pid, strerror(-err));
		return;
	}
	out->rows = ut->cfi.rows;
	out->nrows = ut->cfi.nrows;
	if (o->verbose)
		ss_notice("unwind table: %zu modules, %zu rows (%zu not followed), %zu modules not covered",
			  ut->nmods, ut->cfi.nrows, ut->unsupported, ut->skipped);
}

/*
 * The table is built on a second thread while the tracer opens and checks
 * the kernel (libdw's reading of the libraries and libbpf's of the BTF
 * are both some 20 ms of CPU, and attach time is what an SRE waits
 * through); the tracer waits for it just before it sizes its maps.
 */
struct table_job {
	const struct ss_opts *o;
	struct unwind_table ut;
	struct ss_unwind_table rows;
	pthread_t thread;
	bool running;
};

static void *table_job_run(void *arg)
{
	struct table_job *j = arg;

	build_unwind_table(j->o, &j->ut, &j->rows);
	return NULL;
}

static void table_job_start(struct table_job *j, const struct ss_opts *o)
{
	j->o = o;
	j->running = !pthread_create(&j->thread, NULL, table_job_run, j);
	if (!j->running)	/* no thread: built here, as before */
		build_unwind_table(o, &j->ut, &j->rows);
}

static void table_job_wait(void *arg)
{
	struct table_job *j = arg;

	if (j->running)
		pthread_join(j->thread, NULL);
	j->running = false;
}

/* Opens and loads the tracer and the sampler; nothing is attached yet. */
static int trace_open(struct trace_session *s)
{
	const struct ss_opts *o = s->o;
	struct tracer_opts topts = {
		.pid = o->pid, .tid = o->tid, .verbose = o->verbose, .starttime = s->target.starttime,
		.max_threads = o->max_threads, .max_futexes = o->max_futexes,
		.max_stacks = o->max_stacks, .light = o->light, .attach = o->attach,
		.stack_interval_ns = (__u64)(o->stack_interval_ms * 1e6),
		.btf_custom_path = s->btf[0] ? s->btf : NULL,
	};
	struct samples_opts sopts = {
		.pid = o->pid, .tid = o->tid, .event = o->event, .max_stacks = o->max_stacks,
		/* Taken with a clock event: without a PMU, the registers are
		 * all that false sharing can be seen by. */
		.regs = !o->no_data_addresses,
	};
	struct tracer_features feat;
	struct table_job table = { 0 };
	char why[1024];
	int code, smp_err;

	s->t0 = tracer_now_ns();
	table_job_start(&table, o);
	topts.unwind = sopts.unwind = &table.rows;
	topts.unwind_wait = table_job_wait;
	topts.unwind_wait_arg = &table;
	s->t = tracer__open(&topts, &code, why, sizeof(why));
	table_job_wait(&table);	/* also where the tracer failed before it */
	/* A missing PMU is not a failure: smp is then marked unavailable. */
	s->smp = s->t ? samples__open(&sopts, why, sizeof(why)) : NULL;
	smp_err = errno;
	unwind_table__free(&table.ut);	/* the BPF maps hold their copies */
	if (!s->t)
		return ss_error(code, "%s", why);
	if (!s->smp)
		return ss_error(smp_err == EPERM || smp_err == EACCES ? SS_EXIT_PERM :
				smp_err == EINVAL ? SS_EXIT_USAGE : SS_EXIT_BPF, "%s", why);
	tracer__features(s->t, &feat);
	if (o->verbose)
		ss_notice("loaded in %.0f ms; BPF maps sized for %u threads, %u futex addresses, %u stacks: %.1f MiB%s",
			  (tracer_now_ns() - s->t0) / 1e6, o->max_threads, o->max_futexes, o->max_stacks,
			  tracer__map_bytes(s->t) / 1048576.0,
			  feat.maps_grow ? " at most, allocated as used" : ", allocated now");
	if (tracer__map_bytes(s->t) > 64ull << 20)
		ss_warn("the BPF maps may %s %.0f MiB of kernel memory",
			feat.maps_grow ? "grow to" : "lock", tracer__map_bytes(s->t) / 1048576.0);
	return 0;
}

/* Blocks the stop signals, then attaches: none may kill us while attached
 * without a report (the kernel detaches fd-based links anyway when the
 * process dies). */
static int trace_attach(struct trace_session *s)
{
	const struct ss_opts *o = s->o;
	char why[1024];
	int code, err;

	s->signals_blocked = true;
	err = signals_block(&s->rs);
	if (err)
		return ss_error(SS_EXIT_ERROR, "cannot set up signal handling: %s", strerror(-err));
	/* -t: the thread's own pidfd, so that its exit ends the trace. */
	s->rs.pidfd = (int)syscall(SYS_pidfd_open, o->tid ? o->tid : o->pid, o->tid ? PIDFD_THREAD : 0);
	code = tracer__attach(s->t, why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	err = samples__start(s->smp);
	if (err)
		return ss_error(SS_EXIT_BPF, "cannot start sampling %s: %s",
				o->event ? o->event : "cache-misses", strerror(-err));
	s->start_ns = tracer_now_ns();
	host_ticks_read(NULL, &s->ticks0);
	/* Snapshot the maps now: a target that exits early is still named. */
	s->syms = syms__new(o->pid);
	if (!s->syms)
		ss_warn("cannot read the memory maps of pid %d (%s): stacks will show addresses only",
			o->pid, strerror(errno));
	else if (!proc_files_openable("/proc", o->pid))
		ss_warn("cannot open the files pid %d maps (its /proc root needs CAP_SYS_PTRACE, its map_files CAP_SYS_ADMIN): frames will be named module+offset, without functions",
			o->pid);
	if (o->verbose)
		ss_notice("attached in %.0f ms", (s->start_ns - s->t0) / 1e6);
	return 0;
}

static void announce(const struct trace_session *s)
{
	int nthreads = proc_count_threads("/proc", s->o->pid);
	char until[64] = " until Ctrl-C";
	struct tracer_features f;

	if (s->o->duration_s > 0)
		snprintf(until, sizeof(until), " for %g s; Ctrl-C to stop early", s->o->duration_s);
	tracer__features(s->t, &f);
	ss_notice("tracing %s of pid %d (%s, %d thread%s)%s",
		  s->o->light ? "scheduler events only (--light: futex waits that block, yields that switch)"
		  : f.fentry ? "futex, sched_yield (fentry/fexit) and scheduler events"
			     : "futex, sched_yield (syscall tracepoints) and scheduler events",
		  s->o->pid, s->target.name, nthreads, nthreads == 1 ? "" : "s", until);
}

/* CPython: a thread of ours reads which Python function each of its
 * threads runs, every PYFRAMES_POLL_MS while the trace lasts, so that the
 * GIL's findings name them; a version whose frames are not read is said. */
static void trace_python_start(struct trace_session *s)
{
	int err;

	if (!s->runtime || strcmp(s->runtime, "cpython"))
		return;
	err = pyframes__open("/proc", s->o->pid, &s->py, s->py_functions, sizeof(s->py_functions));
	if (!err)
		err = pyframes__start(s->py);
	if (err && err != -ENOENT && !s->py_functions[0])
		snprintf(s->py_functions, sizeof(s->py_functions), "its Python frames were not read: %s",
			 strerror(-err));
	if (err && s->o->verbose)
		ss_notice("%s", s->py_functions);
	s->rep.python_functions = s->py_functions[0] ? s->py_functions : NULL;
}

static void trace_python_stop(struct trace_session *s)
{
	if (!s->py)
		return;
	pyframes__stop(s->py);
	s->rep.python_read = pyframes__summary(s->py, s->py_functions, sizeof(s->py_functions));
	s->rep.python_functions = s->py_functions;
}

/* Traces until the end, stops every program, then reads the maps into the
 * model while they are still there: one snapshot, so that the totals, the
 * waiter stacks and the release sites of every output agree (read while
 * attached, waits that ended between two maps' reads were in one only). */
static int trace_collect(struct trace_session *s)
{
	__u64 t0;
	int err;

	announce(s);
	if (s->o->interval_s > 0)
		s->intervals = json_object_new_array();
	trace_python_start(s);
	err = trace_loop(s->o, s->t, &s->rs, s->syms, s->smp, &s->ex, s->start_ns,
			 s->intervals);
	trace_python_stop(s);
	if (err)
		return ss_error(SS_EXIT_BPF, "cannot read the BPF maps: %s", strerror(-err));
	host_ticks_read(NULL, &s->ticks1);
	t0 = tracer_now_ns();
	samples__stop(s->smp);
	tracer__stop(s->t);
	if (s->o->verbose)
		ss_notice("detached in %.0f ms", (tracer_now_ns() - t0) / 1e6);
	err = tracer__read(s->t, &s->prof);
	/* A recording keeps every stack: folded stacks, pprof, the HTML page
	 * and diff want them. */
	err = err ?: collect_stacks(s->t, &s->prof, outputs_any(&s->o->out, 0) || s->o->json ||
				    s->o->metrics_addr, &s->stacks);
	tracer__features(s->t, &s->feat);
	s->rep.symbols.unwind_on = tracer__unwind_stats(s->t, s->rep.symbols.unwind) > 0;
	return err ? ss_error(SS_EXIT_BPF, "cannot read the BPF maps: %s", strerror(-err)) : 0;
}

/* Frees the stopped tracer; the sampler's counts stay readable until freed.
 * The report needs nothing more from the kernel. */
static int trace_detach(struct trace_session *s)
{
	int err;

	tracer__free(s->t);
	s->t = NULL;
	err = samples__read(s->smp, &s->sres);
	s->have_sres = !err;
	s->rep.symbols.unwind_on |= samples__add_unwind_stats(s->smp, s->rep.symbols.unwind);
	samples__free(s->smp);
	s->smp = NULL;
	return err ? ss_error(SS_EXIT_BPF, "cannot read the BPF maps: %s", strerror(-err)) : 0;
}

/* How long a JVM may take to start its attach listener and write its map. */
#define JVM_MAP_TIMEOUT_MS 10000

/* After the trace, while the target still runs: a JVM (or a process
 * named java, which gets told it is none) is asked for its perf map, so
 * that its JIT-compiled methods are named. */
static void trace_jvm_map(struct trace_session *s)
{
	bool jvm = s->runtime && !strcmp(s->runtime, "jvm");

	if (s->o->no_jvm_map || s->rs.exited || (!jvm && strcmp(s->target.name, "java")))
		return;
	if (jvm_perfmap__request("/proc", s->o->pid, JVM_MAP_TIMEOUT_MS, s->jvm_map, sizeof(s->jvm_map)))
		ss_warn("%s", s->jvm_map);
	s->rep.jvm_map = s->jvm_map;
}

/* The first frame of the user's code in a stack, when the frame inside it
 * is the runtime's (a lock or unlock): its index, or -1. */
static int first_user_frame(const struct ss_stack *st)
{
	for (int d = 1; d < st->depth; d++)
		if (!adv_is_runtime_frame(st->frames[d]))
			return adv_is_runtime_frame(st->frames[d - 1]) && strstr(st->frames[d], " (") ? d : -1;
	return -1;
}

/* Failing that, the first frame in a module of the user's below a frame
 * of the runtime's libraries, whatever its function: C++'s
 * std::thread::_State_impl<...>::_M_run() is std:: by name but is the
 * user's lambda, inlined, whose call to the function that tail-called
 * the unlock is the one to read. Its index, or -1. */
static int first_user_module_frame(const struct ss_stack *st)
{
	for (int d = 1; d < st->depth; d++)
		if (!adv_is_runtime_symbol(st->frames[d]))
			return adv_is_runtime_symbol(st->frames[d - 1]) && strstr(st->frames[d], " (") ? d : -1;
	return -1;
}

/* A frame of a lock, unlock, futex or condition-variable function. */
static bool sync_frame(const char *frame)
{
	static const char *const words[] = { "lock", "futex", "cond_", "sem_", "barrier", "Mutex", "Condvar" };
	const char *end = strstr(frame, "+0x");
	size_t len = end ? (size_t)(end - frame) : strlen(frame);

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *hit = strstr(frame, words[i]);

		if (hit && (size_t)(hit - frame) < len)
			return true;
	}
	return false;
}

/* The caller as "seen from" names it: C++ template arguments, which run
 * to hundreds of characters in std::thread's, as "<...>". */
static void without_template_args(const char *fn, size_t len, char *buf, size_t size)
{
	size_t n = 0;
	int depth = 0;

	for (size_t i = 0; i < len && n + 6 < size; i++) {
		if (fn[i] == '<' && depth++ == 0) {
			memcpy(buf + n, "<...>", 5);
			n += 5;
		} else if (fn[i] == '>' && depth > 0) {
			depth--;
		} else if (!depth) {
			buf[n++] = fn[i];
		}
	}
	buf[n] = '\0';
}

/* A lock or unlock reached by a tail call (gcc -O2: "f() { ...;
 * pthread_mutex_unlock(&m); }" jumps to it) returns to f's caller, whose
 * frame then stands where f's would: the frame becomes "f [tail call,
 * seen from caller]+0x0 (module)", so that the advice names f, the
 * function that held the lock. */
static void name_tail_calls(struct syms *syms, struct ss_stacks *stacks)
{
	char callee[128], caller[128], frame[512];

	for (size_t i = 0; syms && i < stacks->n; i++) {
		struct ss_stack *st = &stacks->v[i];
		int d = st->frames ? first_user_frame(st) : -1;
		const char *plus, *mod;
		char *named;

		if (d < 0 && st->frames)
			d = first_user_module_frame(st);

		/* Only below a synchronisation frame: where the unwinder
		 * merely skipped a frameless function (a yield's syscall()),
		 * the call before the return address is an ordinary one. */
		if (d < 1 || !sync_frame(st->frames[d - 1]))
			continue;
		if (syms__tail_callee(syms, st->ips[d], d > 1 ? st->ips[d - 1] - 1 : st->ips[d - 1],
				      callee, sizeof(callee)) || adv_is_runtime_function(callee))
			continue;
		plus = strstr(st->frames[d], "+0x");
		mod = strrchr(st->frames[d], '(');
		if (!plus || !mod)
			continue;
		without_template_args(st->frames[d], (size_t)(plus - st->frames[d]), caller, sizeof(caller));
		snprintf(frame, sizeof(frame), "%s [tail call, seen from %s]+0x0%s", callee, caller, mod - 1);
		named = strdup(frame);
		if (named) {
			free(st->frames[d]);
			st->frames[d] = named;
		}
	}
}

/* A monotonic time (tracer_now_ns) on the wall clock: when the trace
 * ended, which pprof and recordings give. */
static __u64 wall_clock_of(__u64 mono_ns)
{
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	return (__u64)wall.tv_sec * 1000000000ull + (__u64)wall.tv_nsec - (tracer_now_ns() - mono_ns);
}

/* Names the stacks against the maps as they are now (or as last seen, if
 * the target exited) and fills what the report says about the target. */
static int trace_symbolize(struct trace_session *s)
{
	const struct ss_opts *o = s->o;
	struct ss_report *rep = &s->rep;
	struct proc_status now;
	int err;

	if (s->syms)
		syms__refresh(s->syms);
	err = stacks__symbolize(&s->stacks, format_frame, s->syms);
	if (!err && !s->rs.exited)
		name_tail_calls(s->syms, &s->stacks);
	if (!err && (o->out.path[SS_OUT_RECORDING] || o->json))
		err = trace_record__locate(&s->stacks, s->syms, o->pid);
	/* The samples' whole stacks too, placed as the trace's are. */
	if (!err && (o->out.path[SS_OUT_RECORDING] || o->json) && s->have_sres)
		err = trace_record__sample_stacks(&s->sres, &s->sample_stacks) ?:
		      stacks__symbolize(&s->sample_stacks, format_frame, s->syms) ?:
		      trace_record__locate(&s->sample_stacks, s->syms, o->pid);
	if (err)
		return ss_error(SS_EXIT_ERROR, "cannot name the stacks: %s", strerror(-err));
	/* A CPU that came online during the trace is the host's too. */
	if (sysconf(_SC_NPROCESSORS_ONLN) > s->host.cpus)
		s->host.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	rep->host = &s->host;
	rep->pid = o->pid;
	rep->tid = o->tid;
	/* The target may have exec'd or renamed itself since the check; a
	 * process that took its pid since is not read (target_dir). */
	snprintf(rep->comm, sizeof(rep->comm), "%s", s->target.name);
	if (!s->rs.exited && s->target_dir >= 0 && proc_read_status_at(s->target_dir, &now) == 0)
		snprintf(rep->comm, sizeof(rep->comm), "%s", now.name);
	rep->exited = s->rs.exited;
	rep->runtime = s->runtime;
	rep->duration_ns = s->prof.now_ns - s->prof.start_ns;
	rep->end_unix_ns = wall_clock_of(s->prof.now_ns);
	if (rep->duration_ns)
		host_load_between(&s->ticks0, &s->ticks1, s->host.cpus,
				  (double)s->prof.totals.oncpu_ns / (double)rep->duration_ns,
				  &rep->host_load);
	rep->profile = &s->prof;
	rep->stacks = &s->stacks;
	rep->sample_stacks = s->have_sres ? &s->sample_stacks : NULL;
	rep->futex_waitv_traced = s->feat.futex_waitv;
	rep->futex2_traced = s->feat.futex2;
	rep->sched_btf = s->feat.sched_btf;
	rep->light = s->feat.light;
	rep->fentry = s->feat.fentry;
	rep->kernel_features = &s->feat.kernel;
	rep->samples = &s->sres;
	rep->name = sym_name;
	rep->name_arg = s->syms;
	if (s->syms)
		note_symbols(s->syms, &s->stacks, &rep->symbols);
	if (s->rs.exited && o->tid)
		ss_notice("target thread %d exited after %.1f s", o->tid, rep->duration_ns / 1e9);
	else if (s->rs.exited)
		ss_notice("target exited after %.1f s", rep->duration_ns / 1e9);
	return 0;
}

/* The text report, written to stdout in one go (see outfile__stdout); a
 * series of -i lines ends with the verdict in one line before it. */
static int fill_text_report(FILE *f, void *arg)
{
	const struct trace_session *s = arg;

	if (s->o->interval_s > 0 && s->advice) {
		fprintf(f, "[    end] ");
		verdict__print_line(s->advice, f);
		fputc('\n', f);
	}
	report_print_text(&s->rep, f);
	return 0;
}

/* Writes the report: the files of outputs.h, then stdout as JSON or text.
 * A file that cannot be written is said and exits 1, but stdout still
 * gets the whole report. */
static int trace_render(struct trace_session *s)
{
	const struct ss_opts *o = s->o;
	struct ss_output_src src = { .rep = &s->rep, .resolve = trace_exports__pprof_resolve,
				     .resolve_arg = s->syms };
	json_object *doc = NULL;
	int err = 0, file_code, doc_code;

	file_code = outputs_write(&o->out, SS_STAGE_REPORT, &src, file_failed, (void *)o);
	trace_exports__final(&s->ex, &s->rep);
	/* After the page, as `report --html` makes it: the recording keeps
	 * the advisor's input, the text header its NUMA nodes, the text what
	 * the samples' data addresses were. */
	s->rep.advisor_input = s->advice ? &s->advice_in.profile : NULL;
	if (o->json || o->out.path[SS_OUT_RECORDING]) {
		s->rep.fingerprint = trace_record__fingerprint();
		s->rep.calibration = trace_record__calibration(o->calibration_path, s->host.machine,
								 s->advice);
		s->rep.intervals = s->intervals;
		doc = report_to_json(&s->rep);
	}
	src.doc = doc;
	doc_code = outputs_write(&o->out, SS_STAGE_DOCUMENT, &src, file_failed, (void *)o);
	file_code = doc_code ?: file_code;
	if (o->out.path[SS_OUT_RECORDING] && !doc_code && !o->json)
		ss_notice("report saved to %s", o->out.path[SS_OUT_RECORDING]);
	if (o->json)
		err = emit_json(doc, o->interval_s > 0);
	else
		err = outfile__stdout_stream(fill_text_report, s);
	json_object_put(doc);
	return err ? stdout_failed(err) : file_code;
}

static void trace_session__free(struct trace_session *s)
{
	trace_exports__close(&s->ex);
	pyframes__close(s->py);
	free(s->advice);
	advice__free_input(&s->advice_in);
	json_object_put(s->rep.fingerprint);
	json_object_put(s->rep.calibration);
	json_object_put(s->intervals);
	syms__free(s->syms);
	if (s->have_sres)
		samples_result__free(&s->sres);
	samples__free(s->smp);
	tracer__free(s->t);
	stacks__free(&s->stacks);
	stacks__free(&s->sample_stacks);
	profile_free(&s->prof);
	if (s->rs.pidfd >= 0)
		close(s->rs.pidfd);
	if (s->target_dir >= 0)
		close(s->target_dir);
	if (s->signals_blocked)
		signals_restore(&s->rs);
}

/* The pipeline: check, open, attach, collect the maps into the model,
 * detach, symbolize, advise, render. */
int trace_run(const struct ss_opts *o)
{
	struct trace_session s = { .o = o, .rs = { .sigfd = -1, .pidfd = -1 }, .target_dir = -1 };
	int code, err;

	/* A closed stdout must not kill us while attached: EPIPE instead. */
	signal(SIGPIPE, SIG_IGN);
	tracer_set_verbose(o->verbose);
	code = trace_check(&s) ?: trace_open(&s) ?: trace_attach(&s) ?: trace_collect(&s) ?:
	       trace_detach(&s);
	if (!code)
		trace_jvm_map(&s);
	code = code ?: trace_symbolize(&s);
	if (!code) {
		err = trace_advise(&s.rep, o, &s.rs.old_mask, &s.advice_in, &s.advice);
		if (err)
			ss_warn("no advice: the advisor failed: %s", strerror(-err));
		s.rep.advice = s.advice;
		s.rep.brief = o->brief;
		code = trace_render(&s);
	}
	trace_session__free(&s);
	return code;
}

int trace_opts_settle(struct ss_opts *o, void (*help)(FILE *out))
{
	const struct perf_event_spec *spec;
	char why[512];

	if (o->help) {
		help(stdout);
		return -1;
	}
	if (o->version) {
		ss_print_version(stdout);
		return -1;
	}
	ss_set_json_errors(o->json);
	/* Before anything is attached: a taken port, a token file that
	 * cannot serve, each one line. */
	if (metrics_http__check(o->metrics_addr, o->metrics_token_file, o->metrics_token, why, sizeof(why)))
		return ss_error(SS_EXIT_USAGE, "%s", why);
	return o->event ? perf_event__parse_arg(o->event, &spec) : 0;
}

int cmd_trace(int argc, char **argv)
{
	struct ss_opts o;
	char err[256];
	int code;

	code = ss_opts_parse(argc, argv, &o, err, sizeof(err));
	if (code) {
		ss_error(code, "%s", err);
		fputs(ss_usage_line, stderr);
		return code;
	}
	code = trace_opts_settle(&o, ss_print_help);
	if (!code)
		code = trace_run(&o);
	/* The server wiped its copy at its stop; this is the other. */
	explicit_bzero(o.metrics_token, sizeof(o.metrics_token));
	return code < 0 ? 0 : code;
}

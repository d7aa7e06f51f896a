// SPDX-License-Identifier: GPL-2.0
/*
 * `spinscope -p PID`: check the target and our privileges, load and attach,
 * wait for the end (duration, SIGINT/SIGTERM/SIGHUP, or the target's exit)
 * while printing interval summaries, then detach and report.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "report/advice.h"
#include "trace/btf_locate.h"
#include "calib/calib_host.h"
#include "cli.h"
#include "commands.h"
#include "common/errors.h"
#include "report/folded.h"
#include "trace/perf_events.h"
#include "trace/privs.h"
#include "common/procfs.h"
#include "report/recording.h"
#include "report/report.h"
#include "trace/samples.h"
#include "model/stacks.h"
#include "syms/syms.h"
#include "trace_cmd.h"
#include "trace/tracer.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
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

/* Copies the stacks the report shows (all of them for --folded) before
 * the maps go away. */
static int collect_stacks(struct tracer *t, const struct ss_profile *p, bool all,
			  struct ss_stacks *s)
{
	size_t nf = all ? p->nfutexes : SS_REPORT_TOP_FUTEXES;
	size_t ns = all ? SIZE_MAX : SS_REPORT_TOP_STACKS;
	int err = 0;

	for (size_t i = 0; i < p->nfutexes && i < nf; i++)
		for (size_t k = 0; k < p->futexes[i].nstacks && k < ns; k++)
			err = err ?: stacks__add(s, p->futexes[i].stacks[k].stack_id, read_stack_cb, t);
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

/* Runs the advisor on the trace; *out is NULL when it could not run. When
 * this host has no calibration of what the findings rest on, measures just
 * that (unless told not to) and runs the advisor again. */
static int run_advisor(const struct ss_report *rep, const struct samples_result *sr,
		       struct syms *syms, const struct ss_opts *o, const sigset_t *mask,
		       struct adv_report **out)
{
	struct advice_target tgt = {
		.pid = rep->pid, .comm = rep->comm, .duration_ns = rep->duration_ns,
		.is_jvm = proc_maps_has("/proc", rep->pid, "/libjvm.so"),
		.ncpus = proc_allowed_cpus(rep->pid),
	};
	struct advice_input in;
	struct adv_host host;
	char needed[128];
	int err, cal;

	*out = NULL;
	if (tgt.ncpus <= 0)	/* exited: the host's CPUs are what it had */
		tgt.ncpus = rep->host->cpus;
	if (!tgt.duration_ns)
		return 0;
	err = advice__build_profile(&in, &tgt, rep->profile, rep->stacks, sr, sym_name, syms);
	if (err)
		return err;
	*out = calloc(1, sizeof(**out));
	if (!*out) {
		err = -ENOMEM;
		goto out;
	}
	calib_host__load(&host, o->calibration_path, rep->host->machine);
	err = advisor__run(&in.profile, &host, *out);
	calib_host__needed(*out, &host, needed, sizeof(needed));
	if (!err && needed[0] && !o->no_calibrate) {
		fprintf(stderr, "spinscope: the advice needs %s measured on this host: calibrating now (a few seconds; --no-calibrate skips this)\n",
			needed);
		if (o->stop_target_to_calibrate)
			kill(rep->pid, SIGSTOP);
		cal = calib_host__measure(needed, o->calibration_path, mask);
		if (o->stop_target_to_calibrate)
			kill(rep->pid, SIGCONT);
		if (cal == 0) {
			calib_host__load(&host, o->calibration_path, rep->host->machine);
			err = advisor__run(&in.profile, &host, *out);
		} else {
			ss_warn("the calibration did not complete: advice rests on the trace alone");
		}
	}
out:
	if (err) {
		free(*out);
		*out = NULL;
	}
	advice__free_input(&in);
	return err;
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

static int emit_json(json_object *o, bool one_line)
{
	int flags = one_line ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;

	flags |= JSON_C_TO_STRING_NOSLASHESCAPE;
	if (puts(json_object_to_json_string_ext(o, flags)) == EOF || fflush(stdout) == EOF)
		return -EIO;
	return 0;
}

static int print_interval(const struct ss_opts *o, struct tracer *t, struct ss_profile *prev,
			  __u64 start_ns)
{
	struct ss_profile cur, diff;
	int err = tracer__read(t, &cur);

	if (err)
		return err;
	err = profile_diff(&cur, prev->threads ? prev : NULL, &diff);
	if (!err) {
		double t_s = (cur.now_ns - start_ns) / 1e9;

		if (o->json) {
			json_object *j = report_interval_json(&diff, t_s);

			err = emit_json(j, true);
			json_object_put(j);
		} else {
			report_print_interval_text(&diff, t_s, stdout);
			if (fflush(stdout) == EOF)
				err = -EIO;
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

/* Look for an exec this often: a new program image needs new maps. */
#define EXEC_CHECK_MS 1000

static int trace_loop(const struct ss_opts *o, struct tracer *t, struct run_state *rs,
		      struct syms *syms, __u64 start_ns)
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
		if (wait_event(rs, o->pid, timeout))
			break;
		if (exe_changed(o->pid, &exe_dev, &exe_ino) && syms)
			syms__refresh(syms);
		now = tracer_now_ns();
		if (end_ns && now >= end_ns)
			break;
		if (next_ns && now >= next_ns) {
			err = print_interval(o, t, &prev, start_ns);
			if (err)
				break;
			next_ns += step_ns;
		}
	}
	profile_free(&prev);
	return err;
}

int trace_run(const struct ss_opts *o)
{
	struct run_state rs = { .sigfd = -1, .pidfd = -1 };
	struct tracer_opts topts = {
		.pid = o->pid, .tid = o->tid, .verbose = o->verbose,
		.max_threads = o->max_threads, .max_futexes = o->max_futexes,
		.max_stacks = o->max_stacks,
		.stack_interval_ns = (__u64)(o->stack_interval_ms * 1e6),
	};
	struct ss_report rep = {0};
	struct ss_profile prof = {0};
	struct ss_stacks stacks = {0};
	struct samples_opts sopts = {
		.pid = o->pid, .tid = o->tid, .event = o->event, .max_stacks = o->max_stacks,
	};
	struct samples_result sres = {0};
	struct samples *smp = NULL;
	bool have_sres = false;
	FILE *folded = NULL;
	struct adv_report *advice = NULL;
	json_object *doc = NULL;
	struct syms *syms = NULL;
	struct tracer_features feat;
	struct proc_status st, now;
	struct host_info host;
	struct tracer *t = NULL;
	char why[1024], btf[512];
	__u64 start_ns, t0;
	uint64_t caps;
	int code, err, nthreads;

	tracer_set_verbose(o->verbose);
	code = proc_check_target("/proc", o->pid, o->tid, &st, why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	if (privs_effective(&caps))
		return ss_error(SS_EXIT_PERM, "cannot read this process's capabilities: %s", strerror(errno));
	code = privs_check_caps(caps, why, sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	host_info_read("/proc", &host);
	code = btf_locate(o->btf_path, "/sys/kernel/btf/vmlinux", host.kernel, btf, sizeof(btf), why,
			  sizeof(why));
	if (code)
		return ss_error(code, "%s", why);
	topts.btf_custom_path = btf[0] ? btf : NULL;

	/* A path we cannot write must fail now, not after the trace. */
	if (o->output_path && (code = recording__check_path(o->output_path, why, sizeof(why))))
		return ss_error(code, "%s", why);
	if (o->folded_path && !(folded = fopen(o->folded_path, "we")))
		return ss_error(SS_EXIT_USAGE, "cannot write folded stacks to %s: %s", o->folded_path,
				strerror(errno));

	t0 = tracer_now_ns();
	t = tracer__open(&topts, &code, why, sizeof(why));
	if (!t) {
		code = ss_error(code, "%s", why);
		goto out;
	}
	/* A missing PMU is not a failure: smp is then marked unavailable. */
	smp = samples__open(&sopts, why, sizeof(why));
	if (!smp) {
		code = ss_error(errno == EPERM || errno == EACCES ? SS_EXIT_PERM :
				errno == EINVAL ? SS_EXIT_USAGE : SS_EXIT_BPF, "%s", why);
		goto out;
	}
	if (o->verbose)
		fprintf(stderr, "spinscope: loaded in %.0f ms; BPF maps sized for %u threads, %u futex addresses, %u stacks: %.1f MiB\n",
			(tracer_now_ns() - t0) / 1e6, o->max_threads, o->max_futexes, o->max_stacks,
			tracer__map_bytes(t) / 1048576.0);
	if (tracer__map_bytes(t) > 64ull << 20)
		ss_warn("the BPF maps may lock %.0f MiB of kernel memory", tracer__map_bytes(t) / 1048576.0);

	/* Block the stop signals before attaching: none may kill us while
	 * attached without a report (the kernel detaches fd-based links
	 * anyway when the process dies). */
	err = signals_block(&rs);
	if (err) {
		code = ss_error(SS_EXIT_ERROR, "cannot set up signal handling: %s", strerror(-err));
		goto out;
	}
	rs.pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
	code = tracer__attach(t, why, sizeof(why));
	if (code) {
		code = ss_error(code, "%s", why);
		goto out;
	}
	err = samples__start(smp);
	if (err) {
		code = ss_error(SS_EXIT_BPF, "cannot start sampling %s: %s",
				o->event ? o->event : "cache-misses", strerror(-err));
		goto out;
	}
	start_ns = tracer_now_ns();
	/* Snapshot the maps now: a target that exits early is still named. */
	syms = syms__new(o->pid);
	if (!syms)
		ss_warn("cannot read the memory maps of pid %d (%s): stacks will show addresses only",
			o->pid, strerror(errno));
	if (o->verbose)
		fprintf(stderr, "spinscope: attached in %.0f ms\n", (start_ns - t0) / 1e6);
	nthreads = proc_count_threads("/proc", o->pid);
	fprintf(stderr, "spinscope: tracing futex, sched_yield and scheduler events of pid %d (%s, %d thread%s)",
		o->pid, st.name, nthreads, nthreads == 1 ? "" : "s");
	if (o->duration_s > 0)
		fprintf(stderr, " for %g s; Ctrl-C to stop early\n", o->duration_s);
	else
		fprintf(stderr, " until Ctrl-C\n");

	err = trace_loop(o, t, &rs, syms, start_ns);
	if (err) {
		code = ss_error(err == -EIO ? SS_EXIT_ERROR : SS_EXIT_BPF, "%s",
				err == -EIO ? "cannot write the report to stdout" : "cannot read the BPF maps");
		goto out;
	}
	err = tracer__read(t, &prof);
	err = err ?: collect_stacks(t, &prof, folded != NULL, &stacks);
	tracer__features(t, &feat);
	/* Detach now: the report needs nothing more from the kernel. */
	t0 = tracer_now_ns();
	samples__stop(smp);
	tracer__free(t);
	t = NULL;
	if (!err) {
		err = samples__read(smp, &sres);
		have_sres = !err;
	}
	samples__free(smp);
	smp = NULL;
	if (o->verbose)
		fprintf(stderr, "spinscope: detached in %.0f ms\n", (tracer_now_ns() - t0) / 1e6);
	if (err) {
		code = ss_error(SS_EXIT_BPF, "cannot read the BPF maps: %s", strerror(-err));
		goto out;
	}
	/* The maps as they are now (or as last seen, if the target exited). */
	if (syms)
		syms__refresh(syms);
	err = stacks__symbolize(&stacks, format_frame, syms);
	if (err) {
		code = ss_error(SS_EXIT_ERROR, "cannot name the stacks: %s", strerror(-err));
		goto out;
	}

	rep.host = &host;
	rep.pid = o->pid;
	rep.tid = o->tid;
	/* The target may have exec'd or renamed itself since the check. */
	snprintf(rep.comm, sizeof(rep.comm), "%s", st.name);
	if (!rs.exited && proc_read_status("/proc", o->pid, &now) == 0 && now.tgid == o->pid)
		snprintf(rep.comm, sizeof(rep.comm), "%s", now.name);
	rep.exited = rs.exited;
	rep.duration_ns = prof.now_ns - prof.start_ns;
	rep.profile = &prof;
	rep.stacks = &stacks;
	rep.futex_waitv_traced = feat.futex_waitv;
	rep.futex2_traced = feat.futex2;
	rep.sched_btf = feat.sched_btf;
	if (syms)
		note_symbols(syms, &stacks, &rep.symbols);
	if (rs.exited)
		fprintf(stderr, "spinscope: target exited after %.1f s\n", rep.duration_ns / 1e9);
	if (folded) {
		err = folded__write(folded, sym_name, syms, &prof, &stacks, &sres);
		if (fclose(folded) || err) {
			folded = NULL;
			code = ss_error(SS_EXIT_ERROR, "cannot write folded stacks to %s", o->folded_path);
			goto out;
		}
		folded = NULL;
	}
	err = run_advisor(&rep, have_sres ? &sres : NULL, syms, o, &rs.old_mask, &advice);
	if (err)
		ss_warn("no advice: the advisor failed: %s", strerror(-err));
	if (o->json || o->output_path) {
		rep.samples = samples__to_json(&sres, sym_name, syms);
		rep.advice = advice ? advice__to_json(advice) : NULL;
		doc = report_to_json(&rep);
	}
	if (o->output_path) {
		err = recording__save(o->output_path, doc);
		if (err) {
			code = ss_error(SS_EXIT_ERROR, "cannot write the report to %s: %s", o->output_path,
					strerror(-err));
			goto out;
		}
		if (!o->json)
			fprintf(stderr, "spinscope: report saved to %s\n", o->output_path);
	}
	if (o->json) {
		err = emit_json(doc, o->interval_s > 0);
	} else {
		report_print_text(&rep, stdout);
		samples__print_text(&sres, stdout, sym_name, syms, 10);
		fputc('\n', stdout);
		if (advice)
			advice__print_text(advice, stdout);
		err = fflush(stdout) == EOF ? -EIO : 0;
	}
	code = err ? ss_error(SS_EXIT_ERROR, "cannot write the report to stdout: %s", strerror(-err)) : 0;
out:
	json_object_put(doc);
	json_object_put(rep.samples);
	json_object_put(rep.advice);
	free(advice);
	syms__free(syms);
	if (folded)
		fclose(folded);
	if (have_sres)
		samples_result__free(&sres);
	samples__free(smp);
	tracer__free(t);
	stacks__free(&stacks);
	profile_free(&prof);
	if (rs.pidfd >= 0)
		close(rs.pidfd);
	signals_restore(&rs);
	return code;
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
	if (o.help) {
		ss_print_help(stdout);
		return 0;
	}
	if (o.version) {
		printf("spinscope %s\n", SS_VERSION);
		return 0;
	}
	ss_set_json_errors(o.json);
	if (o.event) {
		const struct perf_event_spec *spec;

		code = perf_event__parse_arg(o.event, &spec);
		if (code)
			return code;
	}
	return trace_run(&o);
}

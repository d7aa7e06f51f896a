// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle of trace.bpf.c: open -> configure (target, map sizes) -> load
 * -> attach, each step checked, plus reading the maps into a profile.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/errors.h"
#include "common/names.h"
#include "common/procfs.h"
#include "model/counters.h"
#include "exited_sites.h"
#include "light.h"
#include "map_read.h"
#include "shared_progs.h"
#include "syscall_layout.h"
#include "trace_object.h"
#include "tracer.h"
#include "unwind_maps.h"
#include "thread_exit.h"

#define MAX_LINKS 32

struct tracer {
	struct trace *skel;
	struct light_tracer *light;	/* --light: the scheduler-only programs */
	struct bpf_link *links[MAX_LINKS];	/* fd-based: die with the process */
	int nlinks;
	struct tracer_features features;
	struct shared_progs shared;	/* programs attached to two tracepoints */
	struct unwind_maps unwind;
	int verbose;
	int pid, tid;
	int proc_dir;		/* the target's /proc/PID (< 0: none; names stay BPF's) */
	struct exited_sites moved;	/* exited threads' waiter and release entries */
	__u64 folds_drained;	/* bss->threads_folded when they were last moved */
};

static const char *const default_tracefs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing", NULL
};

/* Tracepoints the report cannot do without. */
static const char *const required_events[] = {
	"syscalls/sys_enter_futex", "syscalls/sys_exit_futex",
	"syscalls/sys_enter_sched_yield",
};

int tracefs_has_event(const char *const *roots, const char *event)
{
	bool mounted = false;

	for (int i = 0; roots[i]; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/events", roots[i]);
		/* AT_EACCESS: with our effective capabilities, as opening it will
		 * (access() drops them for a non-root caller: CAP_DAC_READ_SEARCH
		 * would not count). */
		if (faccessat(AT_FDCWD, path, F_OK, AT_EACCESS)) {
			if (errno == EACCES)
				return -2;
			continue;
		}
		mounted = true;
		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], event);
		if (faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) == 0)
			return 1;
	}
	return mounted ? 0 : -1;
}

/*
 * Hosts that never mounted tracefs (this VM, minimal containers) still have
 * it in the kernel. Mount it where only we see it: in a private mount
 * namespace of our own, which vanishes with us, so the host's mount table
 * is never changed. Works only while we are single-threaded.
 */
static int tracefs_mount_err;	/* why our private mount failed; 0: it did not */

static int tracefs_mount_private(const char *const *roots, int verbose)
{
	if (unshare(CLONE_NEWNS))
		return tracefs_mount_err = -errno;
	/* Our mounts must not propagate back into the host's namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
		return tracefs_mount_err = -errno;
	if (mount("nodev", roots[0], "tracefs", 0, NULL))
		return tracefs_mount_err = -errno;
	if (verbose)
		fprintf(stderr, "spinscope: mounted tracefs at %s in a private mount namespace\n", roots[0]);
	return 0;
}

static int verbose_level;
/* The program libbpf last said it could not load, for our error line. */
static char failed_prog[64];

static void note_failed_prog(const char *line)
{
	const char *p = strstr(line, "prog '"), *end;

	if (!p || !strstr(line, "failed to load"))
		return;
	p += strlen("prog '");
	end = strchr(p, '\'');
	if (end && end - p < (long)sizeof(failed_prog))
		snprintf(failed_prog, sizeof(failed_prog), "%.*s", (int)(end - p), p);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];

	if (level == LIBBPF_DEBUG && verbose_level < 2)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	if (level == LIBBPF_WARN)
		note_failed_prog(line);
	/* libbpf's own chatter only with -v; our errors say what failed. */
	return verbose_level ? fputs(line, stderr) : 0;
}

void tracer_set_verbose(int level)
{
	verbose_level = level;
	libbpf_set_print(libbpf_print);
}

__u64 tracer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int set_sizes(struct trace *skel, const struct tracer_opts *o)
{
	int err = 0;

	err = err ?: bpf_map__set_max_entries(skel->maps.threads, o->max_threads);
	err = err ?: bpf_map__set_max_entries(skel->maps.futexes, o->max_futexes);
	err = err ?: bpf_map__set_max_entries(skel->maps.waiters, 2 * o->max_futexes);
	err = err ?: bpf_map__set_max_entries(skel->maps.release_sites, o->max_futexes);
	err = err ?: bpf_map__set_max_entries(skel->maps.yield_sites, o->max_stacks);
	err = err ?: bpf_map__set_max_entries(skel->maps.stacks, o->max_stacks);
	return err;
}

/*
 * Whether the hash maps may take their memory as entries are made
 * (BPF_F_NO_PREALLOC) rather than all at load: from 6.1 the kernel's BPF
 * allocator (struct bpf_mem_alloc) makes run-time allocation safe in
 * tracing programs, and the default sizes then hold what the target uses
 * (kilobytes for a few threads) instead of about 11 MiB at once. Before
 * 6.1 the verifier accepts such a map in a tracing program only with a
 * kernel warning (WARN_ONCE, which taints the kernel) and PREEMPT_RT
 * refuses it: those keep preallocated maps. The kernel's BTF is the probe;
 * loading a program to find out would itself warn on the old kernels.
 */
static bool maps_grow_as_used(const struct btf *kernel_btf)
{
	return kernel_btf && btf__find_by_name_kind(kernel_btf, "bpf_mem_alloc", BTF_KIND_STRUCT) > 0 &&
	       !attach_kernel_is_rt();
}

/* Every hash map of the object grows as used where the kernel allows: only
 * tracing programs use them (the sampler's perf_event programs, which must
 * have preallocated maps, have their own object). 0 or an SS_EXIT_*. */
static int choose_map_allocation(struct tracer *t, const struct btf *kernel_btf, char *why,
				 size_t whylen)
{
	struct bpf_map *m;
	int err = 0;

	t->features.maps_grow = maps_grow_as_used(kernel_btf);
	bpf_object__for_each_map(m, t->skel->obj)
		if (!err && t->features.maps_grow && (bpf_map__type(m) == BPF_MAP_TYPE_HASH ||
						      bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_HASH))
			err = bpf_map__set_map_flags(m, bpf_map__map_flags(m) | BPF_F_NO_PREALLOC);
	if (err)
		snprintf(why, whylen, "cannot set up the BPF maps: %s", strerror(-err));
	return err ? SS_EXIT_BPF : 0;
}

/* Picks the program variants this kernel can run: optional tracepoints it
 * may lack, and tp_btf or raw_tp for the scheduler. */
static void disable_missing(struct tracer *t, const char *const *roots,
			    const struct tracer_opts *o)
{
	struct trace *s = t->skel;

	t->features.futex_waitv = tracefs_has_event(roots, "syscalls/sys_enter_futex_waitv") == 1;
	t->features.futex2 = tracefs_has_event(roots, "syscalls/sys_enter_futex_wait") == 1 &&
			     tracefs_has_event(roots, "syscalls/sys_enter_futex_wake") == 1 &&
			     tracefs_has_event(roots, "syscalls/sys_enter_futex_requeue") == 1;
	if (!t->features.futex_waitv) {
		bpf_program__set_autoload(s->progs.futex_enter_waitv, false);
		bpf_program__set_autoload(s->progs.futex_exit_waitv, false);
	}
	/* tp_btf needs the running kernel's own BTF; --btf files serve CO-RE
	 * only, so without a usable /sys/kernel/btf/vmlinux (the probe then
	 * fails) the raw_tp set is used. */
	t->features.sched_btf = !o->btf_custom_path && t->features.kernel.tp_btf.ok;
	bpf_program__set_autoload(t->features.sched_btf ? s->progs.sched_switch_raw
							: s->progs.sched_switch_btf, false);
	bpf_program__set_autoload(t->features.sched_btf ? s->progs.sched_waking_raw
							: s->progs.sched_waking_btf, false);
	bpf_program__set_autoload(t->features.sched_btf ? s->progs.sched_wakeup_new_raw
							: s->progs.sched_wakeup_new_btf, false);
	if (!t->features.futex2) {
		bpf_program__set_autoload(s->progs.futex_enter_wait2, false);
		bpf_program__set_autoload(s->progs.futex_exit_wait2, false);
		bpf_program__set_autoload(s->progs.futex_enter_wake2, false);
		bpf_program__set_autoload(s->progs.futex_exit_wake2, false);
		bpf_program__set_autoload(s->progs.futex_enter_requeue2, false);
		bpf_program__set_autoload(s->progs.futex_exit_requeue2, false);
	}
}

/*
 * We run with the capabilities already checked, so a refusal now is the
 * kernel's (the verifier, a context read past the event's record), not
 * missing privileges: only EPERM may still be those (lockdown, an LSM).
 */
static int errno_code(int err)
{
	err = err < 0 ? -err : err;
	return err == EPERM ? SS_EXIT_PERM : SS_EXIT_BPF;
}

/*
 * The BTF CO-RE relocates against: the --btf file or the kernel's own. An
 * empty or corrupt /sys/kernel/btf/vmlinux must say so (libbpf's errno,
 * ESRCH, read "No such process"), and its syscall records must match the
 * tracepoints' real layout (see syscall_layout.h). Also keeps the kernel's
 * own BTF, when usable, for the feature probes' attach targets.
 */
static int check_btf(struct tracer *t, const struct tracer_opts *o, const char *const *roots,
		     struct btf **kernel_btf, char *why, size_t whylen)
{
	const char *name = o->btf_custom_path ?: "/sys/kernel/btf/vmlinux";
	struct btf *core = o->btf_custom_path ? btf__parse(name, NULL) : btf__load_vmlinux_btf();
	struct btf *kernel = o->btf_custom_path ? btf__parse("/sys/kernel/btf/vmlinux", NULL) : core;
	int code = 0;

	if (!core) {
		snprintf(why, whylen, "cannot read the kernel BTF %s (%s): it is empty or corrupt; pass a vmlinux with a .BTF section or a .btf file of this kernel with --btf FILE",
			 name, strerror(errno));
		code = SS_EXIT_KERNEL;
	} else {
		/* --light reads no syscall tracepoint record. */
		code = o->light ? 0 : syscall_layout_check(roots, core, name, why, whylen);
	}
	if (kernel != core)
		btf__free(core);
	*kernel_btf = NULL;
	if (code) {
		btf__free(kernel);
		return code;
	}
	kernel_features_probe(&t->features.kernel, kernel, roots);
	t->features.kfuncs = trace_object_kfuncs(kernel);
	t->features.switch_state = kernel_switch_passes_state(kernel);
	if (o->verbose) {
		char line[512];

		kernel_features_describe(&t->features.kernel, line, sizeof(line));
		fprintf(stderr, "spinscope: kernel features: %s\n", line);
		fprintf(stderr, "spinscope: BPF object: trace.bpf.c %s\n",
			t->features.kfuncs ? "with kfuncs (bpf_rdonly_cast)"
					   : "without kfuncs (the kernel's own BTF has none)");
	}
	/* The caller keeps the kernel's own: it names fentry's targets. */
	*kernel_btf = kernel;
	return 0;
}

/* Loads; on failure names the program the kernel refused, when libbpf said. */
/* Sets the fentry programs' targets in kernel_btf, then loads: libbpf
 * 1.1 keeps the kernel BTF that setting a target reads (18 MB) until the
 * object loads, and a close without a load leaks it. */
static int load_programs(struct tracer *t, const struct btf *kernel_btf, char *why, size_t whylen)
{
	const char *hint = t->verbose ? "" : " (run with -v for libbpf's log)";
	int err;

	err = t->features.fentry ? attach_set_targets(t->skel->obj, kernel_btf) : 0;
	if (err) {
		snprintf(why, whylen, "cannot set the fentry programs' attach targets: %s",
			 strerror(-err));
		return SS_EXIT_BPF;
	}
	failed_prog[0] = 0;
	err = trace__load(t->skel);
	if (!err)
		return 0;
	if (failed_prog[0])
		snprintf(why, whylen, "the kernel refused to load BPF program %s: %s%s", failed_prog,
			 strerror(-err), hint);
	else
		snprintf(why, whylen, "cannot load the BPF programs: %s%s", strerror(-err), hint);
	return errno_code(err);
}

/* --light: trace.bpf.c keeps its maps and its rare scheduler programs (new
 * threads, exits); light.bpf.c's programs on sched_switch and sched_waking
 * do the on/off-CPU and run-queue accounting and recognise futex waits,
 * wakes and yields, into those maps. */
static struct light_tracer *open_light(struct tracer *t, const struct tracer_opts *o, int *code,
				       char *why, size_t whylen)
{
	struct light_opts lo = {
		.pid = o->pid, .tid = o->tid, .stack_interval_ns = o->stack_interval_ns,
		.sched_btf = t->features.sched_btf, .btf_custom_path = o->btf_custom_path,
		.kfuncs = t->features.kfuncs,
		.switch_state = t->features.switch_state,
	};

	t->features.light = true;
	return light_tracer__open(t->skel->obj, &lo, o->verbose, code, why, whylen);
}

/* Names a missing tracepoint before libbpf fails on it: 0 or an SS_EXIT_*. */
static int check_required_events(const char *const *roots, char *why, size_t whylen)
{
	for (size_t i = 0; i < sizeof(required_events) / sizeof(required_events[0]); i++) {
		int has = tracefs_has_event(roots, required_events[i]);

		if (has == 1)
			continue;
		if (has == -2) {
			snprintf(why, whylen, "insufficient privileges: cannot read tracefs at %s (uid %d): run spinscope as root (sudo), or give it CAP_DAC_READ_SEARCH besides CAP_BPF and CAP_PERFMON",
				 roots[0], (int)geteuid());
			return SS_EXIT_PERM;
		}
		/* The kernel has it; we may not mount it (CAP_SYS_ADMIN). */
		if (has == -1 && (tracefs_mount_err == -EPERM || tracefs_mount_err == -EACCES)) {
			snprintf(why, whylen, "insufficient privileges: tracefs is not mounted at %s, and mounting it needs CAP_SYS_ADMIN: have root mount it (mount -t tracefs nodev /sys/kernel/tracing), or run spinscope as root",
				 roots[0]);
			return SS_EXIT_PERM;
		}
		if (has < 0)
			snprintf(why, whylen, "tracefs is not mounted at %s or %s: mount it (mount -t tracefs nodev /sys/kernel/tracing); spinscope needs tracepoint %s",
				 roots[0], roots[1] ? roots[1] : "-", required_events[i]);
		else
			snprintf(why, whylen, "this kernel has no tracepoint %s (needs CONFIG_FTRACE_SYSCALLS=y)",
				 required_events[i]);
		return SS_EXIT_KERNEL;
	}
	return 0;
}

/* The programs' read-only settings (targ_*), before load. */
static void set_settings(struct tracer *t, const struct tracer_opts *o)
{
	t->skel->rodata->targ_tgid = o->pid;
	t->skel->rodata->targ_tid = o->tid;
	t->skel->rodata->targ_stack_interval_ns = o->stack_interval_ns;
	t->skel->rodata->targ_switch_state = t->features.switch_state;
}

/* *fentry_refused: the fentry programs were chosen and did not load. */
static struct tracer *open_once(const struct tracer_opts *o, bool *fentry_refused, int *code,
				char *why, size_t whylen)
{
	const char *const *roots = o->tracefs_roots[0] ? o->tracefs_roots : default_tracefs;
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = o->btf_custom_path);
	struct btf *kernel_btf = NULL;
	struct tracer *t;
	int err;

	tracer_set_verbose(o->verbose);

	if (tracefs_has_event(roots, required_events[0]) == -1)
		tracefs_mount_private(roots, o->verbose);
	if (o->light && (*code = light_check_kernel(why, whylen)))
		return NULL;
	if (!o->light && (*code = check_required_events(roots, why, whylen)))
		return NULL;

	t = calloc(1, sizeof(*t));
	if (!t) {
		*code = SS_EXIT_ERROR;
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	t->verbose = o->verbose;
	t->pid = o->pid;
	t->tid = o->tid;
	t->proc_dir = proc_open_pid_dir("/proc", o->pid, o->starttime);
	*code = check_btf(t, o, roots, &kernel_btf, why, whylen);
	if (*code)
		goto fail;
	t->skel = trace_object_open(&open_opts, t->features.kfuncs);
	if (!t->skel) {
		err = -errno;
		*code = SS_EXIT_BPF;
		snprintf(why, whylen, "cannot open the BPF object: %s", strerror(-err));
		goto fail;
	}
	set_settings(t, o);
	err = set_sizes(t->skel, o);
	if (err) {
		*code = SS_EXIT_BPF;
		snprintf(why, whylen, "cannot size the BPF maps: %s", strerror(-err));
		goto fail;
	}
	disable_missing(t, roots, o);
	*code = attach_choose(o->attach, o->light,
			      &(struct attach_kernel){ .features = &t->features.kernel,
						       .btf = kernel_btf,
						       .preempt_rt = attach_kernel_is_rt() },
			      t->skel->obj, &t->features.fentry, why, whylen);
	*code = *code ?: choose_map_allocation(t, kernel_btf, why, whylen);
	if (*code)
		goto fail;
	if (o->light)
		light_disable_replaced_programs(t->skel->obj);
	if (o->unwind_wait)
		o->unwind_wait(o->unwind_wait_arg);
	/* --light's programs share this object's stack map and fill it through
	 * bpf_get_stackid: no unwinding there, the map keeps its size. */
	unwind_maps__prepare(&t->unwind, t->skel->obj, t->skel->maps.stacks,
			     (__u32 *)&t->skel->rodata->targ_unwind_rows, o->light ? NULL : o->unwind,
			     o->max_stacks, o->verbose);
	shared_progs__choose(&t->shared, t->skel->obj);
	*code = load_programs(t, kernel_btf, why, whylen);
	btf__free(kernel_btf);
	kernel_btf = NULL;
	*fentry_refused = *code && t->features.fentry;
	if (*code)
		goto fail;
	/* Without the table BPF finds no module in it: frame pointers only. */
	err = unwind_maps__fill(&t->unwind);
	if (err && o->verbose)
		fprintf(stderr, "spinscope: cannot load the unwind table: %s\n", strerror(-err));
	if (o->light && !(t->light = open_light(t, o, code, why, whylen)))
		goto fail;
	return t;
fail:
	btf__free(kernel_btf);
	tracer__free(t);
	return NULL;
}

/*
 * Opens the tracer with the mechanism asked for. Under --attach=auto, should
 * the first open have refused the fentry programs (fentry_refused), the
 * tracepoints are tried; auto itself keeps to the tracepoints
 * (attach_choose() in attach.c says why).
 */
struct tracer *tracer__open(const struct tracer_opts *o, int *code, char *why, size_t whylen)
{
	struct tracer_opts tp = *o;
	bool fentry_refused = false;
	struct tracer *t = open_once(o, &fentry_refused, code, why, whylen);

	if (t || o->attach != TRACER_ATTACH_AUTO || !fentry_refused)
		return t;
	if (o->verbose)
		fprintf(stderr, "spinscope: fentry programs did not load (%s); using syscall tracepoints\n",
			why);
	tp.attach = TRACER_ATTACH_TRACEPOINT;
	return open_once(&tp, &fentry_refused, code, why, whylen);
}

static bool thread_running(int pid, __u32 tid)
{
	struct proc_status st;
	char root[64];

	snprintf(root, sizeof(root), "/proc/%d/task", pid);
	return proc_read_status(root, tid, &st) == 0 && st.state == 'R';
}

/*
 * Threads rename themselves (pthread_setname_np) after BPF first saw them;
 * the name is read here rather than on every switch in the kernel, through
 * the target's own /proc folder: once it has exited, a process that took
 * its pid is never read. A thread that has exited keeps the name it had
 * when first seen.
 */
static void refresh_comm(const struct tracer *t, struct ss_thread *th)
{
	char name[sizeof(th->comm)];

	if (t->proc_dir >= 0 && proc_read_comm_at(t->proc_dir, (int)th->tid, name, sizeof(name)) == 0)
		memcpy(th->comm, name, sizeof(th->comm));
}

static void seed_thread(struct tracer *t, __u32 tid)
{
	int slots = bpf_map__fd(t->skel->maps.thread_slots);
	int owners = bpf_map__fd(t->skel->maps.thread_slot_owners);
	__u32 slot = tid % SS_THREAD_SLOTS;
	struct ss_thread th = { .tid = tid };

	/* Its slot if free, else the threads hash: the rule of thread_get()
	 * (bpf/sched_account.bpf.h), so that BPF finds it where it looks.
	 * Before attach: no program has taken a slot yet. */
	if (bpf_map_update_elem(owners, &slot, &tid, BPF_NOEXIST) == 0)
		bpf_map_update_elem(slots, &slot, &th, BPF_ANY);
	else
		bpf_map_update_elem(bpf_map__fd(t->skel->maps.threads), &th.tid, &th, BPF_NOEXIST);
}

/*
 * Seeds the thread records with the threads alive at attach, so that
 * threads that never switch during the trace (a main thread in pause())
 * are shown. Only their tids: read_threads() names the threads alive at
 * the end, the kernel those that exit (a thousand names read here were a
 * tenth of the attach time).
 */
static void seed_threads(struct tracer *t)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", t->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0 || tid > UINT32_MAX || (t->tid && tid != t->tid))
			continue;
		seed_thread(t, (__u32)tid);
	}
	closedir(d);
}

int tracer_attach_error(const char *prog, const char *section, int err, int verbose, char *why,
			size_t whylen)
{
	const char *hint = verbose ? "" : " (run with -v for libbpf's message)";

	err = err < 0 ? -err : err;
	if (err == ENOENT) {
		snprintf(why, whylen, "this kernel has no %s for BPF program %s: %s%s", section, prog,
			 strerror(err), hint);
		return SS_EXIT_KERNEL;
	}
	snprintf(why, whylen, "the kernel refused to attach BPF program %s (%s): %s%s", prog, section,
		 strerror(err), hint);
	return errno_code(err);
}

/* The exited map's record of the empty name, which its programs fold into
 * when every name's is taken (thread_exit.bpf.h): made before attach. */
static int make_exited_fallback(struct tracer *t)
{
	int ncpus = libbpf_num_possible_cpus();
	struct ss_exited_key key = { 0 };
	struct ss_exited *zero;
	int err;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	zero = calloc((size_t)ncpus, sizeof(*zero));
	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(bpf_map__fd(t->skel->maps.exited), &key, zero, BPF_ANY) ? -errno : 0;
	free(zero);
	return err;
}

int tracer__attach(struct tracer *t, char *why, size_t whylen)
{
	struct bpf_program *prog;
	int err, failed = 0;

	if ((err = make_exited_fallback(t))) {
		snprintf(why, whylen, "cannot set up the BPF maps: %s", strerror(-err));
		return errno_code(err);
	}
	/* Time zero: threads already running when we attach start here. */
	t->skel->bss->start_ns = tracer_now_ns();
	seed_threads(t);
	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		if (t->nlinks == MAX_LINKS) {
			snprintf(why, whylen, "internal error: more than %d programs", MAX_LINKS);
			return SS_EXIT_ERROR;
		}
		link = bpf_program__attach(prog);
		if (!link)
			return tracer_attach_error(bpf_program__name(prog),
						   bpf_program__section_name(prog), errno,
						   t->verbose, why, whylen);
		t->links[t->nlinks++] = link;
	}
	err = shared_progs__attach(&t->shared, t->links, &t->nlinks, MAX_LINKS, &failed);
	if (err == -E2BIG) {
		snprintf(why, whylen, "internal error: more than %d programs", MAX_LINKS);
		return SS_EXIT_ERROR;
	}
	if (err) {
		char section[128];

		snprintf(section, sizeof(section), "tracepoint/syscalls/%s",
			 t->shared.extra[failed].tracepoint);
		return tracer_attach_error(bpf_program__name(t->shared.extra[failed].prog), section,
					   err, t->verbose, why, whylen);
	}
	if (!t->light)
		return 0;
	/* Under --light the scheduler's accounting attaches last, with
	 * light.bpf.c: time zero is taken again just before it, so that no
	 * switch between the two goes unseen and counted on the wrong side. */
	t->skel->bss->start_ns = tracer_now_ns();
	return light_tracer__attach(t->light, t->skel->bss->start_ns, why, whylen);
}

/*
 * Copies the threads map, then sets the trace's end (p->now_ns) and closes
 * each thread's time at it. The end is taken after the last copy: every
 * event in a copied record then happened before it, so a thread alive
 * throughout accounts for exactly the trace's duration (an end taken
 * first let a thread that switched while the map was read count the
 * reading time twice: 19 ms once in a TCG guest).
 */
static int read_threads(struct tracer *t, struct ss_profile *p)
{
	int fd = bpf_map__fd(t->skel->maps.threads);
	int slots = bpf_map__fd(t->skel->maps.thread_slots);
	size_t cap = bpf_map__max_entries(t->skel->maps.threads) + SS_THREAD_SLOTS;
	__u32 key, next, *prev = NULL;

	p->threads = calloc(cap, sizeof(*p->threads));
	if (!p->threads)
		return -ENOMEM;
	/* The slots' records (a tid 0: a free slot), then the hash's. */
	for (__u32 slot = 0; slot < SS_THREAD_SLOTS; slot++)
		if (bpf_map_lookup_elem(slots, &slot, &p->threads[p->nthreads]) == 0 &&
		    p->threads[p->nthreads].tid)
			p->nthreads++;
	while (p->nthreads < cap && bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &p->threads[p->nthreads]) == 0)
			p->nthreads++;
		key = next;
		prev = &key;
	}
	p->now_ns = tracer_now_ns();
	for (size_t i = 0; i < p->nthreads; i++) {
		struct ss_thread *th = &p->threads[i];

		profile_close_thread(th, p->start_ns, p->now_ns,
				     !th->last_in_ns && !th->last_out_ns &&
				     thread_running(t->pid, th->tid));
		refresh_comm(t, th);
		/* Named by the target (the kernel's copy or /proc's): cleaned
		 * once here, for every renderer and recording. */
		ss_name_clean_array(th->comm, sizeof(th->comm));
	}
	return 0;
}

/* The futex record of uaddr (NULL: not read, its map was full). */
static struct ss_futex_rec *futex_rec(struct ss_profile *p, __u64 uaddr)
{
	for (size_t i = 0; i < p->nfutexes; i++)
		if (p->futexes[i].uaddr == uaddr)
			return &p->futexes[i];
	return NULL;
}

/* Has another (uaddr, tid) record of this address been counted already? */
static bool tid_seen(__u32 *tids, size_t n, __u32 tid)
{
	for (size_t i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* The key's own record, kept as well: who waited on which stack.
 * pending: a thread's pending waits (add_pending_waits()), which join its
 * share of the stack if the map had one; the map's keys are unique, so its
 * records are appended without a search. */
static int add_share(struct ss_futex_rec *r, const struct ss_waiter_key *k,
		     const struct ss_waiter_val *v, bool pending)
{
	struct ss_waiter_share *s;

	for (size_t i = 0; pending && i < r->nshares; i++) {
		s = &r->shares[i];
		if (s->stack_id == k->stack_id && s->tid == k->tid) {
			s->count += v->count;
			s->wait_ns += v->wait_ns;
			s->at_once += v->at_once;
			return 0;
		}
	}
	s = realloc(r->shares, (r->nshares + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	r->shares = s;
	s[r->nshares++] = (struct ss_waiter_share){
		.stack_id = k->stack_id, .tid = k->tid, .count = v->count, .wait_ns = v->wait_ns,
		.at_once = v->at_once,
	};
	return 0;
}

static int add_waiter(struct ss_profile *p, const struct ss_waiter_key *k,
		      const struct ss_waiter_val *v, bool pending)
{
	struct ss_futex_rec *r = futex_rec(p, k->uaddr);
	struct ss_waiter_stack *s;
	size_t j;

	if (!r)
		return 0;	/* the address itself was not recorded (map full) */
	/* tid 0: exited threads' entries, summed (add_exited_sites()). */
	if (k->tid && !tid_seen(r->tids, r->waiters, k->tid)) {
		__u32 *tids = realloc(r->tids, (r->waiters + 1) * sizeof(*tids));

		if (!tids)
			return -ENOMEM;
		r->tids = tids;
		r->tids[r->waiters++] = k->tid;
	}
	for (j = 0; j < r->nstacks; j++)
		if (r->stacks[j].stack_id == k->stack_id)
			break;
	if (j == r->nstacks) {
		s = realloc(r->stacks, (r->nstacks + 1) * sizeof(*s));
		if (!s)
			return -ENOMEM;
		r->stacks = s;
		s[r->nstacks++] = (struct ss_waiter_stack){ .stack_id = k->stack_id };
	}
	r->stacks[j].count += v->count;
	r->stacks[j].wait_ns += v->wait_ns;
	r->stacks[j].at_once += v->at_once;
	if (add_share(r, k, v, pending))
		return -ENOMEM;
	/* BPF keeps maxima per waiter (no cmpxchg before Linux 5.12). */
	if (v->wait_ns_max > r->f.wait_ns_max)
		r->f.wait_ns_max = v->wait_ns_max;
	return 0;
}

static int read_futexes(struct tracer *t, struct ss_profile *p)
{
	int fd = bpf_map__fd(t->skel->maps.futexes);
	int wfd = bpf_map__fd(t->skel->maps.waiters);
	size_t cap = bpf_map__max_entries(t->skel->maps.futexes);
	__u64 key, next, *prev = NULL;
	struct ss_waiter_key wkey, wnext, *wprev = NULL;
	struct ss_waiter_val wval;

	p->futexes = calloc(cap, sizeof(*p->futexes));
	if (!p->futexes)
		return -ENOMEM;
	while (p->nfutexes < cap && bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct ss_futex_rec *r = &p->futexes[p->nfutexes];

		if (bpf_map_lookup_elem(fd, &next, &r->f) == 0) {
			r->uaddr = next;
			p->nfutexes++;
		}
		key = next;
		prev = &key;
	}
	/* Attach each waiter stack to its address; the map keys them per
	 * thread too, so sum the threads' shares of a stack and count the
	 * distinct threads. */
	while (bpf_map_get_next_key(wfd, wprev, &wnext) == 0) {
		if (bpf_map_lookup_elem(wfd, &wnext, &wval) == 0) {
			int err = add_waiter(p, &wnext, &wval, false);

			if (err)
				return err;
		}
		wkey = wnext;
		wprev = &wkey;
	}
	return 0;
}

/*
 * Each thread's waits since its word or waiter stack last changed are
 * still pending in its record (the BPF side adds them to the waiters map
 * at the next change, ss_waiter_add()): add them here, so that the waiter
 * stacks sum to the exact waits. The final report reads detached maps;
 * a read while attached (a live export) can count a batch that moved
 * into the map between the threads' read and the waiters' twice, as the
 * yields' and releases' batches.
 */
static int add_pending_waits(struct ss_profile *p)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct ss_thread *th = &p->threads[i];
		struct ss_waiter_key k = { .uaddr = th->wait_pending_uaddr,
					   .stack_id = th->wait_pending_stack, .tid = th->tid };
		int err;

		if (th->wait_pending.count && (err = add_waiter(p, &k, &th->wait_pending, true)))
			return err;
	}
	return 0;
}

/*
 * Each thread's waits (and under --light its wakes) since its word last
 * changed are still pending in its record (struct ss_word_pending; the
 * BPF side adds them to the word's record at the next change, and made
 * that record when the word became the pending one): add them here, so
 * that the words' counts are exact. A word whose record was not read
 * (the copy stopped at the map's size) drops them, counted. As with the
 * waits' batches (add_pending_waits()), a read while attached can count a
 * batch that moved into the map between the two reads twice.
 */
/* uaddr's record for n pending counts; NULL (the n counted as dropped)
 * where the word was not read. */
static struct ss_futex_rec *pending_rec(struct ss_profile *p, __u64 uaddr, __u64 n)
{
	struct ss_futex_rec *r = n ? futex_rec(p, uaddr) : NULL;

	if (n && !r)
		p->drops[SS_DROP_FUTEXES_FULL] += n;
	return r;
}

static void add_pending_words(struct ss_profile *p)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct ss_word_pending *wp = &p->threads[i].word_pending;
		struct ss_futex_rec *r;

		if ((r = pending_rec(p, wp->wait_uaddr, wp->waits))) {
			r->f.waits += wp->waits;
			r->f.blocked += wp->wait_blocked;
			r->f.wait_ns += wp->wait_ns;
			r->f.returned_at_once += wp->wait_at_once;
			r->f.at_once_ns += wp->wait_at_once_ns;
			r->f.bitset_waits += wp->wait_bitset;
			r->f.reblocked += wp->reblocked;
			for (int k = 0; k < SS_FUTEX_OUTCOMES; k++)
				r->f.outcome[k] += wp->wait_outcome[k];
			for (int k = 0; k < SS_HIST_SLOTS; k++)
				r->f.hist[k] += wp->wait_hist[k];
		}
		/* --light's: each wake woke one waiter. */
		if ((r = pending_rec(p, wp->wake_uaddr, wp->wakes))) {
			r->f.wakes += wp->wakes;
			r->f.woken += wp->wakes;
		}
	}
}

/* Adds a release record to its address (none: the address itself was not
 * recorded, its map was full). */
static int add_release(struct ss_profile *p, const struct ss_release_key *k,
		       const struct ss_release_val *v)
{
	struct ss_futex_rec *r = futex_rec(p, k->uaddr);
	struct ss_release_rec *rel;

	if (!r)
		return 0;
	rel = realloc(r->releases, (r->nreleases + 1) * sizeof(*rel));
	if (!rel)
		return -ENOMEM;
	r->releases = rel;
	rel[r->nreleases++] = (struct ss_release_rec){ .stack_id = k->stack_id, .tid = k->tid,
						       .v = *v };
	return 0;
}

static int read_releases(struct tracer *t, struct ss_profile *p)
{
	int fd = bpf_map__fd(t->skel->maps.release_sites);
	struct ss_release_key key, next, *prev = NULL;
	struct ss_release_val val;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &val) == 0) {
			int err = add_release(p, &next, &val);

			if (err)
				return err;
		}
		key = next;
		prev = &key;
	}
	return 0;
}

/* The record of x's i-th waiter's word; *last caches the previous one
 * (each drain's tids are sorted by word). */
static struct ss_futex_rec *exited_waiter_rec(const struct exited_sites *x, size_t i,
					      struct ss_profile *p, struct ss_futex_rec **last)
{
	if (!*last || (*last)->uaddr != x->tids[i].uaddr)
		*last = futex_rec(p, x->tids[i].uaddr);
	return *last;
}

/* The exited threads' waiter tids (exited_sites.h) into their words'
 * lists, one allocation a word. */
static int add_exited_waiters(const struct exited_sites *x, struct ss_profile *p)
{
	size_t *more = calloc(p->nfutexes ? p->nfutexes : 1, sizeof(*more));
	struct ss_futex_rec *r = NULL;

	if (!more)
		return -ENOMEM;
	for (size_t i = 0; i < x->ntids; i++)
		if (exited_waiter_rec(x, i, p, &r))
			more[r - p->futexes]++;
	for (size_t i = 0; i < p->nfutexes; i++) {
		__u32 *tids;

		if (!more[i])
			continue;
		tids = realloc(p->futexes[i].tids, (p->futexes[i].waiters + more[i]) * sizeof(*tids));
		if (!tids) {
			free(more);
			return -ENOMEM;
		}
		p->futexes[i].tids = tids;
	}
	r = NULL;
	for (size_t i = 0; i < x->ntids; i++)
		if (exited_waiter_rec(x, i, p, &r))
			r->tids[r->waiters++] = x->tids[i].tid;
	free(more);
	return 0;
}

/* The exited threads' entries moved out of the maps during the trace
 * (exited_sites.h), after every per-thread merge: summed under tid 0,
 * they join no live thread's share or release record. */
static int add_exited_sites(struct tracer *t, struct ss_profile *p)
{
	const struct exited_sites *x = &t->moved;
	int err = 0;

	for (size_t i = 0; !err && i < x->waiters.n; i++)
		err = add_waiter(p, (const struct ss_waiter_key *)x->waiters.keys + i,
				 (const struct ss_waiter_val *)x->waiters.vals + i, false);
	for (size_t i = 0; !err && i < x->releases.n; i++)
		err = add_release(p, (const struct ss_release_key *)x->releases.keys + i,
				  (const struct ss_release_val *)x->releases.vals + i);
	return err ?: add_exited_waiters(x, p);
}

int tracer__drain_exited(struct tracer *t)
{
	__u64 folded = t->skel->bss->threads_folded;
	long n;

	if (folded == t->folds_drained)
		return 0;
	t->folds_drained = folded;
	n = exited_sites_drain(&t->moved, bpf_map__fd(t->skel->maps.waiters),
			       bpf_map__fd(t->skel->maps.release_sites), t->proc_dir);
	return n < 0 ? (int)n : 0;
}

/*
 * Each thread's release counts since its last wake stack are still pending
 * in its record (the BPF side adds them to the site when it takes the next
 * stack): add them to that site here, so that the sites sum to the exact
 * wakes. A site not in the map yet gets its record from add_release().
 */
static int add_pending_releases(struct ss_profile *p)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct ss_thread *th = &p->threads[i];
		struct ss_release_key k = { .uaddr = th->wake_stack_site,
					    .stack_id = th->wake_stack_id, .tid = th->tid };
		struct ss_release_rec *rel = NULL;
		struct ss_futex_rec *r;
		int err;

		if (!th->wake_pending.wakes)
			continue;
		r = futex_rec(p, k.uaddr);
		for (size_t j = 0; r && !rel && j < r->nreleases; j++)
			if (r->releases[j].stack_id == k.stack_id && r->releases[j].tid == k.tid)
				rel = &r->releases[j];
		if (rel)
			SS_COUNTERS_ADD(SS_RELEASE_COUNTERS, &rel->v, &th->wake_pending);
		else if ((err = add_release(p, &k, &th->wake_pending)))
			return err;
	}
	return 0;
}

static int read_yields(struct tracer *t, struct ss_profile *p)
{
	int fd = bpf_map__fd(t->skel->maps.yield_sites);
	size_t cap = bpf_map__max_entries(t->skel->maps.yield_sites);
	__s32 key, next, *prev = NULL;

	/* Room for one more site per thread: see add_pending_yields(). */
	p->yields = calloc(cap + p->nthreads + 1, sizeof(*p->yields));
	if (!p->yields)
		return -ENOMEM;
	while (p->nyields < cap && bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, &p->yields[p->nyields].count) == 0)
			p->yields[p->nyields++].stack_id = next;
		key = next;
		prev = &key;
	}
	return 0;
}

/*
 * Each thread's yields since its last stack are still pending in its record
 * (the BPF side adds them to the site when it takes the next stack): add
 * them here, so that the sites sum to the exact yield count.
 */
static void add_pending_yields(struct tracer *t, struct ss_profile *p)
{
	size_t cap = bpf_map__max_entries(t->skel->maps.yield_sites);

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct ss_thread *th = &p->threads[i];
		size_t k;

		if (!th->yield_pending)
			continue;
		if (th->yield_stack_id < 0) {
			p->drops[th->yield_stack_id == -EEXIST ? SS_DROP_STACK_COLLISION : SS_DROP_STACK_FAIL] +=
				th->yield_pending;
			continue;
		}
		for (k = 0; k < p->nyields; k++)
			if (p->yields[k].stack_id == th->yield_stack_id)
				break;
		if (k == p->nyields) {
			if (p->nyields >= cap) {
				p->drops[SS_DROP_YIELD_SITES_FULL] += th->yield_pending;
				continue;
			}
			p->yields[p->nyields++].stack_id = th->yield_stack_id;
		}
		p->yields[k].count += th->yield_pending;
	}
}

/* The running-threads histogram, with the time since its last change
 * given to the count it has now. */
static void read_concurrency(struct tracer *t, struct ss_profile *p)
{
	struct ss_concurrency c;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.concurrency), &zero, &c))
		return;
	memcpy(p->running_ns, c.time_ns, sizeof(p->running_ns));
	if (c.last_ns && p->now_ns > c.last_ns) {
		__s64 k = c.running < 0 ? 0 : c.running;

		p->running_ns[k >= SS_CONC_SLOTS ? SS_CONC_SLOTS - 1 : k] += p->now_ns - c.last_ns;
	}
}

/*
 * The threads that exited, folded at their exit by name (bpf/thread_exit.h),
 * each CPU's share added up; the empty name made before attach shows only
 * once a thread is in it. A read while attached can count a thread that
 * exits between the threads' read and this one twice, as the batches.
 */
static int read_exited(struct tracer *t, struct ss_profile *p)
{
	int fd = bpf_map__fd(t->skel->maps.exited), ncpus = libbpf_num_possible_cpus();
	size_t cap = bpf_map__max_entries(t->skel->maps.exited);
	struct ss_exited_key key, next, *prev = NULL;
	struct ss_exited *vals;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	p->exited = calloc(cap, sizeof(*p->exited));
	vals = calloc((size_t)ncpus, sizeof(*vals));
	if (!p->exited || !vals) {
		free(vals);
		return -ENOMEM;
	}
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct ss_totals sum = { 0 };
		struct ss_exited_group *g;

		if (bpf_map_lookup_elem(fd, &next, vals) == 0)
			for (int c = 0; c < ncpus; c++) {
				sum.threads += vals[c].threads;
				SS_COUNTERS_ADD(SS_THREAD_COUNTERS, &sum, &vals[c]);
			}
		/* Added, not set: keys that differ only after the name's NUL
		 * (bpf/thread_exit.bpf.h) are one name. */
		if (sum.threads && (g = profile_exited_group(p, next.comm, cap))) {
			g->x.threads += sum.threads;
			SS_COUNTERS_ADD(SS_THREAD_COUNTERS, &g->x, &sum);
		}
		key = next;
		prev = &key;
	}
	free(vals);
	return 0;
}

static int read_drops(struct tracer *t, struct ss_profile *p)
{
	return map_sum_percpu(bpf_map__fd(t->skel->maps.drops), SS_DROPS, p->drops);
}

/* Runs the kernel skipped (recursion protection): events we never saw. */
static __u64 prog_misses(struct bpf_object *obj)
{
	struct bpf_program *prog;
	__u64 n = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			n += info.recursion_misses;
	}
	return n;
}

int tracer__read(struct tracer *t, struct ss_profile *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->start_ns = t->skel->bss->start_ns;
	err = read_threads(t, p);	/* sets p->now_ns */
	err = err ?: read_exited(t, p);
	err = err ?: read_futexes(t, p);
	err = err ?: add_pending_waits(p);
	err = err ?: read_releases(t, p);
	err = err ?: add_pending_releases(p);
	err = err ?: add_exited_sites(t, p);
	err = err ?: read_yields(t, p);
	err = err ?: read_drops(t, p);
	if (!err) {
		add_pending_words(p);
		read_concurrency(t, p);
	}	/* after read_drops(): it may add some */
	p->drops[SS_DROP_PROG_MISSES] = prog_misses(t->skel->obj);
	if (t->light)
		p->drops[SS_DROP_PROG_MISSES] += prog_misses(light_tracer__object(t->light));
	if (!err)
		add_pending_yields(t, p);
	if (err) {
		profile_free(p);
		return err;
	}
	profile_finish(p);
	return 0;
}

int tracer__stack(struct tracer *t, __s32 stack_id, __u64 *ips, int max)
{
	int fd = unwind_maps__stack_fd(&t->unwind, stack_id, bpf_map__fd(t->skel->maps.stacks));

	return map_read_stack(fd, stack_id, ips, max);
}

int tracer__unwind_stats(const struct tracer *t, __u64 out[SS_UNWIND_NSTATS])
{
	return unwind_maps__stats(&t->unwind, out);
}

void tracer__features(const struct tracer *t, struct tracer_features *f)
{
	*f = t->features;
}

size_t tracer__map_bytes(const struct tracer *t)
{
	struct bpf_map *m;
	size_t total = 0;

	bpf_object__for_each_map(m, t->skel->obj) {
		/* Hash maps cost about key + value + a 64-byte element header. */
		size_t per = bpf_map__key_size(m) + bpf_map__value_size(m) + 64;

		if (bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_ARRAY)
			per = bpf_map__value_size(m) * libbpf_num_possible_cpus();
		else if (bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_HASH)
			per = bpf_map__key_size(m) + bpf_map__value_size(m) * libbpf_num_possible_cpus() + 64;
		total += per * bpf_map__max_entries(m);
	}
	return total;
}

static void *destroy_link(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

/*
 * Closing a tracepoint's perf event waits for RCU grace periods (~70 ms
 * here); one after another that made detaching take most of a second.
 * Closed from parallel threads, the waits overlap.
 */
static void destroy_links(struct tracer *t)
{
	pthread_t th[MAX_LINKS];
	bool started[MAX_LINKS] = { false };

	for (int i = 0; i < t->nlinks; i++)
		started[i] = pthread_create(&th[i], NULL, destroy_link, t->links[i]) == 0;
	for (int i = 0; i < t->nlinks; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			bpf_link__destroy(t->links[i]);
	}
	t->nlinks = 0;
}

/*
 * A program that began before its link went may still be finishing:
 * destroying a raw tracepoint's or a trampoline's link only unhooks it.
 * The programs run inside RCU read-side sections, so one grace period
 * (membarrier's MEMBARRIER_CMD_GLOBAL is synchronize_rcu) sees the last of
 * them out. Where that is refused (nohz_full CPUs), the syscall
 * tracepoints' perf events already waited for one when they closed.
 */
void tracer__stop(struct tracer *t)
{
	/* Exits whose entry's link closed first are not missed exits. */
	t->skel->bss->stopping = 1;
	light_tracer__detach(t->light);
	destroy_links(t);
	(void)syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	light_tracer__free(t->light);
	destroy_links(t);
	if (t->proc_dir >= 0)
		close(t->proc_dir);
	trace__destroy(t->skel);
	unwind_maps__free(&t->unwind);
	exited_sites_free(&t->moved);
	free(t);
}

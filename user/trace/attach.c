// SPDX-License-Identifier: GPL-2.0
/*
 * The choice between fentry/fexit and syscall tracepoints (attach.h): the
 * same program bodies (bpf/trace.bpf.c), two sets of attach points.
 */
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/errors.h"
#include "model/kernel_features.h"
#include "attach.h"
#include "kfeatures.h"

#define FENTRY_PREFIX "fe_"
#define TP_SYSCALLS "tracepoint/syscalls/"

int tracer_attach_parse(const char *s, enum tracer_attach *out)
{
	static const char *const names[] = {
		[TRACER_ATTACH_AUTO] = "auto",
		[TRACER_ATTACH_FENTRY] = "fentry",
		[TRACER_ATTACH_TRACEPOINT] = "tracepoint",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (s && !strcmp(s, names[i])) {
			*out = (enum tracer_attach)i;
			return 0;
		}
	return -1;
}

/* The syscall wrappers: each takes the caller's struct pt_regs. */
#if defined(__x86_64__)
#define SYS_PREFIX "__x64_sys_"
#elif defined(__aarch64__)
#define SYS_PREFIX "__arm64_sys_"
#else
#define SYS_PREFIX NULL
#endif

/* "tracepoint/syscalls/sys_enter_futex" -> "futex" (NULL: not one). */
static const char *syscall_of(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p), *name;

	if (strncmp(sec, TP_SYSCALLS, strlen(TP_SYSCALLS)))
		return NULL;
	name = sec + strlen(TP_SYSCALLS);
	if (!strncmp(name, "sys_enter_", 10))
		return name + 10;
	if (!strncmp(name, "sys_exit_", 9))
		return name + 9;
	return NULL;
}

/*
 * The kernel function of syscall sys, in fn: its wrapper; for a syscall
 * without arguments also __do_sys_<sys>, since x86-64 makes that wrapper
 * an alias of it (no function of its own in BTF). False when neither is
 * in the kernel's BTF.
 */
static bool syscall_function(const struct btf *btf, const char *sys, char *fn, size_t len)
{
	if (!btf || !SYS_PREFIX)
		return false;
	snprintf(fn, len, "%s%s", SYS_PREFIX, sys);
	if (btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) >= 0)
		return true;
	if (strcmp(sys, "sched_yield"))
		return false;
	snprintf(fn, len, "__do_sys_%s", sys);
	return btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) >= 0;
}

/* The twin fe_P of tracepoint program P, or NULL. */
static struct bpf_program *twin_of(struct bpf_object *obj, const struct bpf_program *p)
{
	char fe[64];

	snprintf(fe, sizeof(fe), FENTRY_PREFIX "%s", bpf_program__name(p));
	return bpf_object__find_program_by_name(obj, fe);
}

/*
 * Whether P is to load: a stack-unwinding twin P_unw follows P, as
 * unwind_maps__prepare() will make it (it loads one of the two).
 */
static bool to_load(struct bpf_object *obj, const struct bpf_program *p)
{
	const char *name = bpf_program__name(p);
	size_t n = strlen(name), k = strlen("_unw");
	struct bpf_program *plain;
	char base[64];

	if (n <= k || strcmp(name + n - k, "_unw") || n - k >= sizeof(base))
		return bpf_program__autoload(p);
	snprintf(base, sizeof(base), "%.*s", (int)(n - k), name);
	plain = bpf_object__find_program_by_name(obj, base);
	return plain && bpf_program__autoload(plain);
}

/* NULL when every tracepoint program to load has a twin and a function
 * to attach it to; else the syscall that has not. */
static const char *fentry_missing(struct bpf_object *obj, const struct btf *btf)
{
	struct bpf_program *p;
	char fn[64];

	bpf_object__for_each_program(p, obj) {
		const char *sys = syscall_of(p);

		if (sys && to_load(obj, p) &&
		    (!twin_of(obj, p) || !syscall_function(btf, sys, fn, sizeof(fn))))
			return sys;
	}
	return NULL;
}

#define MAX_SWITCHED 64

/* The fe_ programs load only as a tracepoint program's twin (fentry).
 * Which ones switch is decided before any autoload changes. */
static void select_programs(struct bpf_object *obj, bool fentry)
{
	struct bpf_program *p, *switched[MAX_SWITCHED];
	int n = 0;

	bpf_object__for_each_program(p, obj) {
		if (!strncmp(bpf_program__name(p), FENTRY_PREFIX, strlen(FENTRY_PREFIX)))
			bpf_program__set_autoload(p, false);
		else if (fentry && syscall_of(p) && to_load(obj, p) && n < MAX_SWITCHED)
			switched[n++] = p;
	}
	for (int i = 0; i < n; i++) {
		bpf_program__set_autoload(twin_of(obj, switched[i]), true);
		bpf_program__set_autoload(switched[i], false);
	}
}

int attach_set_targets(struct bpf_object *obj, const struct btf *btf)
{
	struct bpf_program *p;
	char fn[64];
	int err = 0;

	bpf_object__for_each_program(p, obj) {
		const char *name = bpf_program__name(p), *plain = name + strlen(FENTRY_PREFIX);
		struct bpf_program *tp;

		if (strncmp(name, FENTRY_PREFIX, strlen(FENTRY_PREFIX)) || !bpf_program__autoload(p))
			continue;
		/* Its tracepoint twin (P of fe_P, or P of fe_P_unw) names
		 * the syscall; attach_choose() found its function. */
		tp = bpf_object__find_program_by_name(obj, plain);
		if (!tp || !syscall_of(tp) || !syscall_function(btf, syscall_of(tp), fn, sizeof(fn)))
			return -ENOENT;
		err = bpf_program__set_attach_target(p, 0, fn);
		if (err)
			return err;
	}
	return 0;
}

bool attach_kernel_is_rt(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.version, "PREEMPT_RT");
}

int attach_choose(enum tracer_attach want, bool light, const struct attach_kernel *kern,
		  struct bpf_object *obj, bool *fentry, char *why, size_t whylen)
{
	const struct kernel_features *k = kern->features;
	bool asked = want == TRACER_ATTACH_FENTRY && !light;
	/* Looked for only when asked: each name is a walk through the
	 * kernel's whole BTF, some 10 ms of every attach in all. */
	const char *missing = asked ? fentry_missing(obj, kern->btf) : NULL;
	bool can = k->fentry.ok && k->fexit.ok && !missing;

	/*
	 * --light with a forced mechanism is refused by the option parser.
	 * PREEMPT_RT runs trampoline programs preemptible: one preempted on
	 * a CPU makes the next run of it there a recursion miss. In the
	 * kernel matrix's RT guest fentry missed up to 545 of 2000 yields
	 * so (counted as bpf_program_misses), the tracepoints none.
	 * And in the kernel matrix's guests, traces on fentry hung three
	 * times (6.1 twice, once a soft lockup; 5.10 once), never on the
	 * tracepoints: until that is understood, fentry is taken only when
	 * asked for (--attach=fentry) and auto keeps to the tracepoints.
	 * kern->preempt_rt stays in the interface for when auto takes
	 * fentry again.
	 */
	*fentry = asked && can;
	if (asked && !*fentry) {
		if (!k->fentry.ok || !k->fexit.ok)
			snprintf(why, whylen, "--attach=fentry: this kernel cannot attach BPF fentry/fexit programs (%s): use --attach=tracepoint or --attach=auto",
				 kernel_feature_strerror(k->fentry.ok ? k->fexit.err : k->fentry.err));
		else
			snprintf(why, whylen, "--attach=fentry: this kernel's BTF has no function of syscall %s to attach to: use --attach=tracepoint or --attach=auto",
				 missing);
		return SS_EXIT_KERNEL;
	}
	select_programs(obj, *fentry);
	return 0;
}

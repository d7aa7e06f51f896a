// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel feature probes: each loads (and for fentry/fexit, where attaching
 * is what a kernel may refuse, attaches and at once detaches) the smallest
 * program that needs the feature, so the answer is this kernel's, not its
 * version's: arm64 6.1 loads fentry but cannot attach it, this host
 * refuses fentry loads outright, distributions backport.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/errors.h"
#include "kfeatures.h"
#include "tracer.h"

int kernel_check_version(const char *release, char *why, size_t whylen)
{
	int major, minor;

	if (!release || sscanf(release, "%d.%d", &major, &minor) != 2)
		return 0;
	if (major > SS_MIN_KERNEL_MAJOR ||
	    (major == SS_MIN_KERNEL_MAJOR && minor >= SS_MIN_KERNEL_MINOR))
		return 0;
	snprintf(why, whylen, "needs Linux %d.%d or later with BTF: this is %d.%d (%s)",
		 SS_MIN_KERNEL_MAJOR, SS_MIN_KERNEL_MINOR, major, minor, release);
	return SS_EXIT_KERNEL;
}

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static struct kfeature result(int err)
{
	return (struct kfeature){ .ok = err == 0, .err = err < 0 ? -err : err };
}

/* Loads ret0 as prog type/attach type (on a BTF target where btf_id > 0). */
static int probe_load(enum bpf_prog_type type, enum bpf_attach_type attach, int btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = attach,
		    .attach_btf_id = btf_id > 0 ? btf_id : 0);

	return bpf_prog_load(type, NULL, "GPL", ret0, sizeof(ret0) / sizeof(ret0[0]), &o);
}

/*
 * A BTF-typed program type on a kernel function or tracepoint typedef:
 * loaded, and where do_attach, attached and at once detached (fentry and
 * fexit, which a kernel may load and still refuse to attach). The
 * scheduler's tracepoint programs are only loaded: attaching one to
 * sched_switch and detaching it made the tracer's own attach there wait
 * for an RCU grace period (the tracepoint's probe list changed twice in a
 * row), 10-20 ms of every attach; a kernel that loads them attaches them.
 */
static struct kfeature probe_btf_target(const struct btf *btf, const char *name, __u32 kind,
					enum bpf_attach_type attach, bool do_attach)
{
	int id, prog, link, err = 0;

	if (!btf)
		return result(ENOENT);	/* no kernel BTF: nothing to attach to */
	id = btf__find_by_name_kind(btf, name, kind);
	if (id < 0)
		return result(ENOENT);
	prog = probe_load(BPF_PROG_TYPE_TRACING, attach, id);
	if (prog < 0)
		return result(-errno);
	if (do_attach) {
		link = bpf_raw_tracepoint_open(NULL, prog);
		if (link < 0)
			err = -errno;
		else
			close(link);
	}
	close(prog);
	return result(err);
}

/* The raw tracepoint program type (the tracepoint is named only at
 * attach: loaded only, as tp_btf's probe). */
static struct kfeature probe_raw_tp(void)
{
	int prog = probe_load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0);

	if (prog < 0)
		return result(-errno);
	close(prog);
	return result(0);
}

/* The 5.12 atomics: a cmpxchg on a stack slot, as the verifier sees it. */
static struct kfeature probe_cmpxchg(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 0 },
		{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		  .off = -8, .imm = BPF_CMPXCHG },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return result(-errno);
	close(fd);
	return result(0);
}

static struct kfeature probe_map(enum bpf_map_type type)
{
	int r = libbpf_probe_bpf_map_type(type, NULL);

	return result(r == 1 ? 0 : r == 0 ? EOPNOTSUPP : r);
}

void kernel_features_probe(struct kernel_features *f, const struct btf *kernel_btf,
			   const char *const *roots)
{
	int has = tracefs_has_event(roots, "syscalls/sys_enter_futex");

	memset(f, 0, sizeof(*f));
	f->fentry = probe_btf_target(kernel_btf, "do_sched_yield", BTF_KIND_FUNC, BPF_TRACE_FENTRY,
				     true);
	f->fexit = probe_btf_target(kernel_btf, "do_sched_yield", BTF_KIND_FUNC, BPF_TRACE_FEXIT,
				    true);
	f->tp_btf = probe_btf_target(kernel_btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF,
				     BPF_TRACE_RAW_TP, false);
	f->raw_tp = probe_raw_tp();
	f->syscall_tracepoints = result(has == 1 ? 0 : has == -2 ? EACCES : ENOENT);
	f->task_storage = probe_map(BPF_MAP_TYPE_TASK_STORAGE);
	f->bpf_cmpxchg = probe_cmpxchg();
}

/* The typedef is a pointer to a function prototype: the hidden __data
 * first, then the tracepoint's own (preempt, prev, next, prev_state). */
bool kernel_switch_passes_state(const struct btf *kernel_btf)
{
	int id = kernel_btf ? btf__find_by_name_kind(kernel_btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF)
			    : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(kernel_btf, id) : NULL;

	if (t)
		t = btf__type_by_id(kernel_btf, t->type);
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(kernel_btf, t->type);
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
}

/* include/linux/errno.h: kernel-internal, never in libc's table. */
#define KERNEL_ENOTSUPP 524

const char *kernel_feature_strerror(int err)
{
	if (err == KERNEL_ENOTSUPP)
		return "ENOTSUPP: not supported by this kernel";
	return strerror(err);
}

void kernel_features_describe(const struct kernel_features *f, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
#define SS_KF_DESCRIBE(name)							\
	if (n < len)								\
		n += snprintf(buf + n, len - n, "%s%s %s%s%s", n ? ", " : "", #name, \
			      f->name.ok ? "yes" : "no", f->name.ok ? "" : " (", \
			      f->name.ok ? "" : kernel_feature_strerror(f->name.err)); \
	if (n < len && !f->name.ok)						\
		n += snprintf(buf + n, len - n, ")");
	SS_KFEATURES(SS_KF_DESCRIBE)
#undef SS_KF_DESCRIBE
}

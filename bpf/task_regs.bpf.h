/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a traced thread's user registers lie, kept in its record: they
 * stay at the top of its kernel stack for its life (the record's copy is
 * cleared when it exits), so after the first bpf_task_pt_regs() a read is
 * one load through bpf_rdonly_cast(), which the verifier turns into no
 * instruction at all, instead of a helper call (two where the task is the
 * current one: bpf_get_current_task_btf() too). A call costs about 24 ns
 * on a CPU that returns from each through a retbleed/SRSO thunk
 * (docs/BENCHMARKS.md).
 *
 * An object that includes this is built twice: with kfuncs (SS_KFUNCS 1,
 * for kernels that have bpf_rdonly_cast, 6.2+, in their own BTF) and
 * without (0), and user space loads the one the kernel can take
 * (user/trace/trace_object.c). A kfunc extern, even a weak one, makes
 * libbpf require the kernel's own BTF, which --btf stands in for.
 */
#ifndef SPINSCOPE_TASK_REGS_BPF_H
#define SPINSCOPE_TASK_REGS_BPF_H

#ifndef SS_KFUNCS
#define SS_KFUNCS 1
#endif

#if SS_KFUNCS
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#endif

/* The registers at *regs_addr, read-only; NULL where none is kept (or
 * this build has no kfuncs). */
static __always_inline struct pt_regs *ss_kept_regs(const __u64 *regs_addr)
{
#if SS_KFUNCS
	if (*regs_addr)
		return bpf_rdonly_cast((void *)*regs_addr, bpf_core_type_id_kernel(struct pt_regs));
#endif
	return NULL;
}

/* task's user registers (BTF-typed), their address kept in *regs_addr
 * for ss_kept_regs(). */
static __always_inline struct pt_regs *ss_keep_regs(struct task_struct *task, __u64 *regs_addr)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

#if SS_KFUNCS
	*regs_addr = (__u64)regs;	/* without the kfunc nothing reads it */
#endif
	return regs;
}

#endif /* SPINSCOPE_TASK_REGS_BPF_H */

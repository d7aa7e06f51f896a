/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks that reach the user's code through libraries without frame
 * pointers (Debian's libc). bpf_get_stackid() follows the frame-pointer
 * chain from the syscall's registers, so the caller of a frameless libc
 * function is lost: a thread in pthread_mutex_lock shows __lll_lock_wait
 * and then its caller's caller. Here each frame whose pc lies in a module
 * of the unwind table (bpf/unwind.h, loaded by user/trace/unwind_maps.c)
 * is stepped through its CFI row; every other frame through the frame
 * pointer, which after a CFI step is the caller's own (restored from where
 * the row says it was saved). Unsupported rows and unreadable stack fall
 * back to the frame pointer, and are counted.
 *
 * The stacks are kept in a hash map keyed by a hash of their ips (ids with
 * SS_UNWIND_ID_BIT set), values laid out as a stack map's: user space reads
 * both the same way. Include once per program, after bpf_helpers.h,
 * bpf_tracing.h and maps.bpf.h.
 */
#ifndef SPINSCOPE_UNWIND_BPF_H
#define SPINSCOPE_UNWIND_BPF_H

#include "unwind.h"
#include "task_regs.bpf.h"

#define SS_UNWIND_ENOMEM 12

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* sized by user space to the rows */
	__type(key, __u32);
	__type(value, struct ss_unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* sized by user space: --max-stacks */
	__type(key, __u32);
	__type(value, struct ss_unwind_stack);
} unwind_stacks SEC(".maps");

struct ss_unwind_regs {
	__u64 pc, sp, fp, lr;
};

/* The walk in progress. Kept in a map, not on the BPF stack: the verifier
 * tracks no values in maps, so bpf_loop()'s callback is checked once for
 * any frame instead of once per frame number. The stack is all zero
 * between walks, so that a stored stack ends in zeros as a stack map's. */
struct ss_unwind_scratch {
	struct ss_unwind_stack s;
	struct ss_unwind_regs r;
	__u32 n;		/* frames in s */
	__u32 cfi_left;		/* CFI steps still allowed */
	__u32 cut;		/* the table stopped in covered code */
	__u32 deep;		/* covered code past SS_UNWIND_CFI_FRAMES */
	__u32 nrows;		/* rows in unwind_rows */
	__u32 pad;
	__u64 hash;		/* of s's frames so far (unwind_hash_add()) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ss_unwind_scratch);
} unwind_scratch SEC(".maps");

/* Rows in unwind_rows, set by user space before load. */
const volatile __u32 targ_unwind_rows = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SS_UNWIND_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} unwind_stats SEC(".maps");

/* arm64 return addresses saved with pointer authentication carry a code
 * in their top bits; user space addresses fit in 48 bits. */
static __always_inline __u64 unwind_strip_pac(__u64 ra)
{
#if defined(__TARGET_ARCH_arm64)
	return ra & 0x0000ffffffffffffull;
#else
	return ra;
#endif
}

enum ss_unwind_step {
	SS_STEP_OK,
	SS_STEP_END,		/* outermost frame reached */
	SS_STEP_CUT,		/* covered code, but no way out of it */
};

static __always_inline void unwind_count(__u32 stat)
{
	percpu_inc(&unwind_stats, stat);
}

/* A binary search in progress: the answer is in rows [lo, hi). */
struct unwind_search {
	__u64 pc;
	__u32 lo, hi;
};

/* One step of the search, as a bpf_loop() callback: a loop the verifier
 * walked once per step, with every bound it had found, was most of what
 * it checked in a program that takes stacks. */
static long unwind_search_step(__u64 i, void *arg)
{
	struct unwind_search *s = arg;
	const struct ss_unwind_row *row;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	row = bpf_map_lookup_elem(&unwind_rows, &mid);
	if (!row) {
		s->lo = s->hi = 0;	/* not found */
		return 1;
	}
	if (row->pc <= s->pc)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* The last row with row->pc <= pc (as cfi_table__find()), or NULL. */
static __always_inline const struct ss_unwind_row *unwind_row_of(__u64 pc, __u32 nrows)
{
	struct unwind_search s = { .pc = pc, .lo = 0, .hi = nrows };
	__u32 idx;

	bpf_loop(SS_UNWIND_SEARCH_STEPS, unwind_search_step, &s, 0);
	if (s.lo < s.hi || !s.lo)
		return NULL;
	idx = s.lo - 1;
	return bpf_map_lookup_elem(&unwind_rows, &idx);
}

/* One step out of a frame in covered code, with its row. A return
 * address is a pc after a call: its row was found from pc - 1 (the call
 * may be a function's last instruction), except in the first frame. */
static __always_inline enum ss_unwind_step unwind_cfi_step(const struct ss_unwind_row *row,
							   struct ss_unwind_regs *r, bool first)
{
	__u64 cfa, ra, fp = r->fp;

	if (row->cfa == SS_CFA_END)
		return SS_STEP_END;
	if (row->cfa == SS_CFA_SP)
		cfa = r->sp + row->cfa_off;
	else if (row->cfa == SS_CFA_FP)
		cfa = r->fp + row->cfa_off;
	else
		return SS_STEP_CUT;
	if (row->ra_off8) {
		if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa + 8 * (__s64)row->ra_off8)))
			return SS_STEP_CUT;
	} else if (first) {
		ra = r->lr;	/* arm64 leaf code: still in the link register */
	} else {
		return SS_STEP_CUT;
	}
	if (row->fp_off && bpf_probe_read_user(&fp, sizeof(fp), (void *)(cfa + row->fp_off)))
		return SS_STEP_CUT;
	r->pc = unwind_strip_pac(ra);
	r->sp = cfa;
	r->fp = fp;
	return r->pc ? SS_STEP_OK : SS_STEP_END;
}

/* One step through a frame pointer: [fp] is the caller's, [fp + 8] the
 * return address; the caller's sp is what it was before the call. */
static __always_inline enum ss_unwind_step unwind_fp_step(struct ss_unwind_regs *r)
{
	__u64 rec[2];

	if (!r->fp || bpf_probe_read_user(rec, sizeof(rec), (void *)r->fp) || !rec[1])
		return SS_STEP_END;
	/* The chain runs up the stack; anything else is not a frame record. */
	if (rec[0] && rec[0] <= r->fp)
		rec[0] = 0;
	r->sp = r->fp + sizeof(rec);
	r->pc = unwind_strip_pac(rec[1]);
	r->fp = rec[0];
	return SS_STEP_OK;
}

static __always_inline void unwind_regs_of_task(struct ss_unwind_regs *r)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

#if defined(__TARGET_ARCH_arm64)
	r->pc = regs->pc;
	r->sp = regs->sp;
	r->fp = regs->regs[29];
	r->lr = regs->regs[30];
#else
	r->pc = regs->ip;
	r->sp = regs->sp;
	r->fp = regs->bp;
	r->lr = 0;
#endif
}

/* FNV-1a, a shift folded in, over the frames as the walk finds them. */
#define SS_UNWIND_HASH_SEED 0xcbf29ce484222325ull

static __always_inline __u64 unwind_hash_add(__u64 h, __u64 ip)
{
	h = (h ^ ip) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* What the per-frame callbacks work on, passed by bpf_loop(). */
struct unwind_frames_ctx {
	const struct ss_unwind_stack *old;	/* unwind_cmp_frame() only */
	struct ss_unwind_scratch *w;
	__u32 differ;
};

/*
 * One frame, as a bpf_loop() callback: checked once by the verifier,
 * where a plain loop over frames, a binary search in each, goes past its
 * million-instruction limit.
 */
static long unwind_frame(__u64 i, void *arg)
{
	struct ss_unwind_scratch *w = ((struct unwind_frames_ctx *)arg)->w;
	const struct ss_unwind_row *row;
	enum ss_unwind_step step;
	__u32 n = w->n;

	if (n < 1 || n >= SS_MAX_STACK_DEPTH)
		return 1;
	row = unwind_row_of(n == 1 ? w->r.pc : w->r.pc - 1, w->nrows);
	if (row && row->cfa != SS_CFA_NONE && w->cfi_left) {
		if (n == 1)
			unwind_count(SS_UNWIND_STAT_CFI_STACKS);
		w->cfi_left--;
		step = unwind_cfi_step(row, &w->r, n == 1);
		if (step == SS_STEP_CUT) {
			/* Fall back to the frame pointer, as the kernel would. */
			w->cut = 1;
			step = unwind_fp_step(&w->r);
		} else if (step == SS_STEP_OK) {
			unwind_count(SS_UNWIND_STAT_CFI_FRAMES);
		}
	} else {
		if (row && row->cfa != SS_CFA_NONE)
			w->deep = 1;
		step = unwind_fp_step(&w->r);
	}
	if (step != SS_STEP_OK)
		return 1;
	w->s.ip[n] = w->r.pc;
	w->hash = unwind_hash_add(w->hash, w->r.pc);
	w->n = n + 1;
	return 0;
}

/* Fills w->s from the current task's user registers. */
static __always_inline void unwind_walk(struct ss_unwind_scratch *w)
{
	unwind_regs_of_task(&w->r);
	w->s.ip[0] = w->r.pc;
	w->hash = unwind_hash_add(SS_UNWIND_HASH_SEED, w->r.pc);
	w->n = 1;
	w->cfi_left = SS_UNWIND_CFI_FRAMES;
	w->cut = w->deep = 0;
	w->nrows = targ_unwind_rows;
	bpf_loop(SS_MAX_STACK_DEPTH - 1, unwind_frame, &(struct unwind_frames_ctx){ .w = w }, 0);
	if (w->cut)
		unwind_count(SS_UNWIND_STAT_CUT_SHORT);
	if (w->deep)
		unwind_count(SS_UNWIND_STAT_CFI_DEPTH);
}

/* The stack id: the hash's top half, marked as the unwinder's. */
static __always_inline __u32 unwind_id(const struct ss_unwind_scratch *w)
{
	return ((__u32)(w->hash >> 32) | SS_UNWIND_ID_BIT) & 0x7fffffff;
}

/*
 * Frame i of a stored stack against the walk's: the frames and the zero
 * after them (a longer stack differs there). A callback, as the loops
 * over frames below: a loop the verifier walks once per frame number in
 * every program that takes stacks was most of spinscope's load time.
 */
static long unwind_cmp_frame(__u64 i, void *arg)
{
	struct unwind_frames_ctx *c = arg;

	if (i >= SS_MAX_STACK_DEPTH)
		return 1;
	if (c->old->ip[i] != c->w->s.ip[i]) {
		c->differ = 1;
		return 1;
	}
	return i >= c->w->n;
}

/* Clears frame i of the walk: the stack is all zero between walks. */
static long unwind_zero_frame(__u64 i, void *arg)
{
	struct unwind_frames_ctx *c = arg;

	if (i >= SS_MAX_STACK_DEPTH || i >= c->w->n)
		return 1;
	c->w->s.ip[i] = 0;
	return 0;
}

/* Stores w's stack under its id; -EEXIST when another stack has it. */
static __always_inline __s32 unwind_store(struct ss_unwind_scratch *w)
{
	__u32 id = unwind_id(w);
	struct ss_unwind_stack *old = bpf_map_lookup_or_try_init(&unwind_stacks, &id, &w->s);
	struct unwind_frames_ctx c = { .w = w };

	if (!old) {
		unwind_count(SS_UNWIND_STAT_MAP_FULL);
		return -SS_UNWIND_ENOMEM;
	}
	c.old = old;
	bpf_loop(SS_MAX_STACK_DEPTH, unwind_cmp_frame, &c, 0);
	if (c.differ) {
		unwind_count(SS_UNWIND_STAT_COLLISIONS);
		return -EEXIST;
	}
	return (__s32)id;
}

/*
 * The current task's user stack, unwound and stored: a stack id, or a
 * negative errno as bpf_get_stackid() returns. A global function: the
 * verifier checks it once per program, not once per caller's state.
 */
__noinline __s32 unwind_user_stackid(void)
{
	__u32 zero = 0;
	struct ss_unwind_scratch *w = bpf_map_lookup_elem(&unwind_scratch, &zero);
	struct unwind_frames_ctx c = {};
	__s32 id;

	if (!w)
		return -SS_UNWIND_ENOMEM;
	unwind_count(SS_UNWIND_STAT_STACKS);
	unwind_walk(w);
	id = unwind_store(w);
	c.w = w;
	bpf_loop(SS_MAX_STACK_DEPTH, unwind_zero_frame, &c, 0);
	return id;
}

/*
 * The frame-pointer programs load where bpf_task_pt_regs (5.15) may be
 * missing: they find the user registers saved at the syscall where the
 * kernel keeps them, at the top of the task's kernel stack
 * (task_pt_regs(): THREAD_SIZE above the stack's base, less x86's
 * TOP_OF_KERNEL_STACK_PADDING, 0 on x86-64 and 16 with FRED). THREAD_SIZE
 * is 16 KiB on x86-64 and arm64 (4 KiB pages, no KASAN: Debian's
 * kernels), a read-only setting. Only a register set that is user
 * mode's is taken (x86-64: the user code and stack segments; arm64: EL0
 * and user addresses), so a kernel laid out otherwise gives 0 (call sites
 * not told apart, and counted), never a wrong stack pointer. Finding the
 * set costs two reads of kernel memory, so callers keep its address per
 * task (ss_kstack_regs()) and read only the set itself per event
 * (ss_kstack_sp()).
 */
const volatile __u32 targ_kstack_size = 16384;

#if defined(__TARGET_ARCH_x86)
struct ss_user_regs_tail {	/* the end of x86-64's struct pt_regs */
	__u64 ip, cs, flags, sp, ss;
};
#define SS_USER_CS 0x33
#define SS_USER_DS 0x2b
#define SS_KSTACK_PADS 2	/* TOP_OF_KERNEL_STACK_PADDING 0, or 16 (FRED) */
#define SS_REGS_TAIL_FIELD ip

static __always_inline __u64 ss_regs_tail_sp(const struct ss_user_regs_tail *r)
{
	return (r->cs & 0xffff) == SS_USER_CS && (r->ss & 0xffff) == SS_USER_DS ? r->sp : 0;
}
#elif defined(__TARGET_ARCH_arm64)
struct ss_user_regs_tail {	/* struct user_pt_regs after regs[31] */
	__u64 sp, pc, pstate;
};
#define SS_USER_VA_END (1ULL << 52)
#define SS_KSTACK_PADS 1
#define SS_REGS_TAIL_FIELD sp

static __always_inline __u64 ss_regs_tail_sp(const struct ss_user_regs_tail *r)
{
	/* AArch64 EL0 (PSR_MODE_EL0t, not the 32-bit bit), at user addresses */
	if ((r->pstate & 0x1f) || !r->sp || r->sp >= SS_USER_VA_END || !r->pc ||
	    r->pc >= SS_USER_VA_END)
		return 0;
	return r->sp;
}
#endif

#ifdef SS_KSTACK_PADS
/* The user stack pointer in the register set whose tail is at addr, or 0. */
static __always_inline __u64 ss_kstack_sp(__u64 addr)
{
	struct ss_user_regs_tail r;

	if (!addr || bpf_probe_read_kernel(&r, sizeof(r), (void *)addr))
		return 0;
	return ss_regs_tail_sp(&r);
}

/* The address of the current task's user register set's tail (struct
 * ss_user_regs_tail) on its kernel stack, or 0 where none is found. */
static __always_inline __u64 ss_kstack_regs(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 base = 0, regs, off;

	/* A BTF without them (a test's fixture) loads, without call sites. */
	if (!bpf_core_field_exists(task->stack) || !bpf_core_type_exists(struct pt_regs))
		return 0;
	off = bpf_core_field_offset(struct pt_regs, SS_REGS_TAIL_FIELD);
	if (bpf_core_read(&base, sizeof(base), &task->stack) || !base)
		return 0;
	for (int i = 0; i < SS_KSTACK_PADS; i++) {
		regs = base + targ_kstack_size - 16 * i - bpf_core_type_size(struct pt_regs);
		if (ss_kstack_sp(regs + off))
			return regs + off;
	}
	return 0;
}
#else
static __always_inline __u64 ss_kstack_sp(__u64 addr)
{
	return 0;
}

static __always_inline __u64 ss_kstack_regs(void)
{
	return 0;
}
#endif

/*
 * The user stack pointer at the syscall, in the unwinding programs (they
 * have bpf_task_pt_regs, 5.15); the frame-pointer ones use the kernel
 * stack's copy (above). With the futex word it tells one call site from
 * another: a loop waits or yields from one frame depth, another caller of
 * the same lock sits at another. *regs_addr: the thread's record's copy
 * of where its registers lie (task_regs.bpf.h).
 */
static __always_inline __u64 ss_user_sp(__u64 *regs_addr)
{
	struct pt_regs *regs = ss_kept_regs(regs_addr);

	if (!regs)
		regs = ss_keep_regs(bpf_get_current_task_btf(), regs_addr);
	return regs->sp;
}

/*
 * The user stack of the current event: unwound here, or the kernel's
 * frame-pointer walk into stack_map (a BPF_MAP_TYPE_STACK_TRACE). unwind
 * must be a constant: each program that takes stacks comes twice, NAME and
 * NAME_unw, and user space loads one of them (unwind_maps.c), so that a
 * kernel without bpf_loop (5.17) or bpf_task_pt_regs (5.15) never sees the
 * unwinder's instructions.
 */
static __always_inline __s32 ss_user_stackid(void *ctx, void *stack_map, bool unwind)
{
	if (unwind)
		return unwind_user_stackid();
	return bpf_get_stackid(ctx, stack_map, BPF_F_USER_STACK);
}

#endif /* SPINSCOPE_UNWIND_BPF_H */

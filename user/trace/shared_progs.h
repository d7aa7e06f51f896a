/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Syscall tracepoint programs with the same body load once: the exits of
 * futex_wake and futex_requeue, and those of futex_wait and futex_waitv,
 * are each one program attached to both tracepoints. Every program the
 * kernel verifies costs some milliseconds of attach time.
 */
#ifndef SPINSCOPE_SHARED_PROGS_H
#define SPINSCOPE_SHARED_PROGS_H

struct bpf_object;
struct bpf_program;
struct bpf_link;

#define SHARED_PROGS_MAX 4

struct shared_progs {
	struct {
		struct bpf_program *prog;	/* loaded, attached to its own section */
		const char *tracepoint;		/* and to this one of "syscalls" */
	} extra[SHARED_PROGS_MAX];
	int n;
};

/*
 * Before load, after every other choice of what loads (mechanism, twins,
 * the kernel's tracepoints): where both programs of a pair are to load as
 * syscall tracepoint programs, the second is not loaded and the first is
 * recorded to be attached to the second's tracepoint as well.
 */
void shared_progs__choose(struct shared_progs *s, struct bpf_object *obj);

/*
 * After load: attaches each recorded program to its other tracepoint,
 * adding the links to links[*n] (at most max in all). 0, -E2BIG past max,
 * or a negative errno with *failed the index in extra[] that failed.
 */
int shared_progs__attach(const struct shared_progs *s, struct bpf_link **links, int *n, int max,
			 int *failed);

#endif

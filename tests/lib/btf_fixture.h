/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small raw BTF files holding the syscall tracepoint records as a kernel of
 * a given layout has them, for tests of the CO-RE reads and layout checks.
 */
#ifndef SPINSCOPE_BTF_FIXTURE_H
#define SPINSCOPE_BTF_FIXTURE_H

#include <stdbool.h>

enum btf_fixture_layout {
	BTF_FIXTURE_PLAIN,	/* trace_entry of 8 bytes (non-RT kernels) */
	BTF_FIXTURE_RT,		/* trace_entry of 12 bytes (PREEMPT_RT 6.1) */
	BTF_FIXTURE_RT_RAW_SHAPE, /* RT, but syscall_trace_exit shaped like
				   * trace_event_raw_sys_exit (a long id) */
	BTF_FIXTURE_NO_SYSCALL_TYPES, /* trace_entry only */
};

/* Writes the BTF to a new file under /tmp; returns its malloc'd path (the
 * caller unlinks and frees it), NULL on failure. */
char *btf_fixture_write(enum btf_fixture_layout layout);

#endif

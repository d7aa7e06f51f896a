/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log2 histogram slot of a duration, for the BPF programs (common.h
 * has the rule, user space runs it as is).
 */
#ifndef SPINSCOPE_HIST_BPF_H
#define SPINSCOPE_HIST_BPF_H

#include "common.h"

/* Inlined: ss_log2_slot() has no branch on the value for the verifier to
 * carry (common.h says why), and a call would cost a return. */
static __always_inline __u32 ss_hist_slot(__u64 ns)
{
	return ss_log2_slot(ns);
}

#endif /* SPINSCOPE_HIST_BPF_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log2 histogram slot of a duration, for the BPF programs (common.h
 * has the rule, user space runs it as is).
 */
#ifndef SPINSCOPE_HIST_BPF_H
#define SPINSCOPE_HIST_BPF_H

#include "common.h"

/*
 * A global function: the verifier checks it once per program and sees
 * its result as any number, which callers bound before indexing. Inlined,
 * each of its 64 branch outcomes was a different constant the verifier
 * carried through the rest of the caller: the wait exits' 20,000 checked
 * instructions, most of spinscope's load time.
 */
__noinline __u32 ss_hist_slot(__u64 ns)
{
	return ss_log2_slot(ns);
}

#endif /* SPINSCOPE_HIST_BPF_H */

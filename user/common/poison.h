/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included into every user-space object (-include, see Makefile).
 * u8..u64 and s8..s64 are the kernel's own types: vmlinux.h gives them to
 * the BPF side only, and user space that borrowed them would compile
 * against whatever header happened to define them. The shared headers use
 * __u32 and friends (linux/types.h); plain C code uses uint32_t.
 */
#ifndef SPINSCOPE_POISON_H
#define SPINSCOPE_POISON_H

#pragma GCC poison u8 u16 u32 u64 s8 s16 s32 s64

#endif

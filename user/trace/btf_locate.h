/* SPDX-License-Identifier: GPL-2.0 */
/* Where is this kernel's BTF? CO-RE relocations need it. */
#ifndef SPINSCOPE_BTF_LOCATE_H
#define SPINSCOPE_BTF_LOCATE_H

#include <stddef.h>

/*
 * With override set (--btf FILE), that file must be readable. Otherwise the
 * places libbpf looks are tried in order. On success returns 0 and sets
 * *custom to NULL (the kernel's own /sys/kernel/btf/vmlinux, libbpf finds it)
 * or to a path to hand libbpf. On failure returns SS_EXIT_KERNEL with a
 * one-line reason listing what was tried, or naming sysfs_path when it is
 * there but empty or holds no valid BTF header (then --btf is the way
 * out: its fallbacks would not serve tp_btf either). sysfs_path is normally
 * "/sys/kernel/btf/vmlinux"; release is uname -r.
 */
int btf_locate(const char *override, const char *sysfs_path, const char *release,
	       char *custom, size_t customlen, char *why, size_t whylen);

#endif

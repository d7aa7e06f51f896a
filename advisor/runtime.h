/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which code is the runtime's rather than the user's: the C library, the
 * C++ runtime, the dynamic loader, the JVM. Findings never tell the user to
 * change code there; they name the first frame outside it instead. One
 * list, used by the advisor and by the bridge that names stack frames.
 */
#ifndef SPINSCOPE_ADV_RUNTIME_H
#define SPINSCOPE_ADV_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

/* True for a module (path or basename) of the runtime: libc.so.6,
 * libpthread, libstdc++, libgcc_s, ld-linux*, libjvm.so, libjava.so, [vdso]. */
bool adv_is_runtime_module(const char *module);
/* The same for a sampled symbol as the advice names it, "func (module)":
 * true when the module in its last parentheses is the runtime's. */
bool adv_is_runtime_symbol(const char *symbol);
/* "libc" for "/lib/x86_64-linux-gnu/libc.so.6", "app" for "/opt/app":
 * the basename, without ".so..." for a runtime library. */
void adv_module_short(const char *module, char *buf, size_t size);

#endif

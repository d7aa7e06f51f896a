/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C++ function names as people write them: a symbol such as
 * "_ZN2ns5Klass6methodEi" (Itanium C++ ABI, what g++ and clang emit on
 * Linux) becomes "ns::Klass::method(int)" through libstdc++'s own
 * demangler, cut to a length a report line and a folded stack can hold.
 */
#ifndef SPINSCOPE_DEMANGLE_H
#define SPINSCOPE_DEMANGLE_H

#include <stddef.h>

/* Longest name shown; longer ones (template instances) end in "...". */
#define DEMANGLE_MAX_SHOWN	160
/* Longer symbols are not demangled: ELF names are cut at 1023 bytes on
 * load, and a cut mangled name does not demangle anyway. */
#define DEMANGLE_MAX_INPUT	1024

/* Writes the demangled form of name into buf (size bytes, at most
 * DEMANGLE_MAX_SHOWN + 1 used). A suffix from '@' on ("@plt") is kept
 * after the demangled part. Returns the length written, or 0 when name is
 * no mangled C++ name or does not demangle: show it as it is then. */
size_t demangle__cxx(const char *name, char *buf, size_t size);

#endif

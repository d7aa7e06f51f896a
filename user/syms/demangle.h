/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function names as people write them, through libiberty's demangler (the
 * one binutils and gdb use, Debian's libiberty-dev):
 *   C++ (Itanium ABI, g++ and clang)  "_ZN2ns5Klass6methodEi" -> "ns::Klass::method(int)"
 *   Rust legacy, its hash dropped     "_ZN1m11bump_shared17h76a8a9c58c86f9feE" -> "m::bump_shared"
 *   Rust v0                           "_RNvCskK7mfDs1mzF_1m11bump_shared" -> "m::bump_shared"
 * cut to a length a report line and a folded stack can hold.
 */
#ifndef SPINSCOPE_DEMANGLE_H
#define SPINSCOPE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Longest name shown; longer ones (template instances) end in "...". */
#define DEMANGLE_MAX_SHOWN	160
/* Longer symbols are not demangled: ELF names are cut at 1023 bytes on
 * load, and a cut mangled name does not demangle anyway. */
#define DEMANGLE_MAX_INPUT	1024

/* May name be mangled (C++ "_Z...", Rust "_R...")? What callers test
 * before they keep a demangled copy. */
bool demangle__is_mangled(const char *name);

/* Writes the demangled form of name into buf (size bytes, at most
 * DEMANGLE_MAX_SHOWN + 1 used). A suffix from '@' on ("@plt") is kept
 * after the demangled part. Returns the length written, or 0 when name is
 * no mangled C++ or Rust name or does not demangle: show it as it is then.
 * The demangled text comes from a hostile symbol table: it is printable
 * ASCII (anything else becomes '?'). */
size_t demangle__name(const char *name, char *buf, size_t size);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which language runtime a process runs on, so that the advice can speak
 * its language (advisor/runtime.h): from the libraries it maps (libjvm,
 * libpython3, Rust's libstd-*.so, libstdc++/libc++) and from its
 * executable (a Go build-id note or Go's sections and runtime symbols,
 * CPython's eval loop linked in, Rust's std symbols).
 */
#ifndef SPINSCOPE_RUNTIME_DETECT_H
#define SPINSCOPE_RUNTIME_DETECT_H

/* Most specific first: "jvm", "cpython", "go", "rust", "c++", "c"; or
 * "unknown" when the maps cannot be read. Reads proc_root/PID/maps and
 * the executable through proc_root/PID/exe (any mount namespace); the
 * executable is untrusted input, every size is capped. */
const char *runtime_detect(const char *proc_root, int pid);

/* The executable's part of it, for the image open at fd: "go", "cpython",
 * "rust" or NULL when its sections and symbols name none of them. */
const char *runtime_detect_exe(int fd);

#endif

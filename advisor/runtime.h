/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which code is the runtime's rather than the user's, and how the user's
 * language names its locks and their fixes.
 *
 * Runtime code: the C library, the C++ runtime, the dynamic loader, the
 * JVM and, by function name in any module, the language runtimes linked
 * into the user's executable (Rust's std/core/alloc, Go's runtime and
 * sync packages, C++ templates of std::, the JDK's own classes in JIT
 * code, the CPython interpreter). Findings never tell the user to change
 * code there; they name the first frame outside it instead. One list,
 * used by the advisor and by the bridge that names stack frames.
 *
 * Wording: adv_runtime_word_lock() turns a waited-on word's runtime frames
 * and the user's function into "std::sync::Mutex in bump_shared", "the GIL
 * (CPython)", "a synchronized monitor in SyncStorm.lambda$main$0",
 * "std::mutex in worker", with the fixes that exist in that runtime. What
 * the word IS (lock, condition, barrier...) is decided from behaviour
 * (advisor/metrics.c); this only names it.
 */
#ifndef SPINSCOPE_ADV_RUNTIME_H
#define SPINSCOPE_ADV_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include "advisor.h"

/* True for a module (path or basename) of the runtime: libc.so.6,
 * libpthread, libstdc++, libgcc_s, ld-linux*, libjvm.so, libjava.so,
 * libpython3*, [vdso]. */
bool adv_is_runtime_module(const char *module);
/* The same for a sampled symbol as the advice names it, "func (module)":
 * true when the module in its last parentheses is the runtime's. */
bool adv_is_runtime_symbol(const char *symbol);
/* The same for a frame "func+0x12 (module)": its module is the runtime's,
 * or its function is a language runtime's wherever it was linked
 * (adv_is_runtime_function). */
bool adv_is_runtime_frame(const char *frame);
/* A function name of a language runtime: "std::...", "<core::...>",
 * "alloc::", "__rust_*", parking_lot's, "runtime.*", "sync.*",
 * "internal/...", "__gnu_cxx::", the JDK's "java.*", "jdk.*", "sun.*"
 * (a JIT name may start with its return type: "void java.lang...."). */
bool adv_is_runtime_function(const char *function);
/* "libc" for "/lib/x86_64-linux-gnu/libc.so.6", "app" for "/opt/app":
 * the basename, without ".so..." for a runtime library. */
void adv_module_short(const char *module, char *buf, size_t size);

/* "C", "C++", "Rust", "Go", "CPython", "JVM"; "" for ADV_RT_UNKNOWN. */
const char *adv_runtime_name(enum adv_runtime rt);
/* The JSON spelling ("c", "c++", "rust", "go", "cpython", "jvm",
 * "unknown") and back (anything else: ADV_RT_UNKNOWN). */
const char *adv_runtime_id(enum adv_runtime rt);
enum adv_runtime adv_runtime_from_id(const char *id);

/* What a waited-on word is, in the target's language. */
struct adv_lock_words {
	/* The lock as the user would say it: "std::sync::Mutex in
	 * mutex_rs::bump_shared", "the GIL (CPython)", "a synchronized
	 * monitor in SyncStorm.lambda$main$0", "std::mutex in worker",
	 * "a pthread mutex in worker"; the user's function left out when
	 * the stack never reached it. */
	char lock[ADV_NAME_LEN];
	/* The kind alone: "std::sync::Mutex", "the GIL", "std::shared_mutex
	 * (writers)", "a pthread condition variable", ...; "" when the frames
	 * name none (lock then says "a lock in worker"). */
	char kind[64];
	/* The user's function, short: "mutex_rs::bump_shared",
	 * "SyncStorm.lambda$main$0" (no JIT return type or parameters),
	 * "worker(int)"; "" when none. */
	char function[ADV_NAME_LEN];
	/* The fixes that exist in this runtime for contention on this kind,
	 * one or more sentences; static text, never NULL. */
	const char *fix;
	/* A sentence the finding must carry besides, or "": the Go
	 * runtime's own futexes, a Python function name not read, ... */
	const char *note;
	/* The runtime these words are in: the target's, but C where a C++
	 * process takes the lock from C code (adv_runtime_word_lock). */
	enum adv_runtime runtime;
	/* The word is the runtime's own, not a lock of the program: Go's
	 * scheduler parking idle threads (runtime.futexsleep). Findings
	 * then say so and do not call it the program's contention. */
	bool runtime_internal;
	/* What to do about a thundering herd on it where the kind's own
	 * wake-up is the cause (a reader-writer lock's unlock wakes every
	 * reader), static text; NULL: a broadcast to make a signal. */
	const char *herd_fix;
	/* Where a JVM's waiters' stacks stop at JIT code (user's function
	 * not reached): the program's most sampled Java method and its share,
	 * "SyncStorm.lambda$main$0: 82% of the samples", which lock then
	 * names as likely ("a synchronized monitor, likely in ..."); "" when
	 * not guessed (adv_word_words fills it). */
	char guess[ADV_NAME_LEN];
};

/* Words a lock from rt, the waiters' (or releasers') runtime frames as
 * adv_futex.runtime_frames holds them ("__lll_lock_wait <-
 * pthread_mutex_lock", innermost first, " <- " between) and the first
 * frame of the user's code as adv_futex.name starts ("worker in app (via
 * ...)", or a bare "func+0x12 (module)" frame; NULL or "" when none).
 * Every string is from the target: what is copied is made printable. */
void adv_runtime_word_lock(enum adv_runtime rt, const char *runtime_frames,
			   const char *user, struct adv_lock_words *out);
/* The same for a futex of the profile: its runtime_frames, and its name
 * when user_named. */
void adv_runtime_word_futex(const struct adv_profile *p, const struct adv_futex *f,
			    struct adv_lock_words *out);

/* The program's own Java method sampled most ("SyncStorm.lambda$main$0",
 * no return type or parameters, made printable) and its share of the
 * samples: JIT frames named by a perf map, not a stub, not the JDK's.
 * Where a JVM's stacks stop at JIT code (no -XX:+PreserveFramePointer),
 * the likeliest place of a lock its waiters' stacks do not reach; a
 * guess a finding must call one. false when no such method was sampled. */
struct adv_samples;
bool adv_sampled_java_method(const struct adv_samples *s, char *buf, size_t size, double *share);

#endif

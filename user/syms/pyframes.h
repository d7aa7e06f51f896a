/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Python function each thread of a CPython 3.11 process runs, read from
 * its memory as py-spy does: _PyRuntime's main interpreter, its thread
 * states (native_thread_id), each one's current frame (cframe->
 * current_frame), that frame's code object and its co_qualname and
 * co_filename. 3.11's struct offsets only: another version is said, not
 * guessed. Every read is checked: the code object's and the strings'
 * types must be the interpreter's PyCode_Type and PyUnicode_Type (whose
 * tp_name, "code" and "str", are checked when opening), lengths are
 * bounded, loops are bounded; the target's memory is never trusted.
 *
 * While tracing, a thread of ours polls every PYFRAMES_POLL_MS and counts,
 * per function, the polls that found a thread in it and the threads that
 * were: pyframes__summary() then names the functions the threads ran
 * ("crunch (gil_threads.py): 4 threads, 99% of the polls").
 */
#ifndef SPINSCOPE_PYFRAMES_H
#define SPINSCOPE_PYFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PYFRAMES_POLL_MS 10

struct pyframes;

/* Opens the reader for pid when it runs CPython (its executable or a
 * libpython maps python3.X): 0 and *out; -ENOENT when it is no CPython
 * (nothing to say); another -errno with why filled otherwise: -ENOTSUP
 * for another version ("CPython 3.12: spinscope reads the frames of
 * CPython 3.11 only"), -ENOEXEC when the file so named lacks the
 * interpreter's symbols, -EPROTO when its memory does not hold 3.11's
 * types where they say. */
int pyframes__open(const char *proc_root, pid_t pid, struct pyframes **out, char *why, size_t size);
/* One look at every thread: cb(arg, tid, "qualname (file)") per thread
 * that runs Python code. The number of threads read, or -errno. */
int pyframes__read(struct pyframes *pf, void (*cb)(void *arg, uint32_t tid, const char *func),
		   void *arg);
/* Polls in a thread of its own until pyframes__stop(). 0 or -errno. */
int pyframes__start(struct pyframes *pf);
void pyframes__stop(struct pyframes *pf);
/* What the polls saw, the two functions most seen first, made printable:
 * "crunch (gil_threads.py): 4 threads, 99% of the polls; main
 * (gil_threads.py): 1 thread, 1% of the polls", and true; or why nothing
 * was read, and false. */
bool pyframes__summary(const struct pyframes *pf, char *buf, size_t size);
void pyframes__close(struct pyframes *pf);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space symbolization of one process's addresses (BPF stack ids hold
 * raw instruction pointers). Opaque object, noun__verb() functions.
 *
 *   struct syms *s = syms__new(pid);      // snapshot of /proc/PID/maps
 *   syms__refresh(s);                     // re-read maps (exec, end of trace)
 *   struct sym_info si;
 *   syms__resolve(s, addr, &si);          // si.name may be NULL: [unknown]
 *   syms__free(s);
 *
 * Strings in sym_info stay valid until syms__free().
 *
 * Files are opened through /proc/PID/map_files (any mount namespace,
 * deleted files), else inside /proc/PID/root, and kept open from the
 * snapshot on, so a target that exits before the report is still named.
 * Symbols: .symtab, else a separate debug file (build-id, .gnu_debuglink),
 * else .dynsym; the vDSO from the target's memory; JIT code from
 * /tmp/perf-PID.map in the target's root. Not thread-safe.
 */
#ifndef SPINSCOPE_SYMS_H
#define SPINSCOPE_SYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "frame_ptr.h"

struct syms;

struct sym_info {
	const char *name;	/* function name as shown (C++, Rust demangled), NULL when unresolved */
	const char *raw_name;	/* as in the symbol table, less any "@VERSION"; NULL when name is */
	uint64_t offset;	/* addr - function start */
	const char *module;	/* path of the mapping ("[vdso]", ...), NULL if none */
	uint64_t module_offset;	/* file offset of addr within module */
};

struct syms *syms__new(int pid);
/* Re-reads the maps; mappings seen before are kept, so addresses from a
 * library unloaded since still resolve. Returns 0 or -errno. */
int syms__refresh(struct syms *s);
/* Returns 0 when at least the module is known, -ENOENT otherwise. */
int syms__resolve(struct syms *s, uint64_t addr, struct sym_info *out);
/* Formats "func+0x12 (module)" / "module+0x1234" / "[unknown]" into buf. */
const char *syms__format(struct syms *s, uint64_t addr, char *buf, size_t size);
void syms__free(struct syms *s);

/* --- additions: options, eager loading, honesty about what is missing --- */

struct syms_opts {
	const char *proc_root;	/* "/proc" when NULL; tests use a fake tree */
	bool no_map_files;	/* skip /proc/PID/map_files (tests the fallbacks) */
	bool no_perfmap;	/* ignore /tmp/perf-PID.map */
};

/* syms__new() with options; NULL with errno set when the maps of pid
 * cannot be read (ESRCH/ENOENT: no such process, EACCES: not allowed). */
struct syms *syms__new_opts(int pid, const struct syms_opts *opts);

/* Where separate debug files are looked for, process-wide:
 * dir/.build-id/xx/rest.debug and dir/<binary's dir>/<debuglink>. NULL
 * restores the default, $SPINSCOPE_DEBUG_ROOT or /usr/lib/debug. Call it
 * before creating syms objects: symbols already loaded stay cached. */
void syms__set_debug_root(const char *dir);

/* Loads the symbols of every mapped file now instead of on first use.
 * Returns the number of files whose symbols are loaded. */
int syms__load_all(struct syms *s);

/* Was the code at addr built with frame pointers? FRAME_PTR_NO and
 * FRAME_PTR_PARTIAL mean stacks through it can be cut short or skip
 * callers; FRAME_PTR_UNKNOWN when there is no file or too little code. */
enum frame_ptr_state syms__frame_pointers(struct syms *s, uint64_t addr);

/* The GNU build-id of the file mapped at addr, as lowercase hex into hex
 * (2 bytes per id byte, plus NUL): what a backend re-symbolizes with.
 * 0, or -ENOENT when there is no file or it has no build-id. */
int syms__build_id(struct syms *s, uint64_t addr, char *hex, size_t len);

struct syms_fp_module {
	const char *path;
	enum frame_ptr_state fp;	/* FRAME_PTR_NO or FRAME_PTR_PARTIAL */
};

/* The modules that addresses were resolved into (by syms__resolve,
 * syms__format or syms__note_stack) and that lack frame pointers, wholly
 * or partly: what to tell the user when stacks look short. Fills up to
 * max, returns how many there are in all. */
size_t syms__modules_without_fp(struct syms *s, struct syms_fp_module *out, size_t max);

enum syms_stack_end {
	SYMS_STACK_COMPLETE,	/* outermost frame is a thread or process entry */
	SYMS_STACK_TRUNCATED,	/* outermost frame is some other named function */
	SYMS_STACK_UNNAMED,	/* outermost frame has no function name */
};

/* Judges where a stack (ips[0] innermost) ends and counts it in the stats:
 * a frame-pointer walk that stops before _start / start_thread / clone
 * stopped early. */
enum syms_stack_end syms__note_stack(struct syms *s, const uint64_t *ips, size_t n);

struct syms_stats {
	uint64_t resolved;		/* addresses named as a function */
	uint64_t module_only;		/* module known, no function: module+0x... */
	uint64_t unknown;		/* no module either: [unknown] */
	uint64_t stacks;		/* stacks passed to syms__note_stack */
	uint64_t stacks_truncated;	/* ... of which stopped early */
	uint64_t stacks_unnamed_end;	/* ... of which ended in an unnamed frame */
	uint32_t files;			/* distinct files in the current maps */
	uint32_t files_unreadable;	/* could not be opened (or refused by the cache) */
	uint32_t files_no_symbols;	/* loaded, but no function symbols at all */
	uint32_t perfmap_entries;	/* JIT symbols read from perf-PID.map */
	uint32_t perfmap_rejected;	/* lines of it skipped as malformed */
	uint32_t mappings_forgotten;	/* unmapped regions over the history cap */
};

void syms__stats(const struct syms *s, struct syms_stats *out);

/* The function a tail call hid: ret_ip (a return address) follows a
 * direct call to a function that is not the one running in the frame
 * inside it (inner_ip, as that frame is resolved), so the callee jumped
 * on to it (gcc -O2 ends "f() { ...; pthread_mutex_unlock(&m); }" with a
 * jmp). Its name into buf; -ENOENT when there is none: no direct call
 * (indirect, or the code unreadable), a call to a PLT stub, or to the
 * inner function itself. */
int syms__tail_callee(struct syms *s, uint64_t ret_ip, uint64_t inner_ip, char *buf, size_t len);

#endif

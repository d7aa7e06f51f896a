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
 */
#ifndef SPINSCOPE_SYMS_H
#define SPINSCOPE_SYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct syms;

struct sym_info {
	const char *name;	/* function name, NULL when unresolved */
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

#endif

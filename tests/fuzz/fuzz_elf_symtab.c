// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the ELF symbol loader (`make fuzz`): any byte
 * string is loaded as an ELF image and, if it loads, every lookup path is
 * driven over it. A crash, leak, sanitizer report or a run over the
 * per-input timeout is a bug: images come from the targets spinscope
 * inspects and must be treated as hostile.
 *
 * Seeds (tests/fuzz/corpus/elf_symtab/), small real images of each kind
 * the loader meets: a shared object with .symtab and build-id, the same
 * stripped with a .gnu_debuglink, its --only-keep-debug file, a static
 * non-PIE executable, a vDSO image read from memory, and a shared object
 * with a mangled C++ function calling an import and a C++ import through
 * its PLT (gcc -fPIC -shared -nostdlib with 16-byte page alignment).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "syms/elf_symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_symtab *st, *dbg;
	uint64_t off, vaddr;
	size_t len;
	uint32_t crc;
	int err;

	st = elf_symtab__load_mem(data, size, &err);
	if (!st)
		return 0;
	/* addresses around every plausible place: low, mid, high */
	for (uint64_t a = 0; a < 64; a++) {
		struct elf_sym_hit hit;

		/* low addresses hold the PLT of small images: stubs, demangling */
		elf_symtab__lookup(st, a * 0x40, &hit);
		elf_symtab__lookup(st, a * 0x10, &hit);
		elf_symtab__find(st, 0x400000 + a * 0x40, &off);
		elf_symtab__find(st, UINT64_MAX - a, &off);
		if (!elf_symtab__file_to_vaddr(st, a * 0x100, &vaddr))
			elf_symtab__find(st, vaddr, &off);
	}
	elf_symtab__build_id(st, &len);
	elf_symtab__debuglink(st, &crc);
	elf_symtab__check_frame_ptr(st, -1, data, size);
	/* the image as its own debug file: the take-over path */
	dbg = elf_symtab__load_mem(data, size, &err);
	if (dbg) {
		elf_symtab__take_symbols(st, dbg, ELF_SYMS_DEBUGLINK);
		elf_symtab__find(st, 0x401000, &off);
		elf_symtab__free(dbg);
	}
	elf_symtab__free(st);
	return 0;
}

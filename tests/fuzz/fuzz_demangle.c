// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the demangler (`make fuzz`): symbol names come
 * from the target's own ELF files and perf maps, so any byte string is a
 * name we may be asked to show. Each input is demangled into buffers of
 * several sizes; the result must fit, be NUL-terminated, say its length,
 * and be printable ASCII. A crash, leak, sanitizer report or a run over
 * the per-input timeout (the demanglers' recursion) is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "syms/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *name, size_t room)
{
	char buf[DEMANGLE_MAX_SHOWN + 8];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = demangle__name(name, buf, room);
	if (!n)
		return;
	if (n >= room || n > DEMANGLE_MAX_SHOWN || buf[n] != '\0' || strlen(buf) != n)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t rooms[] = { 0, 1, 12, 20, 64, DEMANGLE_MAX_SHOWN + 1, DEMANGLE_MAX_SHOWN + 8 };
	char *name = malloc(size + 1);

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	for (size_t i = 0; i < sizeof(rooms) / sizeof(rooms[0]); i++)
		check(name, rooms[i]);
	free(name);
	return 0;
}

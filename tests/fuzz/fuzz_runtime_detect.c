// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the runtime detection's reading of the target's
 * executable (`make fuzz`): any byte string is an executable a target may
 * run from. It is read through a memory file as the real one is through
 * /proc/PID/exe; the answer must be one of the runtimes or none. Seeds:
 * the ELF symbol loader's corpus. A crash, leak, sanitizer report or a
 * run over the per-input timeout is a bug.
 */
#include <string.h>
#include "fuzz_memfd.h"
#include "syms/runtime_detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	const char *rt;
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	rt = runtime_detect_exe(fd);
	if (rt && strcmp(rt, "go") && strcmp(rt, "cpython") && strcmp(rt, "rust"))
		__builtin_trap();
	close(fd);
	return 0;
}

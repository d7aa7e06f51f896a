// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf map reader (`make fuzz`): the target
 * process writes /tmp/perf-PID.map, so any byte string is a perf map we may
 * be given. It is loaded through a memory file as the real reader loads an
 * fd, every line is also parsed alone, and lookups are driven around the
 * entries' edges. A crash, leak, sanitizer report or a run over the
 * per-input timeout is a bug.
 */
#include <string.h>
#include "fuzz_memfd.h"
#include "syms/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_each_line(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *name;
		size_t len = (size_t)((nl ? nl : end) - p), name_len;
		uint64_t start, sz;

		if (!perfmap__parse_line(p, len, &start, &sz, &name, &name_len) &&
		    (name < p || name + name_len > p + len || start + sz < start))
			__builtin_trap();	/* name outside the line, or a wrapped range */
		p += len + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap *pm;
	char path[64];
	uint64_t off;
	int fd, err;

	parse_each_line(data, size);
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	pm = perfmap__load(fd, &err);
	close(fd);
	if (!pm)
		return 0;
	for (size_t i = 0; i + 8 <= size && i < 512; i += 8) {
		uint64_t a;
		const char *name;

		memcpy(&a, data + i, sizeof(a));
		name = perfmap__find(pm, a, &off);
		if (name && !*name)
			__builtin_trap();	/* empty names are rejected */
		perfmap__find(pm, a - 1, &off);
		perfmap__find(pm, a + 1, &off);
	}
	perfmap__find(pm, 0, &off);
	perfmap__find(pm, UINT64_MAX, &off);
	if (perfmap__count(pm) > PERFMAP_MAX_ENTRIES)
		__builtin_trap();
	perfmap__free(pm);
	return 0;
}

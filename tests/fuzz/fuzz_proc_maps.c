// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the /proc/PID/maps line parser (`make fuzz`): the
 * paths in a target's maps are names the target chose (a file called
 * "x (deleted)\n00400000-..." is allowed), so every line is hostile. Each
 * line of the input is parsed; what comes back must lie inside the line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "syms/proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the reader hands the parser NUL-terminated lines */
	char *text = malloc(size + 1);
	char *line, *save = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);
		struct proc_map m;

		if (proc_map__parse(line, &m))
			continue;
		if (m.path < line || m.path + m.path_len > line + len || m.end < m.start)
			__builtin_trap();
		proc_map__is_file(&m);
	}
	free(text);
	return 0;
}

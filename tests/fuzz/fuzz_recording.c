// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for reading a recording back (`make fuzz`): a report
 * saved with -o FILE[.zst] travels to other machines and people, so the
 * file handed to recording__load is untrusted: plain JSON or a zstd frame
 * claiming any size. Read through a memory file, as it reads a path.
 */
#include <json-c/json.h>
#include "fuzz_memfd.h"
#include "report/recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *doc = NULL;
	char path[64];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (!recording__load(path, &doc) &&
	    (!doc || !json_object_object_get_ex(doc, "schema", NULL)))
		__builtin_trap();	/* success means a document with its schema */
	json_object_put(doc);
	close(fd);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the calibration loader (`make fuzz`): --calibration
 * FILE names any file, and the saved one lives in a user's home, so its
 * JSON is untrusted. The input is read as a stored calibration file
 * (through a memory file, as calib_store__load reads a path) and its
 * results filled into the advisor's host; the same bytes are also parsed
 * as bare JSON and filled, so that every figure reader sees odd types,
 * absurd numbers and missing fields whatever the file's header says.
 */
#include <string.h>
#include <json-c/json.h>
#include "fuzz_memfd.h"
#include "calib/calib_host.h"
#include "calib/calib_store.h"
#include "calib/kern/calib_hints.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* calib_hints.c (gcc-only inline asm) is not linked: fingerprint.c needs
 * this for reading the host, which loading a file never does. */
void calib_hints__read_cpuid(struct calib_cpuid *id)
{
	__builtin_trap();
}

static void fill(const json_object *results)
{
	struct adv_host h;

	memset(&h, 0, sizeof(h));
	calib_host__fill(results, "x86_64", &h);
	memset(&h, 0, sizeof(h));
	calib_host__fill(results, "aarch64", &h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *doc = NULL, *v;
	struct json_tokener *tok;
	char path[64];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd >= 0 && !calib_store__load(path, &doc)) {
		struct ss_fingerprint fp;

		if (json_object_object_get_ex(doc, "results", &v))
			fill(v);
		if (json_object_object_get_ex(doc, "host", &v))
			calib_store__host_from_json(v, &fp);
		json_object_put(doc);
	}
	if (fd >= 0)
		close(fd);

	tok = json_tokener_new();
	if (!tok)
		return 0;
	doc = json_tokener_parse_ex(tok, (const char *)data, (int)(size < 1 << 20 ? size : 1 << 20));
	json_tokener_free(tok);
	if (doc && json_object_is_type(doc, json_type_object)) {
		fill(doc);
		if (json_object_object_get_ex(doc, "results", &v) &&
		    json_object_is_type(v, json_type_object))
			fill(v);	/* the loader hands over objects only */
	}
	json_object_put(doc);
	return 0;
}

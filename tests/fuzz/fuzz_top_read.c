// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the reader of top recordings, top_read.c (`make
 * fuzz`): `spinscope report` and `diff` read a `top -o` file made on
 * another machine, so it is untrusted. The bytes are parsed as JSON and
 * read as a top document; every document that reads is rendered again as
 * text and as JSON, as report prints it.
 */
#include <stdio.h>
#include <json-c/json.h>
#include "top/top_read.h"
#include "top/top_render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct top_recording rec;
	json_object *doc;
	char why[256];

	if (!tok)
		return 0;
	doc = json_tokener_parse_ex(tok, (const char *)data, (int)(size > 1 << 20 ? 1 << 20 : size));
	json_tokener_free(tok);
	if (!doc)
		return 0;
	if (!top_read__from_json(doc, &rec, why, sizeof(why))) {
		struct top_render_opts ro = { .sort = rec.sort, .threads = true };
		FILE *null = fopen("/dev/null", "w");

		if (null) {
			top_render_text(null, &rec.snap, &ro);
			top_render_json(null, &rec.snap, &ro);
			fclose(null);
		}
	}
	top_read__free(&rec);
	return 0;
}

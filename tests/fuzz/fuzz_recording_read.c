// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the recording reader, recording_read.c (`make
 * fuzz`; fuzz_recording.c fuzzes the file loader alone): `spinscope report`
 * and `diff` read files from another machine, so a recording is untrusted.
 * The input is read as a recording file (through a memory file, as
 * recording__read reads a path: zstd or plain JSON), and the same bytes
 * parsed as bare JSON are read as a document, so the model builder sees
 * odd types, absurd counts and missing fields whatever the header says;
 * every document that reads is then diffed against itself.
 */
#include <json-c/json.h>
#include "fuzz_memfd.h"
#include "report/recording_diff.h"
#include "report/advice.h"
#include "report/recording_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stands in for report/advice_data.c, which decodes a live process's
 * instructions (capstone, its /proc/PID/mem): a recording's replay never
 * decodes (its samples keep no registers, regs_on is false); its data
 * accesses are read from the recording itself. */
int advice__add_data(struct advice_input *in, int pid, const struct samples_result *sr)
{
	(void)in;
	(void)pid;
	(void)sr;
	return 0;
}

static void diff_self(const struct ss_recording *rec)
{
	struct recording_diff d;

	if (!recording_diff__compute(rec, rec, &d))
		recording_diff__free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ss_recording rec;
	struct json_tokener *tok;
	json_object *doc;
	char path[64], why[512];
	int fd = fuzz_memfd(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (!recording__read(path, &rec, why, sizeof(why)))
		diff_self(&rec);
	recording__free(&rec);
	close(fd);

	tok = json_tokener_new();
	if (!tok)
		return 0;
	doc = json_tokener_parse_ex(tok, (const char *)data, (int)(size < 1 << 20 ? size : 1 << 20));
	json_tokener_free(tok);
	if (!recording__from_json(doc, &rec, why, sizeof(why)))
		diff_self(&rec);
	recording__free(&rec);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* -o FILE[.zst]: saving the JSON report, and reading it back. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zstd.h>
#include "common/outfile.h"
#include "recording.h"

/* A report larger than this is not one of ours. */
#define RECORDING_MAX_BYTES (256u << 20)
/* Nor one of more JSON values: each costs the parser ~100 bytes, so this
 * bounds what a hostile file of small values can make it allocate. */
#define RECORDING_MAX_VALUES (4u << 20)

/* An upper bound on the values in a JSON text: one per separator or
 * opener, wherever they stand (in strings too: it only overcounts). */
static bool too_many_values(const char *text)
{
	size_t n = 0;

	for (const char *c = text; *c; c++)
		if ((*c == ',' || *c == '[' || *c == '{' || *c == ':') && ++n > RECORDING_MAX_VALUES)
			return true;
	return false;
}
#define ZSTD_LEVEL 3

static bool compressed(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".zst");
}

int recording__save(const char *path, json_object *doc, char *why, size_t whylen)
{
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = strlen(text), out_n = n;
	void *zbuf = NULL;
	int err;

	if (compressed(path)) {
		zbuf = malloc(ZSTD_compressBound(n));
		if (!zbuf) {
			snprintf(why, whylen, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		out_n = ZSTD_compress(zbuf, ZSTD_compressBound(n), text, n, ZSTD_LEVEL);
		if (ZSTD_isError(out_n)) {
			snprintf(why, whylen, "zstd: %s", ZSTD_getErrorName(out_n));
			free(zbuf);
			return -EIO;
		}
	}
	err = outfile__save(path, zbuf ? zbuf : text, out_n, why, whylen);
	free(zbuf);
	return err;
}

int recording__load(const char *path, json_object **doc)
{
	char *raw = NULL, *text;
	struct stat st;
	size_t n;
	int fd, err = 0;

	*doc = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > RECORDING_MAX_BYTES) {
		close(fd);
		return -EINVAL;
	}
	n = (size_t)st.st_size;
	raw = malloc(n + 1);
	if (!raw || read(fd, raw, n) != (ssize_t)n) {
		close(fd);
		free(raw);
		return raw ? -EIO : -ENOMEM;
	}
	close(fd);
	raw[n] = 0;
	text = raw;
	if (ZSTD_getFrameContentSize(raw, n) != ZSTD_CONTENTSIZE_ERROR) {
		unsigned long long size = ZSTD_getFrameContentSize(raw, n);

		if (size == ZSTD_CONTENTSIZE_UNKNOWN || size > RECORDING_MAX_BYTES) {
			free(raw);
			return -EINVAL;
		}
		text = malloc(size + 1);
		if (!text) {
			free(raw);
			return -ENOMEM;
		}
		if (ZSTD_isError(ZSTD_decompress(text, size, raw, n)))
			err = -EINVAL;
		text[size] = 0;
	}
	if (!err && too_many_values(text))
		err = -E2BIG;
	if (!err) {
		*doc = json_tokener_parse(text);
		if (!*doc || !json_object_is_type(*doc, json_type_object) ||
		    !json_object_object_get_ex(*doc, "schema", NULL)) {
			json_object_put(*doc);
			*doc = NULL;
			err = -EINVAL;
		}
	}
	if (text != raw)
		free(text);
	free(raw);
	return err;
}

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

/* A report larger than this (decompressed) is not one of ours. */
#define RECORDING_MAX_BYTES (256u << 20)
/*
 * The memory parsing may take: 16 times the text's size, at most 512 MiB
 * (issue 30: a 36 KB .zst of tiny values inflated to 776 MB). Each
 * separator or opener is counted as 48 bytes of json-c's tree. Measured
 * (max RSS of `spinscope report`): a real recording, about 11 bytes a
 * count, takes about 11 times its text in all (4x by this estimate); an
 * array of "0," takes 37 times (24x by it), and is refused unparsed.
 */
#define RECORDING_MEMORY_FACTOR 16
#define RECORDING_MAX_MEMORY (512ull << 20)
#define RECORDING_VALUE_COST 48

/* An upper bound on the values in a JSON text of n bytes: one per
 * separator or opener, wherever they stand (in strings too: it only
 * overcounts). True when parsing them would pass the budget. */
static bool too_many_values(const char *text, size_t n)
{
	unsigned long long budget = (unsigned long long)n * RECORDING_MEMORY_FACTOR, values = 0;

	if (budget > RECORDING_MAX_MEMORY)
		budget = RECORDING_MAX_MEMORY;
	for (const char *c = text; *c; c++)
		if ((*c == ',' || *c == '[' || *c == '{' || *c == ':') &&
		    ++values * RECORDING_VALUE_COST > budget)
			return true;
	return false;
}

/*
 * Inflates the zstd frames in raw (n bytes) into *out, NUL-terminated:
 * streamed, so that a frame without its content size (plain `zstd` on a
 * pipe) is read too; the content size, when a frame has one, only sizes
 * the first buffer. More than RECORDING_MAX_BYTES is refused as it comes.
 */
static int inflate(const char *raw, size_t n, char **out, size_t *len)
{
	unsigned long long hint = ZSTD_getFrameContentSize(raw, n);
	size_t cap = hint < RECORDING_MAX_BYTES ? (size_t)hint + 1 : n * 4 + 4096, ret = 1;
	ZSTD_inBuffer in = { raw, n, 0 };
	ZSTD_DStream *ds = ZSTD_createDStream();
	char *buf = malloc(cap), *b;
	int err = 0;

	*len = 0;
	if (!ds || !buf) {
		err = -ENOMEM;
		goto out;
	}
	while (!err && (in.pos < in.size || ret)) {
		ZSTD_outBuffer o = { buf, cap - 1, *len };

		if (*len == cap - 1) {
			if (cap > RECORDING_MAX_BYTES) {
				err = -EINVAL;	/* too large */
				break;
			}
			if (!(b = realloc(buf, cap * 2))) {
				err = -ENOMEM;
				break;
			}
			buf = b;
			cap *= 2;
			continue;
		}
		ret = ZSTD_decompressStream(ds, &o, &in);
		*len = o.pos;
		/* corrupt; or all read, room left, and the frame not whole */
		if (ZSTD_isError(ret) || (ret && in.pos == in.size && o.pos < o.size))
			err = -EINVAL;
	}
out:
	ZSTD_freeDStream(ds);
	if (err) {
		free(buf);
		return err;
	}
	buf[*len] = 0;
	*out = buf;
	return 0;
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
	if (ZSTD_getFrameContentSize(raw, n) != ZSTD_CONTENTSIZE_ERROR)
		err = inflate(raw, n, &text, &n);
	if (!err && strlen(text) != n)
		err = -EINVAL;	/* a NUL inside: not JSON text */
	if (!err && too_many_values(text, n))
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

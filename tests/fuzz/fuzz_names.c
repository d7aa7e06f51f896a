// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the sanitiser of untrusted names (common/names.h,
 * `make fuzz`): for any bytes and any room, the result is terminated, no
 * longer than the input and the room, clean (valid UTF-8, no control
 * character, no bidi control), cleaned again unchanged, the same when made
 * in place, and a clean input comes back whole when it fits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t room = size ? data[0] % 64 : 0, n, n2, in_len;
	const char *in = (const char *)data + (size ? 1 : 0);
	char *out, *again, *inplace;

	in_len = size ? size - 1 : 0;
	out = malloc(room + 1);
	again = malloc(room + 1);
	inplace = malloc(in_len + 1);
	if (!out || !again || !inplace)
		abort();
	n = ss_name_clean(out, room, in, in_len);
	if (room) {
		if (n >= room || out[n] || strlen(out) != n || n > in_len || !ss_name_is_clean(out, n))
			__builtin_trap();
		n2 = ss_name_clean(again, room, out, n);
		if (n2 != n || memcmp(again, out, n + 1))
			__builtin_trap();	/* idempotent */
	}
	memcpy(inplace, in, in_len);
	inplace[in_len] = 0;
	n2 = ss_name_clean(inplace, in_len + 1, inplace, in_len);
	if (!ss_name_is_clean(inplace, n2) || (room && strncmp(inplace, out, n)))
		__builtin_trap();	/* in place: the same text (out is its prefix) */
	if (ss_name_is_clean(in, in_len) && strnlen(in, in_len) < room && strncmp(out, in, n))
		__builtin_trap();	/* clean and fitting: unchanged */
	free(out);
	free(again);
	free(inplace);
	return 0;
}

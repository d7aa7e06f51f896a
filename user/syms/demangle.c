// SPDX-License-Identifier: GPL-2.0
/*
 * C++ demangling through libstdc++ (see demangle.h). __cxa_demangle is
 * the C++ ABI's own entry point, so plain C can call it; its declaration
 * lives in <cxxabi.h>, a C++ header, hence the one below.
 */
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

size_t demangle__cxx(const char *name, char *buf, size_t size)
{
	char mangled[DEMANGLE_MAX_INPUT];
	size_t base_len, suffix_len, len, keep;
	const char *suffix;
	char *plain;
	int status = 0;

	/* Itanium names start with _Z; anything else (C, Rust v0, Java
	 * JIT names) is shown as it is */
	if (strncmp(name, "_Z", 2))
		return 0;
	if (size > DEMANGLE_MAX_SHOWN + 1)
		size = DEMANGLE_MAX_SHOWN + 1;
	suffix = strchr(name, '@');
	base_len = suffix ? (size_t)(suffix - name) : strlen(name);
	suffix_len = suffix ? strlen(suffix) : 0;
	/* room for a few characters, "..." and the suffix */
	if (base_len >= sizeof(mangled) || size < suffix_len + 12)
		return 0;
	memcpy(mangled, name, base_len);
	mangled[base_len] = '\0';
	plain = __cxa_demangle(mangled, NULL, NULL, &status);
	if (!plain || status != 0) {
		free(plain);
		return 0;
	}
	len = strlen(plain);
	/* too long: cut the demangled part, keep the suffix ("f<a, b...@plt") */
	keep = len + suffix_len + 1 <= size ? len : size - 1 - suffix_len - 3;
	memcpy(buf, plain, keep);
	if (keep < len) {
		memcpy(buf + keep, "...", 3);
		keep += 3;
	}
	memcpy(buf + keep, suffix ? suffix : "", suffix_len);
	buf[keep + suffix_len] = '\0';
	free(plain);
	return keep + suffix_len;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * C++ and Rust demangling through libiberty (see demangle.h).
 * cplus_demangle with DMGL_AUTO tries Rust first (legacy Rust names are
 * also valid Itanium names; the Rust demangler takes them only when they
 * end in a "h<16 hex>" hash, and drops it), then the C++ ABI's.
 */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "demangle.h"

bool demangle__is_mangled(const char *name)
{
	return name && (!strncmp(name, "_Z", 2) || !strncmp(name, "_R", 2));
}

/* Bytes of a name from the target outside printable ASCII (a Rust v0
 * name may hold punycode-decoded identifiers) are shown as '?', so that
 * no control character reaches a terminal or a report. */
static void printable(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			s[i] = '?';
}

size_t demangle__name(const char *name, char *buf, size_t size)
{
	char mangled[DEMANGLE_MAX_INPUT];
	size_t base_len, suffix_len, len, keep;
	const char *suffix;
	char *plain;

	/* anything else (C, Java JIT names) is shown as it is */
	if (!demangle__is_mangled(name))
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
	plain = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!plain || !*plain) {
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
	printable(buf, keep + suffix_len);
	free(plain);
	return keep + suffix_len;
}

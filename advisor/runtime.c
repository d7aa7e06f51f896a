// SPDX-License-Identifier: GPL-2.0
/* runtime.c: which modules are the runtime's (runtime.h). */
#include <stdio.h>
#include <string.h>
#include "runtime.h"

/* Basename prefixes. "libc." and "libc-" but not "libcurl". */
static const char *const runtime_prefixes[] = {
	"libc.", "libc-", "libpthread", "libstdc++", "libgcc_s", "libm.", "libdl.", "librt.",
	"ld-linux", "ld64.so", "ld.so", "libjvm.", "libjava.", "libjli.", "[vdso]",
};

static const char *basename_of(const char *module)
{
	const char *slash = strrchr(module, '/');

	return slash ? slash + 1 : module;
}

bool adv_is_runtime_module(const char *module)
{
	const char *base;

	if (!module || !*module)
		return false;
	base = basename_of(module);
	for (size_t i = 0; i < sizeof(runtime_prefixes) / sizeof(runtime_prefixes[0]); i++)
		if (!strncmp(base, runtime_prefixes[i], strlen(runtime_prefixes[i])))
			return true;
	return false;
}

bool adv_is_runtime_symbol(const char *symbol)
{
	const char *open = symbol ? strrchr(symbol, '(') : NULL;
	char module[128];
	size_t n;

	if (!open)
		return false;
	n = strcspn(open + 1, ")");
	snprintf(module, sizeof(module), "%.*s", (int)n, open + 1);
	return adv_is_runtime_module(module);
}

void adv_module_short(const char *module, char *buf, size_t size)
{
	const char *base = module ? basename_of(module) : "";
	const char *so = strstr(base, ".so");

	if (adv_is_runtime_module(base) && so && so > base)
		snprintf(buf, size, "%.*s", (int)(so - base), base);
	else
		snprintf(buf, size, "%s", base);
}

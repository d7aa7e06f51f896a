// SPDX-License-Identifier: GPL-2.0
/* Finds kernel BTF the way libbpf does, so a failure can list the paths. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "btf_locate.h"
#include "common/errors.h"

/* libbpf's fallbacks (btf__load_vmlinux_btf), in its order. */
static const char *const fallbacks[] = {
	"/boot/vmlinux-%s",
	"/lib/modules/%s/vmlinux-%s",
	"/lib/modules/%s/build/vmlinux",
	"/usr/lib/modules/%s/kernel/vmlinux",
	"/usr/lib/debug/boot/vmlinux-%s",
	"/usr/lib/debug/boot/vmlinux-%s.debug",
	"/usr/lib/debug/lib/modules/%s/vmlinux",
};

int btf_locate(const char *override, const char *sysfs_path, const char *release,
	       char *custom, size_t customlen, char *why, size_t whylen)
{
	char tried[1024];
	size_t n = 0;

	custom[0] = 0;
	if (override) {
		struct btf *btf;

		if (access(override, R_OK)) {
			snprintf(why, whylen, "BTF file %s: %s: give a readable vmlinux or .btf file to --btf",
				 override, strerror(errno));
			return SS_EXIT_KERNEL;
		}
		/* Junk or an ELF without .BTF would fail later with libbpf's
		 * errno; say what is wrong with the file itself. */
		btf = btf__parse(override, NULL);
		if (!btf) {
			snprintf(why, whylen, "BTF file %s holds no usable BTF: give a vmlinux with a .BTF section or a raw .btf file to --btf",
				 override);
			return SS_EXIT_KERNEL;
		}
		btf__free(btf);
		snprintf(custom, customlen, "%s", override);
		return 0;
	}
	if (access(sysfs_path, R_OK) == 0)
		return 0;
	n += snprintf(tried + n, sizeof(tried) - n, "%s", sysfs_path);
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++) {
		char path[512];

		snprintf(path, sizeof(path), fallbacks[i], release, release);
		if (access(path, R_OK) == 0) {
			snprintf(custom, customlen, "%s", path);
			return 0;
		}
		if (n < sizeof(tried))
			n += snprintf(tried + n, sizeof(tried) - n, ", %s", path);
	}
	snprintf(why, whylen,
		 "no kernel BTF found (tried %s): use a kernel built with CONFIG_DEBUG_INFO_BTF=y or pass --btf FILE",
		 tried);
	return SS_EXIT_KERNEL;
}

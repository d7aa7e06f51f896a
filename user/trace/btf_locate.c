// SPDX-License-Identifier: GPL-2.0
/* Finds kernel BTF the way libbpf does, so a failure can list the paths. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <linux/btf.h>
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

/*
 * The kernel's raw BTF must at least hold a BTF header whose sections fit
 * in the file: an empty or cut file (a bind-mounted /dev/null, a broken
 * initramfs) would otherwise fail inside libbpf as "No such process".
 * Cheap on purpose; the tracer parses the whole of it before loading.
 */
static int raw_btf_header_ok(const char *path, char *why, size_t whylen)
{
	struct btf_header h;
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;	/* unreadable: the fallbacks are tried */
	n = read(fd, &h, sizeof(h));
	if (fstat(fd, &st))
		st.st_size = 0;
	close(fd);
	if (n == (ssize_t)sizeof(h) && h.magic == BTF_MAGIC && h.version == BTF_VERSION &&
	    h.hdr_len >= sizeof(h) && st.st_size >= (off_t)h.hdr_len + h.type_off + h.type_len &&
	    st.st_size >= (off_t)h.hdr_len + h.str_off + h.str_len)
		return 1;
	snprintf(why, whylen, "the kernel BTF %s is %s: pass a vmlinux with a .BTF section or a .btf file of this kernel with --btf FILE",
		 path, n == 0 ? "empty" : "corrupt (no valid BTF header)");
	return -1;
}

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
	if (access(sysfs_path, R_OK) == 0) {
		int ok = raw_btf_header_ok(sysfs_path, why, whylen);

		if (ok < 0)
			return SS_EXIT_KERNEL;
		if (ok)
			return 0;
	}
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

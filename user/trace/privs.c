// SPDX-License-Identifier: GPL-2.0
/*
 * Capability checks before any BPF call, so that an unprivileged user gets
 * one line naming the missing capability instead of libbpf's EPERM dump.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "common/errors.h"
#include "privs.h"

/* Older uapi headers lack the 5.8 capabilities. */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

int privs_effective(uint64_t *caps)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	*caps = (uint64_t)data[1].effective << 32 | data[0].effective;
	return 0;
}

#define HAS(caps, c) (((caps) >> (c)) & 1)

int privs_check_caps(uint64_t caps, char *why, size_t whylen)
{
	bool bpf = HAS(caps, CAP_BPF), perfmon = HAS(caps, CAP_PERFMON);

	/* CAP_SYS_ADMIN implies both (and is all kernels before 5.8 know). */
	if (HAS(caps, CAP_SYS_ADMIN) || (bpf && perfmon))
		return 0;
	snprintf(why, whylen,
		 "insufficient privileges: missing %s%s%s: run spinscope as root (sudo)",
		 bpf ? "" : "CAP_BPF", !bpf && !perfmon ? " and " : "", perfmon ? "" : "CAP_PERFMON");
	return SS_EXIT_PERM;
}

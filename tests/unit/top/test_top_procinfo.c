// SPDX-License-Identifier: GPL-2.0
/*
 * top_procinfo.c's cgroup parser on real-shaped /proc/PID/cgroup files:
 * systemd units, Docker and containerd scopes and cgroupfs folders,
 * Kubernetes pods under both drivers, cgroup v1 files, and hostile bytes
 * (escapes, newlines inside a name, ids that are almost ids), each
 * named as `top` shows it, sanitised.
 */
#include "testlib.h"
#include <string.h>
#include "common/names.h"
#include "top/top_procinfo.h"

#define DOCKER_ID "3f2a9c0d1e7b5a6c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e"
#define POD_UID "5e3f1c2a-9b8d-4e7f-a6c5-1d2e3f4a5b6c"
#define POD_UID_ESC "5e3f1c2a_9b8d_4e7f_a6c5_1d2e3f4a5b6c"

static void expect(const char *text, const char *container, const char *unit)
{
	char c[TOP_CONTAINER_LEN], u[TOP_UNIT_LEN];

	top_cgroup_names(text, strlen(text), c, sizeof(c), u, sizeof(u));
	if (strcmp(c, container) || strcmp(u, unit))
		fail_msg("'%s': container '%s' unit '%s', expected '%s' and '%s'", text, c, u, container, unit);
	assert_true(ss_name_is_clean(c, sizeof(c)));
	assert_true(ss_name_is_clean(u, sizeof(u)));
}

static void test_host_and_units(void **state)
{
	expect("0::/system.slice/nginx.service\n", "", "nginx.service");
	expect("0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n", "", "foo.service");
	expect("0::/user.slice/user-1000.slice/session-3.scope\n", "", "session-3.scope");
	expect("0::/\n", "", "");
	expect("0::/init.scope\n", "", "init.scope");
	expect("", "", "");
}

static void test_docker_and_containerd(void **state)
{
	expect("0::/system.slice/docker-" DOCKER_ID ".scope\n", "docker:3f2a9c0d1e7b", "");
	expect("0::/docker/" DOCKER_ID "\n", "docker:3f2a9c0d1e7b", "");
	expect("0::/system.slice/containerd.service/cri-containerd-" DOCKER_ID ".scope\n",
	       "containerd:3f2a9c0d1e7b", "containerd.service");
	expect("0::/machine.slice/libpod-" DOCKER_ID ".scope/container\n", "podman:3f2a9c0d1e7b", "");
	/* 63 hex, a capital, a non-hex: not an id */
	expect("0::/system.slice/docker-" "3f2a9c0d1e7b5a6c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5" ".scope\n",
	       "", "docker-3f2a9c0d1e7b5a6c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5.scope");
	expect("0::/docker/3F2A9C0D1E7B5A6C8D9E0F1A2B3C4D5E6F708192A3B4C5D6E7F8091A2B3C4D5E\n", "", "");
	expect("0::/docker/zf2a9c0d1e7b5a6c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e\n", "", "");
}

static void test_kubernetes(void **state)
{
	/* systemd driver: the pod's slice, then the container's scope */
	expect("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_UID_ESC
	       ".slice/cri-containerd-" DOCKER_ID ".scope\n",
	       "k8s:pod/" POD_UID, "");
	expect("0::/kubepods.slice/kubepods-pod" POD_UID_ESC ".slice/crio-" DOCKER_ID ".scope\n",
	       "k8s:pod/" POD_UID, "");
	/* cgroupfs driver */
	expect("0::/kubepods/besteffort/pod" POD_UID "/" DOCKER_ID "\n", "k8s:pod/" POD_UID, "");
	/* a uid one short is no pod */
	expect("0::/kubepods/besteffort/pod5e3f1c2a-9b8d-4e7f-a6c5-1d2e3f4a5b6/x\n", "", "");
}

static void test_cgroup_v1(void **state)
{
	/* v2's line wins; else name=systemd; else cpu */
	expect("12:pids:/system.slice/a.service\n1:name=systemd:/system.slice/b.service\n0::/system.slice/c.service\n",
	       "", "c.service");
	expect("4:cpu,cpuacct:/docker/" DOCKER_ID "\n1:name=systemd:/system.slice/b.service\n", "", "b.service");
	expect("11:memory:/x\n4:cpu,cpuacct:/docker/" DOCKER_ID "\n", "docker:3f2a9c0d1e7b", "");
	/* no newline at the end, no colon at all */
	expect("0::/system.slice/d.service", "", "d.service");
	expect("garbage without colons", "", "");
}

static void test_hostile_bytes(void **state)
{
	static const char with_nul[] = "0::/system.slice/x\0y.service\n";
	char c[TOP_CONTAINER_LEN], u[TOP_UNIT_LEN];
	char big[4096];

	/* a unit name carrying a terminal escape and a C1 CSI */
	expect("0::/system.slice/\x1b]0;pwned\x07.service\n", "", "?]0;pwned?.service");
	expect("0::/system.slice/a\xc2\x9b" "2J.service\n", "", "a?2J.service");	/* one C1 CSI, one ? */
	/* an id with an escape inside is no id, and is cleaned */
	expect("0::/docker/\x1b[2J" "2a9c0d1e7b5a6c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e\n", "", "");
	/* a NUL inside the text (len says more): parsing stops at nothing */
	top_cgroup_names(with_nul, sizeof(with_nul) - 1, c, sizeof(c), u, sizeof(u));
	assert_true(ss_name_is_clean(u, sizeof(u)));
	/* a very long unit: cut to fit, still clean and terminated */
	memset(big, 'a', sizeof(big));
	memcpy(big, "0::/", 4);
	memcpy(big + sizeof(big) - 9, ".service", 8);
	big[sizeof(big) - 1] = '\n';
	top_cgroup_names(big, sizeof(big), c, sizeof(c), u, sizeof(u));
	assert_int_equal(strlen(u), sizeof(u) - 1);
	assert_true(ss_name_is_clean(u, sizeof(u)));
	assert_string_equal(c, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_and_units),
		cmocka_unit_test(test_docker_and_containerd),
		cmocka_unit_test(test_kubernetes),
		cmocka_unit_test(test_cgroup_v1),
		cmocka_unit_test(test_hostile_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

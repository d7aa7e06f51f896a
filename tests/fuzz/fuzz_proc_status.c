// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the /proc/PID/status and stat readers (`make fuzz`):
 * the Name: line and the comm in stat are whatever the target set with
 * prctl(PR_SET_NAME) (parentheses, newlines, 15 bytes of anything), so both
 * files are hostile. The input is split at its first NUL byte into status
 * and stat, written into a fake proc tree, and read back through
 * proc_read_status() and proc_check_target().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/names.h"
#include "common/procfs.h"

#define FAKE_PID 4242

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static void remove_tree(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%d/status", root, FAKE_PID);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d/stat", root, FAKE_PID);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", root, FAKE_PID);
	rmdir(path);
	rmdir(root);
}

static void put(const char *name, const void *buf, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/%s", root, FAKE_PID, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	if (n && fwrite(buf, 1, n, f) != n)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n_status = nul ? (size_t)(nul - data) : size;
	struct proc_status st;
	char why[256];

	if (!root[0]) {
		char dir[128];

		/* tmpfs where there is one: two files per input */
		snprintf(root, sizeof(root), "%s/ss-fuzz-proc-%d",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", getpid());
		snprintf(dir, sizeof(dir), "%s/%d", root, FAKE_PID);
		mkdir(root, 0700);
		mkdir(dir, 0700);
		atexit(remove_tree);
	}
	put("status", data, n_status);
	put("stat", nul ? nul + 1 : data, nul ? size - n_status - 1 : 0);
	if (!proc_read_status(root, FAKE_PID, &st) &&
	    (!memchr(st.name, 0, sizeof(st.name)) || !ss_name_is_clean(st.name, sizeof(st.name))))
		__builtin_trap();	/* the name must be terminated, and clean */
	proc_check_target(root, FAKE_PID, 0, &st, why, sizeof(why));
	if (!memchr(why, 0, sizeof(why)))
		__builtin_trap();
	return 0;
}

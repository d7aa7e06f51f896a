// SPDX-License-Identifier: GPL-2.0
/*
 * syms.c against a fake /proc tree built here: maps lines written by the
 * test place a non-PIE executable and a shared object (at a load address
 * chosen by the test) and a JIT region, the files live under the fake
 * root/, and a perf map with good and hostile lines sits in root/tmp.
 * Expected names come from nm and the segment layout from readelf, not
 * from the code under test. No process is involved, so every address is
 * known exactly.
 */
#include "testlib.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "syms/syms.h"
#include "syms_fixture.h"

#define FAKE_PID 4242
#define LIB_BASE UINT64_C(0x7f1234560000)
#define JIT_START UINT64_C(0x7e0000000000)

struct fake {
	char dir[64];		/* the fake proc root */
	char root[128];		/* <dir>/4242/root */
	uint64_t leaf, stat, lib_func;
};

/* The executable PT_LOAD of a binary, per readelf. */
static void exec_segment(const char *bin, uint64_t *offset, uint64_t *vaddr, uint64_t *filesz)
{
	char *const argv[] = { "/usr/bin/readelf", "-lW", (char *)bin, NULL };
	char *out = NULL, *line, *save = NULL;

	assert_int_equal(tl_run(argv, &out, NULL), 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long o, v, p, f, m;

		if (strstr(line, " R E ") &&
		    sscanf(line, " LOAD %llx %llx %llx %llx %llx", &o, &v, &p, &f, &m) == 5) {
			*offset = o;
			*vaddr = v;
			*filesz = f;
			free(out);
			return;
		}
	}
	free(out);
	fail_msg("no executable segment in %s", bin);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A maps line for the executable segment of bin (copied to root + path). */
static int maps_line(char *buf, size_t size, const char *bin, const char *root_path, uint64_t base,
		     const char *dev)
{
	uint64_t off = 0, vaddr = 0, filesz = 0, page = ~UINT64_C(0xfff);
	struct stat st;

	exec_segment(bin, &off, &vaddr, &filesz);
	assert_int_equal(stat(bin, &st), 0);
	return snprintf(buf, size, "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " %s %llu    %s\n",
			base + (vaddr & page), base + ((vaddr + filesz + 0xfff) & page),
			off & page, dev, (unsigned long long)st.st_ino, strstr(root_path, "/root/") + 5);
}

static int setup(void **state)
{
	static struct fake fk;
	char path[256], maps[4096], app[256], lib[256];
	int n = 0;

	snprintf(fk.dir, sizeof(fk.dir), "/tmp/ss-fakeproc-XXXXXX");
	assert_non_null(mkdtemp(fk.dir));
	snprintf(fk.root, sizeof(fk.root), "%s/%d/root", fk.dir, FAKE_PID);
	snprintf(path, sizeof(path), "%s/%d", fk.dir, FAKE_PID);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(mkdir(fk.root, 0755), 0);
	snprintf(path, sizeof(path), "%s/bin", fk.root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/lib", fk.root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tmp", fk.root);
	assert_int_equal(mkdir(path, 0755), 0);

	snprintf(app, sizeof(app), "%s/bin/app", fk.root);
	assert_int_equal(sf_copy(tl_path("fixtures/syms_nopie"), app), 0);
	snprintf(lib, sizeof(lib), "%s/lib/libfix.so", fk.root);
	assert_int_equal(sf_copy(tl_path("fixtures/libsyms_fixture.so"), lib), 0);
	/* an absolute symlink: must resolve inside the fake root, not ours */
	snprintf(path, sizeof(path), "%s/lib/link.so", fk.root);
	assert_int_equal(symlink("/lib/libfix.so", path), 0);

	n += snprintf(maps + n, sizeof(maps) - (size_t)n,
		      "00400000-00401000 r--p 00000000 08:01 1 /bin/app\n");
	n += maps_line(maps + n, sizeof(maps) - (size_t)n, app, app, 0, "08:01");
	n += snprintf(maps + n, sizeof(maps) - (size_t)n, "this is not a maps line\n");
	n += maps_line(maps + n, sizeof(maps) - (size_t)n, lib, lib, LIB_BASE, "08:01");
	/* the library mapped once more under its symlinked name, on another
	 * device number so that it is opened by its own path */
	snprintf(path, sizeof(path), "%s/lib/link.so", fk.root);
	n += maps_line(maps + n, sizeof(maps) - (size_t)n, lib, path, LIB_BASE + 0x100000, "08:02");
	/* listed after higher addresses: the reader must not rely on order */
	n += snprintf(maps + n, sizeof(maps) - (size_t)n,
		      "%" PRIx64 "-%" PRIx64 " rwxp 00000000 00:00 0\n", JIT_START, JIT_START + 0x100000);
	snprintf(path, sizeof(path), "%s/%d/maps", fk.dir, FAKE_PID);
	put_file(path, maps);

	snprintf(path, sizeof(path), "%s/tmp/perf-%d.map", fk.root, FAKE_PID);
	put_file(path,
		 "7e0000001000 100 jit_old\n"
		 "7e0000001000 80 jit_new\n"
		 "7e0000002000 zz bad_size\n"
		 "7e0000003000 40 LFoo;::bar (I)V\n"
		 "7d0000000000 10 jit_unmapped\n");

	fk.leaf = sf_nm(app, "syms_fixture_leaf");
	fk.stat = sf_nm(app, "syms_fixture_static");
	fk.lib_func = sf_nm(lib, "syms_fixture_lib_func");
	assert_true(fk.leaf && fk.stat && fk.lib_func);
	*state = &fk;
	return 0;
}

static int teardown(void **state)
{
	struct fake *fk = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fk->dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct syms *open_fake(const struct fake *fk)
{
	struct syms_opts opts = { .proc_root = fk->dir };
	struct syms *s = syms__new_opts(FAKE_PID, &opts);

	assert_non_null(s);
	return s;
}

static void expect(struct syms *s, uint64_t addr, const char *name, uint64_t off, const char *module)
{
	struct sym_info si;

	assert_int_equal(syms__resolve(s, addr, &si), 0);
	if (!si.name)
		fail_msg("0x%" PRIx64 ": no name, expected %s", addr, name);
	assert_string_equal(si.name, name);
	assert_true(si.offset == off);
	assert_string_equal(si.module, module);
}

/* Non-PIE: the run address is the link address, the file offset is not. */
static void test_non_pie_executable(void **state)
{
	struct fake *fk = *state;
	struct syms *s = open_fake(fk);
	char buf[128];

	expect(s, fk->leaf + 3, "syms_fixture_leaf", 3, "/bin/app");
	expect(s, fk->stat, "syms_fixture_static", 0, "/bin/app");
	assert_string_equal(syms__format(s, fk->leaf + 3, buf, sizeof(buf)), "syms_fixture_leaf+0x3 (app)");
	syms__free(s);
}

/* A shared object: the load bias is the mapping's start less the
 * segment's page-aligned link address. */
static void test_shared_object_bias(void **state)
{
	struct fake *fk = *state;
	struct syms *s = open_fake(fk);

	expect(s, LIB_BASE + fk->lib_func + 7, "syms_fixture_lib_func", 7, "/lib/libfix.so");
	expect(s, LIB_BASE + 0x100000 + fk->lib_func, "syms_fixture_lib_func", 0, "/lib/link.so");
	syms__free(s);
}

/* JIT code: the newest covering entry wins, entries outside any mapping
 * still count, and the bad line is counted, not guessed at. */
static void test_perf_map(void **state)
{
	struct fake *fk = *state;
	struct syms *s = open_fake(fk);
	struct syms_stats st;
	struct sym_info si;
	char buf[128];

	expect(s, JIT_START + 0x1010, "jit_new", 0x10, "[jit]");
	expect(s, JIT_START + 0x10a0, "jit_old", 0xa0, "[jit]");
	expect(s, JIT_START + 0x3001, "LFoo;::bar (I)V", 1, "[jit]");
	expect(s, UINT64_C(0x7d0000000004), "jit_unmapped", 4, "[jit]");
	assert_string_equal(syms__format(s, JIT_START + 0x3001, buf, sizeof(buf)),
			    "LFoo;::bar (I)V+0x1 ([jit])");
	/* in the JIT region but in no entry: nothing to name */
	assert_int_equal(syms__resolve(s, JIT_START + 0x2001, &si), -ENOENT);
	syms__stats(s, &st);
	assert_int_equal(st.perfmap_entries, 4);
	assert_int_equal(st.perfmap_rejected, 1);
	syms__free(s);

	{
		struct syms_opts opts = { .proc_root = fk->dir, .no_perfmap = true };

		s = syms__new_opts(FAKE_PID, &opts);
		assert_non_null(s);
		assert_int_equal(syms__resolve(s, JIT_START + 0x1010, &si), -ENOENT);
		syms__free(s);
	}
}

/* Entries read from the perf map as it is now. */
static uint32_t perfmap_entries(const struct fake *fk)
{
	struct syms *s = open_fake(fk);
	struct syms_stats st;

	syms__stats(s, &st);
	syms__free(s);
	return st.perfmap_entries;
}

/*
 * Issue 13 item 12: only the target's own regular file is opened. The
 * target runs as nobody here (its /proc/PID belongs to 65534, as the kernel
 * shows a process of that euid): a root-owned perf map, which a target in a
 * user namespace can bind-mount from anywhere, is not opened; nor a
 * symlink or FIFO of the target's own.
 */
static void test_perf_map_owner(void **state)
{
	struct fake *fk = *state;
	char piddir[128], map[192], moved[200];

	if (geteuid() != 0) {
		print_message("skip: changing owners needs root\n");
		skip();
	}
	snprintf(piddir, sizeof(piddir), "%s/%d", fk->dir, FAKE_PID);
	snprintf(map, sizeof(map), "%s/tmp/perf-%d.map", fk->root, FAKE_PID);
	snprintf(moved, sizeof(moved), "%s.real", map);
	assert_int_equal(perfmap_entries(fk), 4);	/* root's target, root's file */
	assert_int_equal(chown(piddir, 65534, 65534), 0);
	assert_int_equal(perfmap_entries(fk), 0);	/* before: read as root's */
	assert_int_equal(chown(map, 65534, 65534), 0);
	assert_int_equal(perfmap_entries(fk), 4);	/* the target's own */
	assert_int_equal(rename(map, moved), 0);
	assert_int_equal(symlink(moved, map), 0);
	assert_int_equal(lchown(map, 65534, 65534), 0);
	assert_int_equal(perfmap_entries(fk), 0);	/* a link is not followed */
	assert_int_equal(unlink(map), 0);
	assert_int_equal(mkfifo(map, 0644), 0);
	assert_int_equal(chown(map, 65534, 65534), 0);
	assert_int_equal(perfmap_entries(fk), 0);	/* no hang, not read */
	assert_int_equal(unlink(map), 0);
	assert_int_equal(rename(moved, map), 0);
	assert_int_equal(chown(map, 0, 0), 0);
	assert_int_equal(chown(piddir, 0, 0), 0);
	assert_int_equal(perfmap_entries(fk), 4);
}

/* Accounting: three files as maps tells them apart (dev, inode). */
static void test_stats(void **state)
{
	struct fake *fk = *state;
	struct syms *s = open_fake(fk);
	struct syms_stats st;
	struct sym_info si;

	syms__resolve(s, fk->leaf, &si);
	syms__resolve(s, 0x10, &si);
	syms__stats(s, &st);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.files_unreadable, 0);
	assert_true(st.resolved == 1 && st.unknown == 1 && st.module_only == 0);
	syms__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_non_pie_executable),
		cmocka_unit_test(test_shared_object_bias),
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_perf_map_owner),
		cmocka_unit_test(test_stats),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * syms.c over time: a target that exits before its addresses are
 * resolved, a binary deleted after start, libraries unloaded and loaded
 * between snapshots, and the bounded file cache behind it all.
 */
#include "testlib.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "syms/elf_cache.h"
#include "syms/syms.h"
#include "syms_fixture.h"

static void expect_name(struct syms *s, uint64_t addr, const char *fn)
{
	struct sym_info si;

	assert_int_equal(syms__resolve(s, addr, &si), 0);
	if (!si.name)
		fail_msg("0x%llx: no name, expected %s", (unsigned long long)addr, fn);
	assert_string_equal(si.name, fn);
}

/* Snapshot at attach; the process is gone (reaped) before anything is
 * resolved, so symbols can only come from what the snapshot kept open. */
static void test_exited_target_still_named(void **state)
{
	struct sf_run r;
	struct syms *s;
	char buf[256];

	assert_int_equal(sf_start(&r, "fixtures/syms_debuglink"), 0);
	s = syms__new(r.pid);
	assert_non_null(s);
	sf_stop(&r);
	assert_true(kill(r.pid, 0) != 0);
	/* the end-of-trace refresh fails, and changes nothing */
	assert_true(syms__refresh(s) < 0);
	expect_name(s, r.leaf + 1, "syms_fixture_leaf");
	expect_name(s, r.stat + 1, "syms_fixture_static");
	expect_name(s, r.vdso, "__vdso_clock_gettime");
	assert_string_equal(syms__format(s, r.chain, buf, sizeof(buf)),
			    "syms_fixture_chain7+0x0 (syms_debuglink)");
	syms__free(s);
}

/* The binary is deleted while it runs: maps says "(deleted)" and the path
 * leads nowhere, yet the mapped file is still reachable. */
static void deleted_binary(bool map_files)
{
	char tmp[] = "/tmp/ss-syms-XXXXXX", bin[64];
	char *argv[] = { bin, NULL };
	struct syms_opts opts = { .no_map_files = !map_files };
	struct sym_info si;
	struct sf_run r;
	struct syms *s;

	assert_non_null(mkdtemp(tmp));
	snprintf(bin, sizeof(bin), "%s/gone", tmp);
	assert_int_equal(sf_copy(tl_path("fixtures/syms_fp_pie"), bin), 0);
	assert_int_equal(sf_start_argv(&r, argv), 0);
	assert_int_equal(unlink(bin), 0);
	assert_int_equal(rmdir(tmp), 0);
	s = syms__new_opts(r.pid, &opts);
	assert_non_null(s);
	assert_int_equal(syms__resolve(s, r.stat + 4, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "syms_fixture_static");
	assert_string_equal(si.module, bin);	/* without " (deleted)" */
	syms__free(s);
	sf_stop(&r);
}

static void test_deleted_binary_via_map_files(void **state)
{
	if (geteuid() != 0) {
		print_message("skip: /proc/PID/map_files needs CAP_SYS_ADMIN\n");
		skip();
	}
	deleted_binary(true);
}

static void test_deleted_binary_via_exe(void **state)
{
	deleted_binary(false);
}

/* Our own process: a library unloaded after the snapshot still resolves
 * after a refresh (it was retired, not forgotten), and a library loaded
 * after the snapshot resolves once refreshed. */
static void test_refresh_keeps_old_and_adds_new(void **state)
{
	char lib[512];
	void *h, *fn;
	uint64_t addr;
	struct sym_info si;
	struct syms *s;

	assert_non_null(realpath(tl_path("fixtures/libsyms_fixture.so"), lib));
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	fn = dlsym(h, "syms_fixture_lib_func");
	assert_non_null(fn);
	addr = (uint64_t)(uintptr_t)fn;
	s = syms__new(getpid());
	assert_non_null(s);
	assert_int_equal(dlclose(h), 0);
	assert_int_equal(syms__refresh(s), 0);
	expect_name(s, addr + 2, "syms_fixture_lib_func");
	syms__free(s);

	s = syms__new(getpid());
	assert_non_null(s);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	addr = (uint64_t)(uintptr_t)dlsym(h, "syms_fixture_lib_func");
	assert_int_equal(syms__resolve(s, addr, &si), -ENOENT);
	assert_int_equal(syms__refresh(s), 0);
	expect_name(s, addr, "syms_fixture_lib_func");
	syms__free(s);
	dlclose(h);
}

/* Two processes of one binary share one cache entry. */
static void test_cache_shared_between_processes(void **state)
{
	struct elf_cache_stats before, after;
	struct sf_run a, b;
	struct syms *sa, *sb;

	assert_int_equal(sf_start(&a, "fixtures/syms_nopie"), 0);
	assert_int_equal(sf_start(&b, "fixtures/syms_nopie"), 0);
	sa = syms__new(a.pid);
	assert_non_null(sa);
	elf_cache__stats(&before);
	sb = syms__new(b.pid);
	assert_non_null(sb);
	elf_cache__stats(&after);
	assert_true(after.entries == before.entries);
	assert_true(after.hits > before.hits);
	expect_name(sa, a.leaf, "syms_fixture_leaf");
	expect_name(sb, b.leaf, "syms_fixture_leaf");
	syms__free(sa);
	syms__free(sb);
	sf_stop(&a);
	sf_stop(&b);
}

/* A file rewritten in place (new mtime) is a new entry, not a stale hit. */
static void test_cache_key_includes_mtime(void **state)
{
	char tmp[] = "/tmp/ss-syms-XXXXXX", bin[64];
	struct timespec ts[2] = { { .tv_sec = 1000000 }, { .tv_sec = 1000000 } };
	struct elf_file *f1, *f2, *f3;
	int err;

	assert_non_null(mkdtemp(tmp));
	snprintf(bin, sizeof(bin), "%s/bin", tmp);
	assert_int_equal(sf_copy(tl_path("fixtures/syms_fp_pie"), bin), 0);
	f1 = elf_cache__get_fd(open(bin, O_RDONLY), bin, &err);
	f2 = elf_cache__get_fd(open(bin, O_RDONLY), bin, &err);
	assert_non_null(f1);
	assert_ptr_equal(f1, f2);
	assert_int_equal(utimensat(AT_FDCWD, bin, ts, 0), 0);
	f3 = elf_cache__get_fd(open(bin, O_RDONLY), bin, &err);
	assert_non_null(f3);
	assert_ptr_not_equal(f1, f3);
	elf_file__put(f1);
	elf_file__put(f2);
	elf_file__put(f3);
	unlink(bin);
	rmdir(tmp);
}

/* Bounds: unreferenced entries are evicted down to the entry cap, and a
 * full cache refuses files honestly (module+offset, counted). */
static void test_cache_bounds(void **state)
{
	struct elf_cache_stats st;
	struct syms_stats ss;
	struct sym_info si;
	struct sf_run r;
	struct syms *s;

	assert_int_equal(sf_start(&r, "fixtures/syms_fp_pie"), 0);
	s = syms__new(r.pid);
	assert_non_null(s);
	assert_int_equal(syms__load_all(s), 4);	/* exe, libc, ld.so, vDSO */
	syms__free(s);
	elf_cache__stats(&st);
	assert_true(st.entries >= 4);
	assert_true(st.bytes > 0);

	elf_cache__set_limits(2, ELF_CACHE_MAX_BYTES);
	elf_cache__stats(&st);
	assert_true(st.entries <= 2);
	assert_true(st.evictions >= 2);

	elf_cache__set_limits(0, ELF_CACHE_MAX_BYTES);
	s = syms__new(r.pid);
	assert_non_null(s);
	assert_int_equal(syms__resolve(s, r.leaf, &si), 0);
	assert_null(si.name);
	assert_non_null(si.module);
	syms__stats(s, &ss);
	assert_true(ss.files >= 3);
	assert_true(ss.files_unreadable == ss.files);
	syms__free(s);

	/* a byte cap below one symbol table refuses the load itself */
	elf_cache__set_limits(ELF_CACHE_MAX_ENTRIES, 100);
	s = syms__new(r.pid);
	assert_non_null(s);
	assert_int_equal(syms__resolve(s, r.leaf, &si), 0);
	assert_null(si.name);
	elf_cache__stats(&st);
	assert_true(st.bytes <= 100);
	assert_true(st.refused > 0);
	syms__free(s);

	elf_cache__set_limits(ELF_CACHE_MAX_ENTRIES, ELF_CACHE_MAX_BYTES);
	sf_stop(&r);
}

/* Stacks: one ending in _start is complete, one ending in a fixture
 * function stopped early, one ending nowhere has no name. */
static void test_stack_ends(void **state)
{
	struct sf_run r;
	struct syms *s;
	struct syms_stats st;
	uint64_t start = sf_nm(tl_path("fixtures/syms_nopie"), "_start");
	uint64_t complete[] = { 0, 0 }, early[] = { 0, 0 }, lost[] = { 0, 0x10 };

	assert_true(start != 0);
	assert_int_equal(sf_start(&r, "fixtures/syms_nopie"), 0);
	s = syms__new(r.pid);
	assert_non_null(s);
	complete[0] = early[0] = lost[0] = r.leaf + 1;
	complete[1] = start + 4;	/* non-PIE: link address = run address */
	early[1] = r.chain + 4;
	assert_int_equal(syms__note_stack(s, complete, 2), SYMS_STACK_COMPLETE);
	assert_int_equal(syms__note_stack(s, early, 2), SYMS_STACK_TRUNCATED);
	assert_int_equal(syms__note_stack(s, lost, 2), SYMS_STACK_UNNAMED);
	assert_int_equal(syms__note_stack(s, lost, 0), SYMS_STACK_UNNAMED);
	syms__stats(s, &st);
	assert_true(st.stacks == 4);
	assert_true(st.stacks_truncated == 1);
	assert_true(st.stacks_unnamed_end == 2);
	syms__free(s);
	sf_stop(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited_target_still_named),
		cmocka_unit_test(test_deleted_binary_via_map_files),
		cmocka_unit_test(test_deleted_binary_via_exe),
		cmocka_unit_test(test_refresh_keeps_old_and_adds_new),
		cmocka_unit_test(test_cache_shared_between_processes),
		cmocka_unit_test(test_cache_key_includes_mtime),
		cmocka_unit_test(test_cache_bounds),
		cmocka_unit_test(test_stack_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * syms.c against live processes: each fixture variant (one source, built
 * PIE and not, with and without frame pointers, stripped with debug files
 * found by debuglink or build-id, exports only, a shared object) reports
 * where the loader put its functions; the symbolizer must name them.
 * Also our own process: libc through its exports (checked with dlsym),
 * and the vDSO.
 */
#include "testlib.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <gelf.h>
#include "syms/debuginfo.h"
#include "syms/elf_symtab.h"
#include "syms/syms.h"
#include "syms_fixture.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* addr + delta must resolve to fn + delta inside a module named module. */
static void expect_named(struct syms *s, uint64_t addr, uint64_t delta, const char *fn, const char *module)
{
	struct sym_info si;

	assert_int_equal(syms__resolve(s, addr + delta, &si), 0);
	if (!si.name)
		fail_msg("0x%llx: no name, expected %s", (unsigned long long)(addr + delta), fn);
	assert_string_equal(si.name, fn);
	assert_true(si.offset == delta);
	assert_non_null(si.module);
	if (!ends_with(si.module, module))
		fail_msg("module %s, expected .../%s", si.module, module);
}

/* Starts a variant, names its exported and static functions, checks the
 * frame-pointer verdict, and returns nothing left running. */
static void check_variant(const char *variant, enum frame_ptr_state want_fp, bool static_named)
{
	char path[256], buf[256], want[256];
	const char *base = strrchr(variant, '/') + 1;
	struct sf_run r;
	struct sym_info si;
	struct syms *s;

	snprintf(path, sizeof(path), "fixtures/%s", base);
	assert_int_equal(sf_start(&r, path), 0);
	s = syms__new(r.pid);
	assert_non_null(s);
	expect_named(s, r.leaf, 0, "syms_fixture_leaf", base);
	expect_named(s, r.leaf, 5, "syms_fixture_leaf", base);
	expect_named(s, r.chain, 3, "syms_fixture_chain7", base);
	if (static_named) {
		expect_named(s, r.stat, 2, "syms_fixture_static", base);
	} else {
		/* exports only: the static function has no name, and saying so
		 * beats naming whatever exported function precedes it */
		uint64_t start, off;

		assert_int_equal(syms__resolve(s, r.stat + 2, &si), 0);
		assert_null(si.name);
		assert_int_equal(sf_mapping_of(r.pid, r.stat, &start, &off), 0);
		assert_true(si.module_offset == r.stat + 2 - start + off);
		snprintf(want, sizeof(want), "%s+0x%llx", base, (unsigned long long)si.module_offset);
		assert_string_equal(syms__format(s, r.stat + 2, buf, sizeof(buf)), want);
	}
	snprintf(want, sizeof(want), "syms_fixture_leaf+0x5 (%s)", base);
	assert_string_equal(syms__format(s, r.leaf + 5, buf, sizeof(buf)), want);
	assert_int_equal(syms__frame_pointers(s, r.leaf), want_fp);
	syms__free(s);
	sf_stop(&r);
}

static void test_pie_with_frame_pointers(void **state)
{
	check_variant("/syms_fp_pie", FRAME_PTR_YES, true);
}

static void test_non_pie(void **state)
{
	check_variant("/syms_nopie", FRAME_PTR_YES, true);
}

static void test_without_frame_pointers(void **state)
{
	check_variant("/syms_nofp", FRAME_PTR_NO, true);
}

static void test_exports_only(void **state)
{
	check_variant("/syms_dynsym", FRAME_PTR_YES, false);
}

static void test_debuglink(void **state)
{
	check_variant("/syms_debuglink", FRAME_PTR_YES, true);
}

static void test_debuglink_checked_by_crc(void **state)
{
	check_variant("/syms_debuglink_nobid", FRAME_PTR_YES, true);
}

static void test_build_id(void **state)
{
	check_variant("/syms_buildid", FRAME_PTR_YES, true);
}

/* Which route found the debug symbols, for each stripped variant. */
static enum elf_sym_source source_of(const char *variant, const char *dir)
{
	char path[512];
	struct debuginfo_ctx ctx = {
		.root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC),
		.debug_root = tl_path("fixtures/debugroot"),
	};
	struct elf_symtab *st;
	enum elf_sym_source src;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, variant);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	st = elf_symtab__load_fd(fd, &err);
	assert_non_null(st);
	/* stripped: exports at most (none unless linked with -rdynamic) */
	assert_true(elf_symtab__source(st) == ELF_SYMS_DYNSYM || elf_symtab__source(st) == ELF_SYMS_NONE);
	debuginfo__load(&ctx, path, fd, st);
	src = elf_symtab__source(st);
	elf_symtab__free(st);
	close(fd);
	close(ctx.root_fd);
	return src;
}

static void test_debug_file_routes(void **state)
{
	char dir[512];

	/* debuginfo wants an absolute path, as maps gives */
	assert_non_null(realpath(tl_path("fixtures"), dir));
	assert_int_equal(source_of("syms_debuglink", dir), ELF_SYMS_DEBUGLINK);
	assert_int_equal(source_of("syms_debuglink_nobid", dir), ELF_SYMS_DEBUGLINK);
	assert_int_equal(source_of("syms_buildid", dir), ELF_SYMS_BUILD_ID);
	assert_int_equal(source_of("syms_dynsym", dir), ELF_SYMS_DYNSYM);
}

/* A debug file of another build must be refused: a copy of the CRC-only
 * variant next to a debug file one byte longer than the one it links. */
static void test_stale_debug_file_refused(void **state)
{
	char tmp[] = "/tmp/ss-syms-XXXXXX", from[512], to[600];
	FILE *f;

	assert_non_null(mkdtemp(tmp));
	snprintf(to, sizeof(to), "%s/syms_debuglink_nobid", tmp);
	assert_int_equal(sf_copy(tl_path("fixtures/syms_debuglink_nobid"), to), 0);
	snprintf(from, sizeof(from), "%s", tl_path("fixtures/syms_debuglink_nobid.debug"));
	snprintf(to, sizeof(to), "%s/syms_debuglink_nobid.debug", tmp);
	assert_int_equal(sf_copy(from, to), 0);
	f = fopen(to, "a");
	assert_non_null(f);
	fputc(0, f);
	fclose(f);
	assert_int_equal(source_of("syms_debuglink_nobid", tmp), ELF_SYMS_NONE);
	unlink(to);
	snprintf(to, sizeof(to), "%s/syms_debuglink_nobid", tmp);
	unlink(to);
	rmdir(tmp);
}

static void test_shared_object(void **state)
{
	struct sf_run r;
	struct syms *s;

	assert_int_equal(sf_start(&r, "fixtures/syms_shlib"), 0);
	assert_true(r.lib != 0);
	s = syms__new(r.pid);
	assert_non_null(s);
	expect_named(s, r.lib, 4, "syms_fixture_lib_func", "/libsyms_fixture.so");
	expect_named(s, r.leaf, 1, "syms_fixture_leaf", "/syms_shlib");
	syms__free(s);
	sf_stop(&r);
}

/* The vDSO of another process, read from its memory. The vDSO exports
 * clock_gettime (weak) and __vdso_clock_gettime (global) at one address:
 * the global name is the one kept. */
static void test_vdso_of_child(void **state)
{
	struct sf_run r;
	struct syms *s;

	assert_int_equal(sf_start(&r, "fixtures/syms_fp_pie"), 0);
	if (!r.vdso) {
		sf_stop(&r);
		skip();	/* no vDSO in this environment */
	}
	s = syms__new(r.pid);
	assert_non_null(s);
	expect_named(s, r.vdso, 1, "__vdso_clock_gettime", "[vdso]");
	syms__free(s);
	sf_stop(&r);
}

/* libc of this process, named through .dynsym (Debian strips .symtab;
 * functions picked that ASan does not intercept):
 * whatever alias is chosen, dlsym must give back the function's start. */
static void test_libc_exports_of_self(void **state)
{
	void *fns[] = { (void *)getpid, (void *)getppid, (void *)umask };
	struct syms *s = syms__new(getpid());

	assert_non_null(s);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		struct sym_info si;
		uint64_t addr = (uint64_t)(uintptr_t)fns[i] + 2;

		assert_int_equal(syms__resolve(s, addr, &si), 0);
		assert_non_null(si.name);
		assert_true(si.offset == 2);
		assert_true(ends_with(si.module, "/libc.so.6"));
		assert_ptr_equal(dlsym(RTLD_DEFAULT, si.name), fns[i]);
	}
	syms__free(s);
}

static void test_vdso_of_self(void **state)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *fn = vdso ? dlsym(vdso, "__vdso_gettimeofday") : NULL;
	struct syms *s;

	if (!fn)
		skip();
	s = syms__new(getpid());
	assert_non_null(s);
	expect_named(s, (uint64_t)(uintptr_t)fn, 3, "__vdso_gettimeofday", "[vdso]");
	syms__free(s);
}

/* Our vDSO's size, from /proc/self/maps; 0 when it has none. */
static size_t own_vdso_bytes(void)
{
	unsigned long lo, hi;
	char line[512];
	size_t size = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			size = hi - lo;
	if (f)
		fclose(f);
	return size;
}

/* The link-time address of the image's .text. */
static uint64_t text_addr(const void *image, size_t size)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t addr = 0;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	e = elf_memory((char *)image, size);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".text"))
			addr = sh.sh_addr;
	}
	elf_end(e);
	return addr;
}

/*
 * The vDSO's static functions have no symbol in the image the kernel
 * maps; the kernel's own file of it has them. Our vDSO written out, given
 * a local function at .text+0x10 with objcopy (its build-id unchanged),
 * and put where kernels install it below a debug root: that name is
 * used. Without the file the same address has no such name.
 */
static void test_vdso_named_from_kernel_file(void **state)
{
	const void *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size = own_vdso_bytes();
	char root[] = "/tmp/ss-vdso-XXXXXX", dir[512], raw[600], file[600], cmd[2048];
	struct utsname u;
	struct sym_info si;
	struct syms *s;
	uint64_t addr;
	FILE *f;

	if (!image || !size)
		skip();	/* no vDSO in this environment */
	assert_int_equal(uname(&u), 0);
	assert_non_null(mkdtemp(root));
	addr = (uint64_t)(uintptr_t)image + text_addr(image, size) + 0x10;
	snprintf(raw, sizeof(raw), "%s/vdso.raw", root);
	f = fopen(raw, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(image, 1, size, f), size);
	fclose(f);
	syms__set_debug_root(root);
	s = syms__new(getpid());
	assert_non_null(s);
	assert_true(syms__resolve(s, addr + 2, &si) != 0 || !si.name ||
		    strcmp(si.name, "vdso_kernel_static"));
	syms__free(s);
	snprintf(dir, sizeof(dir), "%s/lib/modules/%s/vdso", root, u.release);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && objcopy --add-symbol "
		 "vdso_kernel_static=.text:0x10,function,local '%s' '%s/vdso64.so'", dir, raw, dir);
	assert_int_equal(system(cmd), 0);
	syms__set_debug_root(root);	/* flushes the cache: the image is looked up again */
	s = syms__new(getpid());
	assert_non_null(s);
	assert_int_equal(syms__resolve(s, addr + 2, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "vdso_kernel_static");
	syms__free(s);
	syms__set_debug_root(NULL);
	snprintf(file, sizeof(file), "rm -rf '%s'", root);
	assert_int_equal(system(file), 0);
}

static void test_unknown_is_said(void **state)
{
	struct syms *s = syms__new(getpid());
	struct syms_stats st;
	struct sym_info si;
	char buf[64];

	assert_non_null(s);
	assert_int_equal(syms__resolve(s, 0x10, &si), -ENOENT);
	assert_null(si.name);
	assert_null(si.module);
	assert_string_equal(syms__format(s, 0x20, buf, sizeof(buf)), "[unknown]");
	syms__stats(s, &st);
	assert_true(st.unknown == 2);
	assert_true(st.resolved == 0);
	syms__free(s);
}

static void test_no_such_process(void **state)
{
	/* pid_max is at most 2^22 */
	assert_null(syms__new(1 << 23));
	assert_int_equal(errno, ENOENT);
}

/* Debian's libc keeps no frame pointers: a stack through it is the case
 * the user must be told about. The fixture itself keeps them. */
static void test_modules_without_frame_pointers(void **state)
{
	struct syms_fp_module mods[8];
	struct sf_run r;
	struct syms *s;
	size_t n;

	assert_int_equal(sf_start(&r, "fixtures/syms_fp_pie"), 0);
	s = syms__new(r.pid);
	assert_non_null(s);
	assert_int_equal(syms__modules_without_fp(s, mods, 8), 0);
	{
		struct sym_info si;

		assert_int_equal(syms__resolve(s, r.leaf, &si), 0);
	}
	assert_int_equal(syms__modules_without_fp(s, mods, 8), 0);
	syms__free(s);
	sf_stop(&r);

	s = syms__new(getpid());
	assert_non_null(s);
	{
		struct sym_info si;

		assert_int_equal(syms__resolve(s, (uint64_t)(uintptr_t)getpid, &si), 0);
	}
	assert_int_equal(syms__frame_pointers(s, (uint64_t)(uintptr_t)getpid), FRAME_PTR_NO);
	n = syms__modules_without_fp(s, mods, 8);
	assert_true(n >= 1);
	for (size_t i = 0; i < n && i < 8; i++)
		if (ends_with(mods[i].path, "/libc.so.6")) {
			assert_int_equal(mods[i].fp, FRAME_PTR_NO);
			n = 0;
		}
	assert_int_equal(n, 0);	/* libc was among them */
	syms__free(s);
}

static int setup(void **state)
{
	syms__set_debug_root(tl_path("fixtures/debugroot"));
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_with_frame_pointers),
		cmocka_unit_test(test_non_pie),
		cmocka_unit_test(test_without_frame_pointers),
		cmocka_unit_test(test_exports_only),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_debuglink_checked_by_crc),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_debug_file_routes),
		cmocka_unit_test(test_stale_debug_file_refused),
		cmocka_unit_test(test_shared_object),
		cmocka_unit_test(test_vdso_of_child),
		cmocka_unit_test(test_libc_exports_of_self),
		cmocka_unit_test(test_vdso_of_self),
		cmocka_unit_test(test_vdso_named_from_kernel_file),
		cmocka_unit_test(test_unknown_is_said),
		cmocka_unit_test(test_no_such_process),
		cmocka_unit_test(test_modules_without_frame_pointers),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

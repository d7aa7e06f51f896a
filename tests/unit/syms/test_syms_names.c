// SPDX-License-Identifier: GPL-2.0
/*
 * The names symbolization gives, checked against binutils rather than our
 * own reader: PLT stubs named "<import>@plt" as objdump names them (x86
 * .plt, .plt.got, IBT's .plt.sec, AArch64), addresses past a function's
 * end or its section's end left unnamed, symbol versions and glibc's
 * __GI_ aliases dropped, C++ and Rust
 * names demangled as c++filt does and cut to a readable length. Files
 * through elf_symtab.c, live fixtures through syms.c.
 */
#include "testlib.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "syms/demangle.h"
#include "syms/elf_symtab.h"
#include "syms/syms.h"
#include "syms_fixture.h"

struct stub {
	uint64_t addr;
	char name[256];		/* with "@plt" */
};

static struct elf_symtab *load(const char *fixture)
{
	int fd = open(tl_path(fixture), O_RDONLY | O_CLOEXEC);
	struct elf_symtab *st;
	int err;

	assert_true(fd >= 0);
	st = elf_symtab__load_fd(fd, &err);
	close(fd);
	if (!st)
		fail_msg("%s: load failed (%d)", fixture, err);
	return st;
}

/* The stubs objdump labels "<name@plt>" in build/fixtures/<fixture>.plt. */
static size_t objdump_stubs(const char *fixture, struct stub *out, size_t max)
{
	char path[256], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.plt", fixture);
	f = fopen(tl_path(path), "re");
	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long a;

		if (sscanf(line, "%llx <%255[^>]>:", &a, out[n].name) == 2) {
			out[n].addr = a;
			n++;
		}
	}
	fclose(f);
	return n;
}

/* Link-time address of the stub objdump calls name ("getpid@plt"). */
static uint64_t stub_addr(const char *fixture, const char *name)
{
	struct stub stubs[64];
	size_t n = objdump_stubs(fixture, stubs, 64);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(stubs[i].name, name))
			return stubs[i].addr;
	fail_msg("%s: objdump names no %s", fixture, name);
	return 0;
}

/* Address and size of a section, as readelf reports it; false if none. */
static bool section_of(const char *fixture, const char *name, uint64_t *addr, uint64_t *size)
{
	char *const argv[] = { "/usr/bin/readelf", "-SW", (char *)tl_path(fixture), NULL };
	char *out = NULL, *line, *save = NULL, want[64];
	bool found = false;

	assert_int_equal(tl_run(argv, &out, NULL), 0);
	snprintf(want, sizeof(want), " %s ", name);
	for (line = strtok_r(out, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		const char *p = strstr(line, want);
		unsigned long long a, off, sz;
		char type[32];

		if (p && sscanf(p + strlen(want), "%31s %llx %llx %llx", type, &a, &off, &sz) == 4) {
			*addr = a;
			*size = sz;
			found = true;
		}
	}
	free(out);
	return found;
}

static const char *raw_at(const struct elf_symtab *st, uint64_t vaddr, uint64_t *off)
{
	const char *name = elf_symtab__find(st, vaddr, off);

	return name ? name : "(none)";
}

/* Every stub objdump names, at its start and inside it, and the PLT's
 * own header: "[plt]", never the _init that precedes the section. */
static void check_stubs(const char *fixture, const char *plt0_section, size_t min_stubs)
{
	struct stub stubs[64];
	struct elf_symtab *st = load(fixture);
	size_t n = objdump_stubs(fixture, stubs, 64);
	uint64_t off, addr, size;

	if (n < min_stubs)
		fail_msg("%s: objdump names only %zu stubs", fixture, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(raw_at(st, stubs[i].addr, &off), stubs[i].name);
		assert_true(off == 0);
		assert_string_equal(raw_at(st, stubs[i].addr + 4, &off), stubs[i].name);
		assert_true(off == 4);
	}
	assert_true(section_of(fixture, plt0_section, &addr, &size));
	for (uint64_t a = addr; a < addr + 16; a += 5) {
		assert_string_equal(raw_at(st, a, &off), "[plt]");
		assert_true(off == a - addr);
	}
	elf_symtab__free(st);
}

static void test_plt_stubs_as_objdump_names_them(void **state)
{
	check_stubs("fixtures/syms_nopie", ".plt", 8);
	check_stubs("fixtures/syms_fp_pie", ".plt", 9);		/* .plt and .plt.got */
	check_stubs("fixtures/syms_ibt", ".plt", 9);		/* .plt.sec on x86 */
	check_stubs("fixtures/libsyms_fixture.so", ".plt", 1);	/* .plt.got only */
	check_stubs("fixtures/syms_cxx", ".plt", 15);
	check_stubs("fixtures/syms_arm64", ".plt", 12);		/* adrp/ldr/br stubs */
}

/* With IBT, .plt holds the lazy-binding stubs (endbr64; push $i; jmp
 * PLT0) and calls go to .plt.sec: stub i of each is the same import. */
static void test_ibt_lazy_stubs_named_by_index(void **state)
{
	struct elf_symtab *st = load("fixtures/syms_ibt");
	uint64_t plt, plt_size, sec, sec_size, off;
	char name[256];

	assert_true(section_of("fixtures/syms_ibt", ".plt", &plt, &plt_size));
	if (!section_of("fixtures/syms_ibt", ".plt.sec", &sec, &sec_size)) {
		elf_symtab__free(st);
		skip();	/* not x86: no IBT layout */
	}
	assert_true(sec_size / 16 >= 5);
	for (uint64_t i = 0; i < sec_size / 16; i++) {
		snprintf(name, sizeof(name), "%s", raw_at(st, sec + i * 16, &off));
		assert_non_null(strstr(name, "@plt"));
		assert_string_equal(raw_at(st, plt + 16 + i * 16 + 4, &off), name);
	}
	elf_symtab__free(st);
}

/* Starts a fixture and a symbolizer on it; *bias is its load address
 * less link-time addresses, from leaf_sym (the function it prints as
 * leaf=). */
static struct syms *start_live(const char *fixture, const char *leaf_sym, struct sf_run *r, uint64_t *bias)
{
	struct syms *s;

	assert_int_equal(sf_start(r, fixture), 0);
	*bias = r->leaf - sf_nm(tl_path(fixture), leaf_sym);
	s = syms__new(r->pid);
	assert_non_null(s);
	return s;
}

/* The stubs of a running PIE, through its maps: what a folded stack of
 * demo_locked_update -> pthread_mutex_lock showed as "_init". */
static void check_live_stub(const char *fixture, const char *base)
{
	uint64_t bias, addr = stub_addr(fixture, "getpid@plt");
	char buf[256], want[300];
	struct sym_info si;
	struct sf_run r;
	struct syms *s;

	s = start_live(fixture, "syms_fixture_leaf", &r, &bias);
	assert_int_equal(syms__resolve(s, bias + addr + 6, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "getpid@plt");
	assert_string_equal(si.raw_name, "getpid@plt");
	snprintf(want, sizeof(want), "getpid@plt+0x6 (%s)", base);
	assert_string_equal(syms__format(s, bias + addr + 6, buf, sizeof(buf)), want);
	syms__free(s);
	sf_stop(&r);
}

static void test_plt_of_live_process(void **state)
{
	check_live_stub("fixtures/syms_fp_pie", "syms_fp_pie");
	check_live_stub("fixtures/syms_ibt", "syms_ibt");
}

/*
 * The fixture's assembly: syms_fixture_sized (one `ret`, sized), 16 bytes
 * no symbol covers, syms_fixture_sizeless (size 0) ending section
 * syms_fixture_asm_a, then syms_fixture_asm_b starting with 32 unnamed
 * bytes before syms_fixture_after.
 */
static void check_asm_layout(const char *fixture)
{
	const char *path = tl_path(fixture);
	uint64_t sized = sf_nm(path, "syms_fixture_sized");
	uint64_t sizeless = sf_nm(path, "syms_fixture_sizeless");
	uint64_t after = sf_nm(path, "syms_fixture_after");
	struct elf_symtab *st = load(fixture);
	uint64_t a, a_size, b, b_size, off;

	assert_true(sized && sizeless && after);
	assert_true(section_of(fixture, "syms_fixture_asm_a", &a, &a_size));
	assert_true(section_of(fixture, "syms_fixture_asm_b", &b, &b_size));
	/* the layout the checks rest on */
	assert_true(a == sized && sizeless < a + a_size && b >= a + a_size && b - (a + a_size) < 8);
	assert_true(after == b + 32);

	assert_string_equal(raw_at(st, sized, &off), "syms_fixture_sized");
	/* past the end of a sized function: no name, not the nearest one */
	assert_null(elf_symtab__find(st, sizeless - 16, &off));
	assert_null(elf_symtab__find(st, sizeless - 1, &off));
	/* a function of size 0 runs to its section's end, not beyond */
	assert_string_equal(raw_at(st, a + a_size - 1, &off), "syms_fixture_sizeless");
	assert_true(off == a + a_size - 1 - sizeless);
	assert_null(elf_symtab__find(st, b, &off));
	assert_null(elf_symtab__find(st, b + 31, &off));
	assert_string_equal(raw_at(st, after, &off), "syms_fixture_after");
	elf_symtab__free(st);
}

static void test_no_name_past_a_function_or_section(void **state)
{
	check_asm_layout("fixtures/syms_nopie");
	check_asm_layout("fixtures/syms_fp_pie");
	check_asm_layout("fixtures/syms_arm64");
}

/* The same through a live process: module+offset, as for any code
 * without a symbol. */
static void test_unnamed_gap_of_live_process(void **state)
{
	const char *path = tl_path("fixtures/syms_fp_pie");
	uint64_t bias, addr, start, off;
	char buf[256], want[256];
	struct sym_info si;
	struct sf_run r;
	struct syms *s;

	s = start_live("fixtures/syms_fp_pie", "syms_fixture_leaf", &r, &bias);
	addr = bias + sf_nm(path, "syms_fixture_sizeless") - 1;
	assert_int_equal(syms__resolve(s, addr, &si), 0);
	assert_null(si.name);
	assert_null(si.raw_name);
	assert_int_equal(sf_mapping_of(r.pid, addr, &start, &off), 0);
	snprintf(want, sizeof(want), "syms_fp_pie+0x%" PRIx64, addr - start + off);
	assert_string_equal(syms__format(s, addr, buf, sizeof(buf)), want);
	syms__free(s);
	sf_stop(&r);
}

/* .symtab keeps symbol versions ("name@@SYMS_2", "name@SYMS_1"): both
 * versions show as the plain name. */
static void test_version_suffix_dropped(void **state)
{
	const char *path = tl_path("fixtures/libsyms_fixture_ver.so");
	uint64_t v1 = sf_nm(path, "syms_fixture_versioned@SYMS_1");
	uint64_t v2 = sf_nm(path, "syms_fixture_versioned@@SYMS_2");
	struct elf_symtab *st = load("fixtures/libsyms_fixture_ver.so");
	uint64_t off;

	assert_true(v1 && v2 && v1 != v2);
	assert_int_equal(elf_symtab__source(st), ELF_SYMS_SYMTAB);
	assert_string_equal(raw_at(st, v1 + 1, &off), "syms_fixture_versioned");
	assert_string_equal(raw_at(st, v2 + 1, &off), "syms_fixture_versioned");
	assert_string_equal(raw_at(st, sf_nm(path, "syms_fixture_lib_func"), &off), "syms_fixture_lib_func");
	elf_symtab__free(st);
}

/* glibc's "__GI_" internal aliases give way to the plain name, though
 * both are local and the __GI_ one comes first (as in libc6-dbg's
 * __GI___lll_lock_wait / __lll_lock_wait). */
static void test_internal_alias_not_shown(void **state)
{
	const char *path = tl_path("fixtures/libsyms_fixture_ver.so");
	uint64_t a = sf_nm(path, "__syms_fixture_internal");
	struct elf_symtab *st = load("fixtures/libsyms_fixture_ver.so");
	uint64_t off;

	assert_true(a != 0 && a == sf_nm(path, "__GI___syms_fixture_internal"));
	assert_string_equal(raw_at(st, a + 1, &off), "__syms_fixture_internal");
	elf_symtab__free(st);
}

/* libc's clock_gettime, whose .symtab names (libc6-dbg, found by
 * build-id) are clock_gettime@@GLIBC_2.17 and clock_gettime@GLIBC_2.2.5;
 * without the debug package .dynsym names it plainly. dlsym on libc's
 * handle: the sanitizers intercept clock_gettime in this process. */
static void test_libc_clock_gettime(void **state)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn = libc ? dlsym(libc, "clock_gettime") : NULL;
	struct sym_info si;
	struct syms *s;

	assert_non_null(fn);
	syms__set_debug_root(NULL);
	s = syms__new(getpid());
	assert_non_null(s);
	assert_int_equal(syms__resolve(s, (uint64_t)(uintptr_t)fn + 3, &si), 0);
	assert_non_null(si.name);
	assert_string_equal(si.name, "clock_gettime");
	assert_string_equal(si.raw_name, "clock_gettime");
	assert_true(si.offset == 3);
	syms__free(s);
	dlclose(libc);
}

/* What c++filt (binutils) makes of name. */
static void cxxfilt(const char *name, char *out, size_t size)
{
	char *const argv[] = { "/usr/bin/c++filt", (char *)name, NULL };
	char *text = NULL;

	assert_int_equal(tl_run(argv, &text, NULL), 0);
	assert_non_null(text);
	text[strcspn(text, "\n")] = '\0';
	snprintf(out, size, "%s", text);
	free(text);
}

static void test_cxx_names_demangled(void **state)
{
	uint64_t bias, new_stub = stub_addr("fixtures/syms_cxx", "_Znwm@plt");
	char buf[512], full[4096];
	struct sym_info si;
	struct sf_run r;
	struct syms *s;

	s = start_live("fixtures/syms_cxx", "_ZN2ns5Klass6methodEi", &r, &bias);

	assert_int_equal(syms__resolve(s, r.leaf + 1, &si), 0);
	assert_string_equal(si.name, "ns::Klass::method(int)");
	assert_string_equal(si.raw_name, "_ZN2ns5Klass6methodEi");
	assert_true(si.offset == 1);
	assert_string_equal(syms__format(s, r.leaf + 1, buf, sizeof(buf)), "ns::Klass::method(int)+0x1 (syms_cxx)");

	assert_int_equal(syms__resolve(s, r.chain, &si), 0);
	cxxfilt(si.raw_name, full, sizeof(full));
	assert_string_equal(si.name, full);
	assert_string_equal(si.name, "long ns::twice<long>(long)");

	/* hundreds of characters demangled: cut, with "..." */
	assert_int_equal(syms__resolve(s, r.stat + 2, &si), 0);
	cxxfilt(si.raw_name, full, sizeof(full));
	assert_true(strlen(full) > DEMANGLE_MAX_SHOWN);
	assert_int_equal(strlen(si.name), DEMANGLE_MAX_SHOWN);
	assert_string_equal(si.name + DEMANGLE_MAX_SHOWN - 3, "...");
	assert_memory_equal(si.name, full, DEMANGLE_MAX_SHOWN - 3);
	assert_non_null(strstr(si.name, "ns::long_named("));

	/* an import of the C++ runtime through the PLT */
	assert_int_equal(syms__resolve(s, bias + new_stub + 2, &si), 0);
	assert_string_equal(si.raw_name, "_Znwm@plt");
	assert_string_equal(si.name, "operator new(unsigned long)@plt");

	/* the second lookup is served from the cache: the same string */
	{
		const char *first = si.name;

		assert_int_equal(syms__resolve(s, bias + new_stub + 3, &si), 0);
		assert_ptr_equal(si.name, first);
	}
	syms__free(s);
	sf_stop(&r);
}

static void test_demangle_edges(void **state)
{
	char buf[DEMANGLE_MAX_SHOWN + 1], small[20];

	assert_int_equal(demangle__name("main", buf, sizeof(buf)), 0);
	assert_int_equal(demangle__name("_Z", buf, sizeof(buf)), 0);
	assert_int_equal(demangle__name("_Zzz_not_mangled", buf, sizeof(buf)), 0);
	assert_int_equal(demangle__name("_ZN2ns5Klass6methodEi", buf, sizeof(buf)),
			 strlen("ns::Klass::method(int)"));
	assert_string_equal(buf, "ns::Klass::method(int)");
	assert_true(demangle__name("_ZN2ns5Klass6methodEi@plt", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "ns::Klass::method(int)@plt");
	/* GCC's clones keep their suffix readable */
	assert_true(demangle__name("_ZN2ns5Klass6methodEi.cold", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "ns::Klass::method(int) [clone .cold]");
	/* a small buffer: cut, suffix kept */
	assert_int_equal(demangle__name("_ZN2ns5Klass6methodEi@plt", small, sizeof(small)), sizeof(small) - 1);
	assert_string_equal(small, "ns::Klass::m...@plt");
	assert_int_equal(demangle__name("_ZN2ns5Klass6methodEi@plt", small, 12), 0);
}

/* Rust names as rustc 1.95 wrote them for tests/workloads' mutex program
 * (nm of `rustc -O` and `rustc -O -C symbol-mangling-version=v0` builds):
 * the legacy hash dropped, v0 paths and impls as Rust spells them. */
static void test_demangle_rust(void **state)
{
	static const struct {
		const char *mangled, *shown;
	} names[] = {
		{ "_ZN1m11bump_shared17h76a8a9c58c86f9feE", "m::bump_shared" },
		{ "_RNvCskK7mfDs1mzF_1m11bump_shared", "m::bump_shared" },
		{ "_RNvMNtNtNtNtCsjrHSEGnQ3l9_3std3sys4sync5mutex5futexNtB2_5Mutex14lock_contended",
		  "<std::sys::sync::mutex::futex::Mutex>::lock_contended" },
		/* LLVM's local clones keep the function's name */
		{ "_RNvCskK7mfDs1mzF_1m11bump_shared.llvm.123", "m::bump_shared" },
	};
	char buf[DEMANGLE_MAX_SHOWN + 1];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_true(demangle__is_mangled(names[i].mangled));
		assert_int_equal(demangle__name(names[i].mangled, buf, sizeof(buf)), strlen(names[i].shown));
		assert_string_equal(buf, names[i].shown);
	}
	/* a legacy-looking name without the hash is C++ to the demangler */
	assert_true(demangle__name("_ZN1m11bump_sharedE", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "m::bump_shared");
	/* a cut v0 name, and "_R" alone, are shown raw */
	assert_int_equal(demangle__name("_RNvCskK7mfDs1mzF_1m11bump_sh", buf, sizeof(buf)), 0);
	assert_int_equal(demangle__name("_R", buf, sizeof(buf)), 0);
	assert_false(demangle__is_mangled("bump_shared"));
}

/* Hostile names: long, deeply nested or cut mangled names must end (the
 * demangler has a recursion limit) and stay within the cap. */
static void test_demangle_hostile(void **state)
{
	char name[DEMANGLE_MAX_INPUT + 8], buf[DEMANGLE_MAX_SHOWN + 1];
	size_t len;

	/* _Z1fPPPP...i: pointer to pointer ... to int, 1000 levels */
	len = (size_t)snprintf(name, sizeof(name), "_Z1f");
	while (len < 1004)
		name[len++] = 'P';
	name[len++] = 'i';
	name[len] = '\0';
	assert_true(demangle__name(name, buf, sizeof(buf)) <= DEMANGLE_MAX_SHOWN);
	/* too long to be taken at all */
	memset(name, 'N', sizeof(name) - 1);
	memcpy(name, "_Z", 2);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(demangle__name(name, buf, sizeof(buf)), 0);
	/* a v0 path nested 1000 deep ("NvNvNv...": the Rust demangler's
	 * recursion limit) */
	len = (size_t)snprintf(name, sizeof(name), "_R");
	for (; len < 1000; len++)
		name[len] = len % 2 ? 'v' : 'N';
	name[len] = '\0';
	assert_true(demangle__name(name, buf, sizeof(buf)) <= DEMANGLE_MAX_SHOWN);
	/* every prefix of a real name */
	for (size_t i = 2; i < strlen("_ZN2ns5Klass6methodEi"); i++) {
		snprintf(name, i + 1, "%s", "_ZN2ns5Klass6methodEi");
		assert_true(demangle__name(name, buf, sizeof(buf)) <= DEMANGLE_MAX_SHOWN);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plt_stubs_as_objdump_names_them),
		cmocka_unit_test(test_ibt_lazy_stubs_named_by_index),
		cmocka_unit_test(test_plt_of_live_process),
		cmocka_unit_test(test_no_name_past_a_function_or_section),
		cmocka_unit_test(test_unnamed_gap_of_live_process),
		cmocka_unit_test(test_version_suffix_dropped),
		cmocka_unit_test(test_internal_alias_not_shown),
		cmocka_unit_test(test_libc_clock_gettime),
		cmocka_unit_test(test_cxx_names_demangled),
		cmocka_unit_test(test_demangle_edges),
		cmocka_unit_test(test_demangle_rust),
		cmocka_unit_test(test_demangle_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

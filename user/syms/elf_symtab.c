// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbols of one ELF image (see elf_symtab.h). Names are copied
 * out of the image so that the file can be closed and unmapped: the cache
 * holds only this compact form (16 bytes per symbol plus its name).
 *
 * PLT stubs have no symbols of their own: each is given one, named
 * "<import>@plt" after the GOT slot its jump goes through (the dynamic
 * relocation that fills that slot names the import), as perf and objdump
 * do. C++ and Rust names are demangled when first shown, not on load.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/sort.h"
#include "demangle.h"
#include "elf_symtab.h"
#include "strpool.h"

/* A symbol of size 0 (hand-written assembly) is taken to run up to the
 * next symbol, but not across the end of its section nor further than
 * this. */
#define SIZELESS_SPAN		4096
/* Symbols that may start inside a bigger one before the lookup gives up
 * looking back for the enclosing function. */
#define NESTED_LOOKBACK		8
#define FRAME_PTR_SAMPLES	64
#define MAX_PHDRS		4096
#define MAX_NOTE_BYTES		(64u << 10)
/* PLT sections and dynamic relocations read to name the stubs */
#define MAX_PLT_BYTES		(4u << 20)
#define MAX_RELOCS		(1u << 20)
#define MAX_REL_SECTIONS	8
#define PLT_SUFFIX		"@plt"
/* an address in a PLT section whose stub could not be tied to an import */
#define PLT_UNKNOWN		"[plt]"
/* Display names (demangled) kept per image, in blocks that never move:
 * callers hold the pointers. */
#define SHOWN_BLOCK		(64u << 10)
#define SHOWN_MAX_BYTES		(16u << 20)

struct elf_sym {
	uint64_t addr;
	uint32_t size;
	uint32_t name;		/* offset in strs */
};

struct elf_segment {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	bool exec;
};

struct elf_range {
	uint64_t addr;
	uint64_t size;
};

struct shown_block {
	struct shown_block *next;
	size_t used;
	char buf[SHOWN_BLOCK];
};

/* Names as shown, made on first lookup: for each symbol (syms, then plt)
 * NULL until asked, then the demangled name or the raw one. */
struct elf_shown {
	const char **names;
	size_t n;
	struct shown_block *blocks;
	size_t bytes;
};

struct elf_symtab {
	struct elf_sym *syms;
	size_t nsyms;
	char *strs;
	size_t strs_len;
	/* one symbol per PLT stub, "<import>@plt"; kept when the symbols
	 * are taken from a debug file, whose PLT has no contents */
	struct elf_sym *plt;
	size_t nplt;
	char *plt_strs;
	size_t plt_strs_len;
	struct elf_range plt_secs[ELF_SYMTAB_MAX_PLT_SECS];
	size_t nplt_secs;
	/* filled while looking up through a const pointer: the cache of
	 * what is shown, not part of the loaded table */
	struct elf_shown *shown;
	struct elf_segment segs[ELF_SYMTAB_MAX_SEGS];
	size_t nsegs;
	uint16_t machine;
	enum elf_sym_source source;
	enum frame_ptr_state frame_ptr;
	uint8_t build_id[ELF_SYMTAB_MAX_BUILD_ID];
	size_t build_id_len;
	char debuglink[ELF_SYMTAB_MAX_LINK];
	uint32_t debuglink_crc;
};

/* A symbol while loading: rank orders aliases at one address; shndx
 * bounds a symbol of size 0 by its section. 24 bytes: sorting these is
 * most of the load time. */
struct raw_sym {
	uint64_t addr;
	uint32_t size;		/* capped: a function is not 4 GiB long */
	uint32_t name;
	uint16_t rank;
	uint16_t shndx;
};

/* v (n elements used of *cap) with room for one more: v itself, or
 * moved; NULL when out of memory, v then left as it was. */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	size_t ncap;

	if (n < *cap)
		return v;
	ncap = *cap ? *cap * 2 : 64;
	v = realloc(v, ncap * size);
	if (v)
		*cap = ncap;
	return v;
}

/* Among aliases (memcpy, __memcpy, ...) prefer the global name without
 * leading underscores, so that the same address always gets the same,
 * most familiar name. glibc's internal aliases ("__GI___lll_lock_wait"
 * for __lll_lock_wait) come last. Lower rank is better. */
static uint16_t alias_rank(unsigned char bind, const char *name)
{
	uint32_t r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	uint32_t under = 0;

	/* checked char by char first: most names start with "_Z" */
	if (name[0] == '_' && name[1] == '_' && name[2] == 'G' && name[3] == 'I' && name[4] == '_')
		return (uint16_t)(r << 3 | 7);
	while (name[under] == '_' && under < 6)
		under++;
	return (uint16_t)(r << 3 | under);
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static bool is_function(const GElf_Sym *sym)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return false;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS || sym->st_value == 0)
		return false;
	return true;
}

/* End address of each allocated section by index (0: not allocated), so
 * that a symbol of size 0 stops where its section does. NULL on no memory
 * or no sections. */
static uint64_t *section_ends(Elf *e, size_t *n)
{
	uint64_t *ends;

	if (elf_getshdrnum(e, n) != 0 || *n == 0)
		return NULL;
	if (*n > ELF_SYMTAB_MAX_SECTIONS)
		*n = ELF_SYMTAB_MAX_SECTIONS;
	ends = calloc(*n, sizeof(*ends));
	for (size_t i = 1; ends && i < *n; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;

		if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_addr + sh.sh_size > sh.sh_addr)
			ends[i] = sh.sh_addr + sh.sh_size;
	}
	return ends;
}

/* Length of name without a symbol version: .symtab keeps the versions of
 * a shared object's definitions ("clock_gettime@@GLIBC_2.17",
 * "memcpy@GLIBC_2.2.5"); people know the plain name. */
static size_t unversioned_len(const char *name)
{
	const char *at = strchr(name + 1, '@');

	return at ? (size_t)(at - name) : strlen(name);
}

/* Sizes for the symbols of size 0: up to the next symbol, the end of the
 * section or SIZELESS_SPAN, whichever comes first. */
static void size_sizeless(struct elf_sym *out, size_t n, const uint64_t *sec_end)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t span = SIZELESS_SPAN;

		if (out[i].size)
			continue;
		if (i + 1 < n && out[i + 1].addr - out[i].addr < span)
			span = out[i + 1].addr - out[i].addr;
		if (sec_end[i] != UINT64_MAX)
			span = sec_end[i] <= out[i].addr ? 0 :
			       sec_end[i] - out[i].addr < span ? sec_end[i] - out[i].addr : span;
		out[i].size = (uint32_t)span;
	}
}

/*
 * The sorted raw symbols, one per address (aliases give way to the
 * better-ranked one, which keeps the largest size), into out, with the end
 * of each one's section (ends[shndx], nsec of them) in out_end. Returns how
 * many were kept.
 */
static size_t one_per_address(const struct raw_sym *raw, size_t nraw, const uint64_t *ends,
			      size_t nsec, struct elf_sym *out, uint64_t *out_end)
{
	size_t n = 0;

	for (size_t i = 0; i < nraw; i++) {
		uint16_t k = raw[i].shndx;

		if (n && out[n - 1].addr == raw[i].addr) {
			/* an alias of the better-ranked symbol just kept */
			if (out[n - 1].size < raw[i].size)
				out[n - 1].size = raw[i].size;
			continue;
		}
		/* unknown section (none, or SHN_XINDEX and the like): no bound */
		out_end[n] = ends && k < nsec && ends[k] ? ends[k] : UINT64_MAX;
		out[n++] = (struct elf_sym){ .addr = raw[i].addr, .size = raw[i].size, .name = raw[i].name };
	}
	return n;
}

/*
 * Reads the function symbols of one symbol table section into st (sorted,
 * one per address). Returns the number kept, or -errno.
 */
static ssize_t read_symbols(struct elf_symtab *st, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	struct raw_sym *raw = NULL;
	size_t count, nraw = 0, cap = 0, nsec = 0;
	struct strpool pool = { .max = ELF_SYMTAB_MAX_STRS, .max_name = ELF_SYMTAB_MAX_NAME };
	struct elf_sym *out = NULL;
	uint64_t *ends, *out_end = NULL;
	size_t n = 0;

	if (!data || !entsz || !data->d_buf)
		return -ENOEXEC;
	ends = section_ends(e, &nsec);
	count = data->d_size / entsz;
	if (count > ELF_SYMTAB_MAX_SYMS)
		count = ELF_SYMTAB_MAX_SYMS;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		struct raw_sym *p;
		int64_t off;

		if (!gelf_getsym(data, (int)i, &sym) || !is_function(&sym))
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		p = grow(raw, nraw, &cap, sizeof(*raw));
		if (!p)
			goto nomem;
		raw = p;
		/* .dynsym keeps versions apart, in .gnu.version */
		off = strpool__add(&pool, name, sh->sh_type == SHT_SYMTAB ? unversioned_len(name) : SIZE_MAX);
		if (off < 0)
			break;	/* name pool full: keep what fits */
		raw[nraw++] = (struct raw_sym){
			.addr = sym.st_value,
			.size = sym.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)sym.st_size,
			.name = (uint32_t)off,
			.rank = alias_rank(GELF_ST_BIND(sym.st_info), name),
			.shndx = sym.st_shndx,
		};
	}
	if (nraw)
		ss_sort(raw, nraw, sizeof(*raw), raw_cmp);
	out = malloc((nraw ? nraw : 1) * sizeof(*out));
	out_end = malloc((nraw ? nraw : 1) * sizeof(*out_end));
	if (!out || !out_end)
		goto nomem;
	n = one_per_address(raw, nraw, ends, nsec, out, out_end);
	size_sizeless(out, n, out_end);
	free(out_end);
	free(ends);
	free(raw);
	free(st->syms);
	free(st->strs);
	/* the pool lives as long as the cache entry: drop its slack */
	strpool__shrink(&pool);
	st->syms = out;
	st->nsyms = n;
	st->strs = pool.buf;
	st->strs_len = pool.len;
	return (ssize_t)n;
nomem:
	free(out);
	free(out_end);
	free(ends);
	free(raw);
	strpool__free(&pool);
	return -ENOMEM;
}

static void read_build_id(struct elf_symtab *st, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || data->d_size > MAX_NOTE_BYTES)
		return;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > off) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= ELF_SYMTAB_MAX_BUILD_ID) {
			memcpy(st->build_id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			st->build_id_len = nh.n_descsz;
			return;
		}
		off = next;
	}
}

/* .gnu_debuglink: file name, NUL, padding to 4, CRC32 of the debug file.
 * Names with a '/' are refused: the link names a file, not a path. */
static void read_debuglink(struct elf_symtab *st, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, crc_off;
	const char *p;

	if (!data || !data->d_buf)
		return;
	p = data->d_buf;
	n = strnlen(p, data->d_size);
	crc_off = (n + 4) & ~(size_t)3;
	if (n == 0 || n >= ELF_SYMTAB_MAX_LINK || crc_off + 4 > data->d_size)
		return;
	if (memchr(p, '/', n) || !strcmp(p, ".") || !strcmp(p, ".."))
		return;
	memcpy(st->debuglink, p, n + 1);
	memcpy(&st->debuglink_crc, p + crc_off, 4);	/* target byte order = ours */
}

static void read_segments(struct elf_symtab *st, Elf *e)
{
	size_t n;

	if (elf_getphdrnum(e, &n) != 0)
		return;
	if (n > MAX_PHDRS)
		n = MAX_PHDRS;
	for (size_t i = 0; i < n && st->nsegs < ELF_SYMTAB_MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && ph.p_filesz > 0 && ph.p_offset + ph.p_filesz >= ph.p_offset)
			st->segs[st->nsegs++] = (struct elf_segment){
				.vaddr = ph.p_vaddr,
				.offset = ph.p_offset,
				.filesz = ph.p_filesz,
				.exec = ph.p_flags & PF_X,
			};
		else if (ph.p_type == PT_NOTE && !st->build_id_len)
			read_build_id(st, elf_getdata_rawchunk(e, (int64_t)ph.p_offset,
							       ph.p_filesz, ELF_T_NHDR));
	}
}

/* Imported functions by the GOT slot their PLT stub jumps through, from
 * the dynamic relocations that fill the slots (JUMP_SLOT for .plt and
 * .plt.sec, GLOB_DAT for .plt.got); jump[] is .rela.plt in order, whose
 * index x86's lazy-binding stubs push. Names point into the open image. */
struct got_name {
	uint64_t got;
	const char *name;
};

struct imports {
	struct got_name *v;
	size_t n;
	const char **jump;
	size_t njump;
};

static int got_cmp(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static bool is_import_reloc(uint16_t machine, uint32_t type)
{
	switch (machine) {
	case EM_X86_64:
		return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
	case EM_AARCH64:
		return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT;
	default:
		return false;
	}
}

static void imports_free(struct imports *im)
{
	free(im->v);
	free(im->jump);
}

static int add_import(struct imports *im, size_t *cap, uint64_t got, const char *name)
{
	struct got_name *v = grow(im->v, im->n, cap, sizeof(*im->v));

	if (!v)
		return -ENOMEM;
	im->v = v;
	im->v[im->n++] = (struct got_name){ .got = got, .name = name };
	return 0;
}

/* Where the relocations that name imports start: the linker sorts the
 * relative ones (most of a big library's: 355k in libLLVM) first and says
 * how many there are in DT_RELACOUNT, so they need not be read at all. */
struct dyn_info {
	uint64_t rel_addr;	/* DT_RELA or DT_REL */
	uint64_t relative;	/* DT_RELACOUNT or DT_RELCOUNT */
};

static void read_dynamic(Elf *e, Elf_Scn *scn, struct dyn_info *di)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsz = gelf_fsize(e, ELF_T_DYN, 1, EV_CURRENT);
	size_t count;

	if (!data || !data->d_buf || !entsz)
		return;
	count = data->d_size / entsz;
	for (size_t i = 0; i < count && i < MAX_RELOCS; i++) {
		GElf_Dyn d;

		if (!gelf_getdyn(data, (int)i, &d) || d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_RELA || d.d_tag == DT_REL)
			di->rel_addr = d.d_un.d_ptr;
		else if (d.d_tag == DT_RELACOUNT || d.d_tag == DT_RELCOUNT)
			di->relative = d.d_un.d_val;
	}
}

/* Reads one relocation section against .dynsym into im, from entry
 * first on; -ENOMEM or 0. */
static int read_relocs(Elf *e, uint16_t machine, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Data *dsyms,
		       size_t dstr, bool jump_table, uint64_t first, struct imports *im, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	bool rela = sh->sh_type == SHT_RELA;
	size_t entsz = gelf_fsize(e, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	size_t count;

	if (!data || !data->d_buf || !entsz)
		return 0;
	count = data->d_size / entsz;
	if (count > MAX_RELOCS)
		count = MAX_RELOCS;
	if (jump_table && !im->jump) {
		im->jump = calloc(count + 1, sizeof(*im->jump));
		if (!im->jump)
			return -ENOMEM;
		im->njump = count;
	} else {
		jump_table = false;
	}
	for (size_t i = first; i < count; i++) {
		const char *name = NULL;
		GElf_Rela r;
		GElf_Rel rl;
		GElf_Sym sym;

		if (rela ? !gelf_getrela(data, (int)i, &r) : !gelf_getrel(data, (int)i, &rl))
			continue;
		if (!rela) {
			r.r_offset = rl.r_offset;
			r.r_info = rl.r_info;
		}
		if (GELF_R_SYM(r.r_info) && is_import_reloc(machine, (uint32_t)GELF_R_TYPE(r.r_info)) &&
		    gelf_getsym(dsyms, (int)GELF_R_SYM(r.r_info), &sym))
			name = elf_strptr(e, dstr, sym.st_name);
		if (!name || !*name)
			continue;
		if (jump_table)
			im->jump[i] = name;
		if (add_import(im, cap, r.r_offset, name))
			return -ENOMEM;
	}
	return 0;
}

/* The imports of the dynamic relocations: .rela.plt always, the others
 * (.rela.dyn) only when a .plt.got has stubs that need them. */
static int read_imports(Elf *e, uint16_t machine, Elf_Scn *dynsym, Elf_Scn *const *rels, size_t nrels,
			size_t shstrndx, const struct dyn_info *di, bool want_glob_dat, struct imports *im)
{
	Elf_Data *dsyms = elf_getdata(dynsym, NULL);
	size_t dyn_index = elf_ndxscn(dynsym), cap = 0;
	GElf_Shdr dsh;
	int err;

	if (!dsyms || !dsyms->d_buf || !gelf_getshdr(dynsym, &dsh))
		return 0;
	for (size_t i = 0; i < nrels; i++) {
		const char *name;
		GElf_Shdr sh;
		bool jump;

		if (!gelf_getshdr(rels[i], &sh) || sh.sh_link != dyn_index)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		jump = name && (!strcmp(name, ".rela.plt") || !strcmp(name, ".rel.plt"));
		if (!jump && !want_glob_dat)
			continue;
		err = read_relocs(e, machine, rels[i], &sh, dsyms, dsh.sh_link, jump,
				  !jump && sh.sh_addr == di->rel_addr ? di->relative : 0, im, &cap);
		if (err)
			return err;
	}
	if (im->n)
		ss_sort(im->v, im->n, sizeof(*im->v), got_cmp);
	return 0;
}

static const char *import_at(const struct imports *im, uint64_t got)
{
	size_t lo = 0, hi = im->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < im->n && im->v[lo].got == got ? im->v[lo].name : NULL;
}

/*
 * x86-64 stubs: [endbr64] [bnd] jmp *GOT(%rip) [push $index; jmp PLT0]
 * (.plt without IBT, .plt.sec, .plt.got), or endbr64; push $index;
 * bnd jmp PLT0 (.plt with IBT). PLT0 itself (push GOT+8) decodes to
 * nothing. Returns the import's name or NULL.
 */
static const char *x86_stub(const uint8_t *p, size_t n, uint64_t pc, const struct imports *im)
{
	const char *name = NULL;
	int64_t index = -1;
	size_t i = 0;

	if (n >= 4 && !memcmp(p, "\xf3\x0f\x1e\xfa", 4))
		i = 4;
	while (i < n) {
		int32_t v;

		if (p[i] == 0xf2 && i + 1 < n)
			i++;
		if (i + 6 <= n && p[i] == 0xff && p[i + 1] == 0x25) {
			memcpy(&v, p + i + 2, 4);
			if (!name)
				name = import_at(im, pc + i + 6 + (uint64_t)(int64_t)v);
			i += 6;
		} else if (i + 5 <= n && p[i] == 0x68) {
			memcpy(&v, p + i + 1, 4);
			index = v;
			i += 5;
		} else {
			break;
		}
	}
	if (!name && index >= 0 && (uint64_t)index < im->njump)
		name = im->jump[index];
	return name;
}

/* AArch64 stubs: [bti c] adrp x16, GOT page; ldr x17, [x16, #off];
 * add x16, x16, #off; br x17. */
static const char *a64_stub(const uint8_t *p, size_t n, uint64_t pc, const struct imports *im)
{
	for (size_t i = 0; i + 8 <= n; i += 4) {
		uint32_t adrp, ldr;
		uint64_t imm;

		memcpy(&adrp, p + i, 4);
		memcpy(&ldr, p + i + 4, 4);
		if ((adrp & 0x9f00001f) != 0x90000010 || (ldr & 0xffc003ff) != 0xf9400211)
			continue;
		/* immhi:immlo, 21 bits signed, in pages */
		imm = ((uint64_t)(adrp >> 5 & 0x7ffff) << 2 | (adrp >> 29 & 3)) << 43;
		return import_at(im, ((pc + i) & ~0xfffull) + (uint64_t)((int64_t)imm >> 31) +
					     (ldr >> 10 & 0xfff) * 8);
	}
	return NULL;
}

static int plt_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Adds a "<name>@plt" symbol for the stub at addr; -ENOMEM or 0. */
static int add_plt_sym(struct elf_symtab *st, struct strpool *pool, size_t *cap, uint64_t addr,
		       uint32_t size, const char *name)
{
	char buf[ELF_SYMTAB_MAX_NAME];
	struct elf_sym *v;
	int64_t off;

	v = grow(st->plt, st->nplt, cap, sizeof(*st->plt));
	if (!v)
		return -ENOMEM;
	st->plt = v;
	snprintf(buf, sizeof(buf), "%.*s" PLT_SUFFIX, (int)(sizeof(buf) - sizeof(PLT_SUFFIX)), name);
	off = strpool__add(pool, buf, SIZE_MAX);
	if (off < 0)
		return 0;	/* pool full: the stub is shown as [plt] */
	st->plt[st->nplt++] = (struct elf_sym){ .addr = addr, .size = size, .name = (uint32_t)off };
	return 0;
}

/* Names the stubs of the PLT sections; records the sections, so that a
 * stub left unnamed is at least said to be one. -ENOMEM or 0. */
static int read_plt(struct elf_symtab *st, Elf *e, Elf_Scn *const *plts, size_t nplts,
		    const struct imports *im)
{
	struct strpool pool = { .max = ELF_SYMTAB_MAX_STRS, .max_name = ELF_SYMTAB_MAX_NAME };
	size_t cap = 0;

	for (size_t k = 0; k < nplts; k++) {
		Elf_Data *data;
		GElf_Shdr sh;
		size_t entsz;

		if (!gelf_getshdr(plts[k], &sh) || !sh.sh_size || sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		st->plt_secs[st->nplt_secs++] = (struct elf_range){ .addr = sh.sh_addr, .size = sh.sh_size };
		if (sh.sh_type != SHT_PROGBITS || sh.sh_size > MAX_PLT_BYTES || !im->n)
			continue;
		data = elf_getdata(plts[k], NULL);
		if (!data || !data->d_buf)
			continue;
		entsz = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize : 16;
		for (size_t off = 0; off + entsz <= data->d_size && off + entsz <= sh.sh_size; off += entsz) {
			const uint8_t *p = (const uint8_t *)data->d_buf + off;
			uint64_t pc = sh.sh_addr + off;
			const char *name = st->machine == EM_X86_64  ? x86_stub(p, entsz, pc, im) :
					   st->machine == EM_AARCH64 ? a64_stub(p, entsz, pc, im) : NULL;

			if (name && add_plt_sym(st, &pool, &cap, pc, (uint32_t)entsz, name)) {
				strpool__free(&pool);
				return -ENOMEM;
			}
		}
	}
	if (st->nplt)
		ss_sort(st->plt, st->nplt, sizeof(*st->plt), plt_cmp);
	strpool__shrink(&pool);
	st->plt_strs = pool.buf;
	st->plt_strs_len = pool.len;
	return 0;
}

static bool is_plt_section(const GElf_Shdr *sh, const char *name)
{
	return name && (sh->sh_flags & SHF_EXECINSTR) && !strncmp(name, ".plt", 4) &&
	       (name[4] == '\0' || name[4] == '.');
}

/* The sections load_elf() reads, found in one pass over the headers. */
struct elf_sections {
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symtab_sh, dynsym_sh;
	Elf_Scn *rels[MAX_REL_SECTIONS], *plts[ELF_SYMTAB_MAX_PLT_SECS];
	size_t nrels, nplts;
	bool plt_got;			/* one of plts is .plt.got */
	size_t shstrndx;
	struct dyn_info di;
};

/* Finds the sections of sec, and reads on the way what needs nothing else:
 * the build ID, the debuglink and the dynamic section. */
static void scan_sections(struct elf_symtab *st, Elf *e, struct elf_sections *sec)
{
	Elf_Scn *scn = NULL;
	size_t nscn = 0;
	bool have_names = elf_getshdrstrndx(e, &sec->shstrndx) == 0;

	while ((scn = elf_nextscn(e, scn)) && nscn++ < ELF_SYMTAB_MAX_SECTIONS) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !sec->symtab) {
			sec->symtab = scn;
			sec->symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !sec->dynsym) {
			sec->dynsym = scn;
			sec->dynsym_sh = sh;
		} else if (sh.sh_type == SHT_NOTE && !st->build_id_len) {
			read_build_id(st, elf_getdata(scn, NULL));
		} else if ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
			   sec->nrels < MAX_REL_SECTIONS) {
			sec->rels[sec->nrels++] = scn;
		} else if (sh.sh_type == SHT_DYNAMIC) {
			read_dynamic(e, scn, &sec->di);
		} else if ((sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_NOBITS) && have_names) {
			name = elf_strptr(e, sec->shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".gnu_debuglink") && !st->debuglink[0]) {
				read_debuglink(st, scn);
			} else if (is_plt_section(&sh, name) && sec->nplts < ELF_SYMTAB_MAX_PLT_SECS) {
				sec->plts[sec->nplts++] = scn;
				sec->plt_got |= !strcmp(name, ".plt.got");
			}
		}
	}
}

static struct elf_symtab *load_elf(Elf *e, int *err)
{
	struct elf_symtab *st;
	struct elf_sections sec = { 0 };
	struct imports im = { 0 };
	GElf_Ehdr eh;
	ssize_t r;

	*err = -ENOEXEC;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return NULL;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st) {
		*err = -ENOMEM;
		return NULL;
	}
	st->machine = eh.e_machine;
	st->shown = calloc(1, sizeof(*st->shown));
	if (!st->shown)
		goto fail;
	/* section names come first: they identify the debuglink */
	read_segments(st, e);
	scan_sections(st, e, &sec);
	if (sec.nplts && ((sec.dynsym && read_imports(e, st->machine, sec.dynsym, sec.rels, sec.nrels,
						      sec.shstrndx, &sec.di, sec.plt_got, &im)) ||
			  read_plt(st, e, sec.plts, sec.nplts, &im))) {
		imports_free(&im);
		goto fail;
	}
	imports_free(&im);
	if (sec.symtab) {
		r = read_symbols(st, e, sec.symtab, &sec.symtab_sh);
		if (r == -ENOMEM)
			goto fail;
		if (r > 0)
			st->source = ELF_SYMS_SYMTAB;
	}
	if (!st->nsyms && sec.dynsym) {
		r = read_symbols(st, e, sec.dynsym, &sec.dynsym_sh);
		if (r == -ENOMEM)
			goto fail;
		if (r > 0)
			st->source = ELF_SYMS_DYNSYM;
	}
	*err = 0;
	return st;
fail:
	*err = -ENOMEM;
	elf_symtab__free(st);
	return NULL;
}

struct elf_symtab *elf_symtab__load_fd(int fd, int *err)
{
	struct elf_symtab *st;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		*err = -ENOSYS;
		return NULL;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		*err = -ENOEXEC;
		return NULL;
	}
	st = load_elf(e, err);
	elf_end(e);
	return st;
}

struct elf_symtab *elf_symtab__load_mem(const void *image, size_t size, int *err)
{
	struct elf_symtab *st;
	char *copy;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		*err = -ENOSYS;
		return NULL;
	}
	/* libelf may convert a foreign-endian image in place: give it an
	 * aligned private copy rather than the caller's buffer. */
	copy = malloc(size ? size : 1);
	if (!copy) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(copy, image, size);
	e = elf_memory(copy, size);
	if (!e) {
		free(copy);
		*err = -ENOEXEC;
		return NULL;
	}
	st = load_elf(e, err);
	elf_end(e);
	free(copy);
	return st;
}

static void shown_clear(struct elf_shown *sh)
{
	while (sh->blocks) {
		struct shown_block *next = sh->blocks->next;

		free(sh->blocks);
		sh->blocks = next;
	}
	free(sh->names);
	*sh = (struct elf_shown){ 0 };
}

void elf_symtab__free(struct elf_symtab *st)
{
	if (!st)
		return;
	if (st->shown)
		shown_clear(st->shown);
	free(st->shown);
	free(st->syms);
	free(st->strs);
	free(st->plt);
	free(st->plt_strs);
	free(st);
}

int elf_symtab__take_symbols(struct elf_symtab *st, struct elf_symtab *debug,
			     enum elf_sym_source source)
{
	if (st->build_id_len && debug->build_id_len &&
	    (st->build_id_len != debug->build_id_len ||
	     memcmp(st->build_id, debug->build_id, st->build_id_len)))
		return -ESTALE;
	if (debug->source != ELF_SYMS_SYMTAB || !debug->nsyms)
		return -ENOENT;
	shown_clear(st->shown);	/* indexed by symbol: made for the old ones */
	free(st->syms);
	free(st->strs);
	st->syms = debug->syms;
	st->nsyms = debug->nsyms;
	st->strs = debug->strs;
	st->strs_len = debug->strs_len;
	st->source = source;
	debug->syms = NULL;
	debug->strs = NULL;
	debug->nsyms = 0;
	debug->strs_len = 0;
	debug->source = ELF_SYMS_NONE;
	return 0;
}

/* The symbol of v[0..n) covering vaddr, looking back over up to lookback
 * symbols that start below it (a function may hold nested symbols). */
static const struct elf_sym *covering(const struct elf_sym *v, size_t n, uint64_t vaddr, size_t lookback)
{
	size_t lo = 0, hi = n;

	/* lo = number of symbols starting at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, seen = 0; i > 0 && seen < lookback; i--, seen++)
		if (vaddr - v[i - 1].addr < v[i - 1].size)
			return &v[i - 1];
	return NULL;
}

/* The raw name covering vaddr, its offset and its index for the shown
 * names (SIZE_MAX for PLT_UNKNOWN); NULL when nothing covers vaddr. */
static const char *find_raw(const struct elf_symtab *st, uint64_t vaddr, uint64_t *offset, size_t *index)
{
	const struct elf_sym *s;

	for (size_t i = 0; i < st->nplt_secs; i++) {
		const struct elf_range *sec = &st->plt_secs[i];

		if (vaddr - sec->addr >= sec->size)
			continue;
		s = covering(st->plt, st->nplt, vaddr, 1);
		if (!s) {
			*offset = vaddr - sec->addr;
			*index = SIZE_MAX;
			return PLT_UNKNOWN;
		}
		*offset = vaddr - s->addr;
		*index = st->nsyms + (size_t)(s - st->plt);
		return st->plt_strs + s->name;
	}
	s = covering(st->syms, st->nsyms, vaddr, NESTED_LOOKBACK);
	if (!s)
		return NULL;
	*offset = vaddr - s->addr;
	*index = (size_t)(s - st->syms);
	return st->strs + s->name;
}

const char *elf_symtab__find(const struct elf_symtab *st, uint64_t vaddr, uint64_t *offset)
{
	size_t index;

	return find_raw(st, vaddr, offset, &index);
}

/* A copy of name in the blocks of sh; NULL when over SHOWN_MAX_BYTES. */
static const char *shown_store(struct elf_shown *sh, const char *name, size_t len)
{
	struct shown_block *b = sh->blocks;
	char *p;

	if (!b || SHOWN_BLOCK - b->used < len + 1) {
		if (sh->bytes + sizeof(*b) > SHOWN_MAX_BYTES || !(b = malloc(sizeof(*b))))
			return NULL;
		b->next = sh->blocks;
		b->used = 0;
		sh->blocks = b;
		sh->bytes += sizeof(*b);
	}
	p = b->buf + b->used;
	memcpy(p, name, len + 1);
	b->used += len + 1;
	return p;
}

/* The name shown for symbol index (raw its raw name): demangled once,
 * then from the cache; the raw name when it is no C++ or Rust name or the cache
 * is out of room. */
static const char *shown_name(const struct elf_symtab *st, size_t index, const char *raw)
{
	struct elf_shown *sh = st->shown;
	char buf[DEMANGLE_MAX_SHOWN + 1];
	const char *name;
	size_t len;

	if (index == SIZE_MAX || !demangle__is_mangled(raw))
		return raw;	/* C: nothing to do, nothing to keep */
	if (!sh->names) {
		sh->n = st->nsyms + st->nplt;
		sh->names = calloc(sh->n, sizeof(*sh->names));
		if (!sh->names)
			return raw;
	}
	if (index >= sh->n)
		return raw;
	if (sh->names[index])
		return sh->names[index];
	len = demangle__name(raw, buf, sizeof(buf));
	name = len ? shown_store(sh, buf, len) : NULL;
	sh->names[index] = name ? name : raw;
	return sh->names[index];
}

bool elf_symtab__lookup(const struct elf_symtab *st, uint64_t vaddr, struct elf_sym_hit *hit)
{
	size_t index;

	hit->raw = find_raw(st, vaddr, &hit->offset, &index);
	if (!hit->raw) {
		hit->name = NULL;
		return false;
	}
	hit->name = shown_name(st, index, hit->raw);
	return true;
}

static const struct elf_segment *segment_of_offset(const struct elf_symtab *st, uint64_t off)
{
	const struct elf_segment *best = NULL;

	for (size_t i = 0; i < st->nsegs; i++) {
		const struct elf_segment *s = &st->segs[i];

		if (off - s->offset < s->filesz && (!best || (s->exec && !best->exec)))
			best = s;
	}
	return best;
}

int elf_symtab__file_to_vaddr(const struct elf_symtab *st, uint64_t file_off, uint64_t *vaddr)
{
	const struct elf_segment *s = segment_of_offset(st, file_off);

	if (!s)
		return -ENOENT;
	*vaddr = file_off - s->offset + s->vaddr;
	return 0;
}

static const struct elf_segment *exec_segment_of_vaddr(const struct elf_symtab *st, uint64_t v)
{
	for (size_t i = 0; i < st->nsegs; i++)
		if (st->segs[i].exec && v - st->segs[i].vaddr < st->segs[i].filesz)
			return &st->segs[i];
	return NULL;
}

/* A function worth sampling: long enough not to be a stub, in code. */
static const struct elf_segment *sample_segment(const struct elf_symtab *st, const struct elf_sym *s)
{
	const struct elf_segment *seg;

	if (s->size < 8)
		return NULL;
	seg = exec_segment_of_vaddr(st, s->addr);
	if (!seg || s->addr - seg->vaddr + FRAME_PTR_PROLOGUE > seg->filesz)
		return NULL;
	return seg;
}

enum frame_ptr_state elf_symtab__check_frame_ptr(struct elf_symtab *st, int fd, const void *image,
						 size_t size)
{
	uint8_t entries[FRAME_PTR_SAMPLES][FRAME_PTR_PROLOGUE];
	size_t eligible = 0, stride, n = 0, k = 0;

	for (size_t i = 0; i < st->nsyms; i++)
		eligible += sample_segment(st, &st->syms[i]) != NULL;
	stride = eligible > FRAME_PTR_SAMPLES ? eligible / FRAME_PTR_SAMPLES : 1;
	for (size_t i = 0; i < st->nsyms && n < FRAME_PTR_SAMPLES; i++) {
		const struct elf_segment *seg = sample_segment(st, &st->syms[i]);
		uint64_t off;

		if (!seg || k++ % stride)
			continue;
		off = st->syms[i].addr - seg->vaddr + seg->offset;
		if (fd >= 0) {
			if (pread(fd, entries[n], FRAME_PTR_PROLOGUE, (off_t)off) != FRAME_PTR_PROLOGUE)
				continue;
		} else {
			if (off > size || size - off < FRAME_PTR_PROLOGUE)
				continue;
			memcpy(entries[n], (const uint8_t *)image + off, FRAME_PTR_PROLOGUE);
		}
		n++;
	}
	st->frame_ptr = frame_ptr__classify(st->machine, (const uint8_t (*)[FRAME_PTR_PROLOGUE])entries, n);
	return st->frame_ptr;
}

size_t elf_symtab__count(const struct elf_symtab *st)
{
	return st->nsyms;
}

enum elf_sym_source elf_symtab__source(const struct elf_symtab *st)
{
	return st->source;
}

enum frame_ptr_state elf_symtab__frame_ptr(const struct elf_symtab *st)
{
	return st->frame_ptr;
}

const uint8_t *elf_symtab__build_id(const struct elf_symtab *st, size_t *len)
{
	*len = st->build_id_len;
	return st->build_id_len ? st->build_id : NULL;
}

const char *elf_symtab__debuglink(const struct elf_symtab *st, uint32_t *crc)
{
	*crc = st->debuglink_crc;
	return st->debuglink[0] ? st->debuglink : NULL;
}

size_t elf_symtab__bytes(const struct elf_symtab *st)
{
	return sizeof(*st) + sizeof(*st->shown) + st->nsyms * sizeof(*st->syms) + st->strs_len +
	       st->nplt * sizeof(*st->plt) + st->plt_strs_len;
}

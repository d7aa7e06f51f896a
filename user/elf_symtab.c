// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbols of one ELF image (see elf_symtab.h). Names are copied
 * out of the image so that the file can be closed and unmapped: the cache
 * holds only this compact form (16 bytes per symbol plus its name).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf_symtab.h"
#include "strpool.h"

/* A symbol of size 0 (hand-written assembly) is taken to run up to the
 * next symbol, but not further than this. */
#define SIZELESS_SPAN		4096
/* Symbols that may start inside a bigger one before the lookup gives up
 * looking back for the enclosing function. */
#define NESTED_LOOKBACK		8
#define FRAME_PTR_SAMPLES	64
#define MAX_PHDRS		4096
#define MAX_NOTE_BYTES		(64u << 10)

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

struct elf_symtab {
	struct elf_sym *syms;
	size_t nsyms;
	char *strs;
	size_t strs_len;
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

/* A symbol while loading: rank orders aliases at one address. */
struct raw_sym {
	uint64_t addr;
	uint64_t size;
	uint32_t name;
	uint32_t rank;
};

/* Among aliases (memcpy, __memcpy, ...) prefer the global name without
 * leading underscores, so that the same address always gets the same,
 * most familiar name. Lower rank is better. */
static uint32_t alias_rank(unsigned char bind, const char *name)
{
	uint32_t r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	uint32_t under = 0;

	while (name[under] == '_' && under < 7)
		under++;
	return r << 3 | under;
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

/*
 * Reads the function symbols of one symbol table section into st (sorted,
 * one per address). Returns the number kept, or -errno.
 */
static ssize_t read_symbols(struct elf_symtab *st, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	struct raw_sym *raw = NULL;
	size_t count, nraw = 0, cap = 0;
	struct strpool pool = { .max = ELF_SYMTAB_MAX_STRS, .max_name = ELF_SYMTAB_MAX_NAME };
	struct elf_sym *out;
	size_t n = 0;

	if (!data || !entsz || !data->d_buf)
		return -ENOEXEC;
	count = data->d_size / entsz;
	if (count > ELF_SYMTAB_MAX_SYMS)
		count = ELF_SYMTAB_MAX_SYMS;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		int64_t off;

		if (!gelf_getsym(data, (int)i, &sym) || !is_function(&sym))
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (nraw == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct raw_sym *p = realloc(raw, ncap * sizeof(*raw));

			if (!p)
				goto nomem;
			raw = p;
			cap = ncap;
		}
		off = strpool__add(&pool, name, SIZE_MAX);
		if (off < 0)
			break;	/* name pool full: keep what fits */
		raw[nraw++] = (struct raw_sym){
			.addr = sym.st_value,
			.size = sym.st_size,
			.name = (uint32_t)off,
			.rank = alias_rank(GELF_ST_BIND(sym.st_info), name),
		};
	}
	if (nraw)
		qsort(raw, nraw, sizeof(*raw), raw_cmp);
	out = malloc((nraw ? nraw : 1) * sizeof(*out));
	if (!out)
		goto nomem;
	for (size_t i = 0; i < nraw; i++) {
		uint64_t size = raw[i].size;

		if (n && out[n - 1].addr == raw[i].addr) {
			/* an alias of the better-ranked symbol just kept */
			if (out[n - 1].size < size)
				out[n - 1].size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
			continue;
		}
		out[n++] = (struct elf_sym){
			.addr = raw[i].addr,
			.size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size,
			.name = raw[i].name,
		};
	}
	for (size_t i = 0; i < n; i++) {
		if (out[i].size)
			continue;
		uint64_t span = i + 1 < n ? out[i + 1].addr - out[i].addr : SIZELESS_SPAN;

		out[i].size = (uint32_t)(span < SIZELESS_SPAN ? span : SIZELESS_SPAN);
	}
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

static struct elf_symtab *load_elf(Elf *e, int *err)
{
	struct elf_symtab *st;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr symtab_sh, dynsym_sh;
	GElf_Ehdr eh;
	size_t shstrndx, nscn = 0;
	bool have_names;
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
	/* section names come first: they identify the debuglink */
	read_segments(st, e);
	have_names = elf_getshdrstrndx(e, &shstrndx) == 0;
	while ((scn = elf_nextscn(e, scn)) && nscn++ < ELF_SYMTAB_MAX_SECTIONS) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		} else if (sh.sh_type == SHT_NOTE && !st->build_id_len) {
			read_build_id(st, elf_getdata(scn, NULL));
		} else if (sh.sh_type == SHT_PROGBITS && have_names && !st->debuglink[0]) {
			name = elf_strptr(e, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".gnu_debuglink"))
				read_debuglink(st, scn);
		}
	}
	if (symtab) {
		r = read_symbols(st, e, symtab, &symtab_sh);
		if (r == -ENOMEM)
			goto fail;
		if (r > 0)
			st->source = ELF_SYMS_SYMTAB;
	}
	if (!st->nsyms && dynsym) {
		r = read_symbols(st, e, dynsym, &dynsym_sh);
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

void elf_symtab__free(struct elf_symtab *st)
{
	if (!st)
		return;
	free(st->syms);
	free(st->strs);
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

const char *elf_symtab__find(const struct elf_symtab *st, uint64_t vaddr, uint64_t *offset)
{
	size_t lo = 0, hi = st->nsyms;

	/* lo = number of symbols starting at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, seen = 0; i > 0 && seen < NESTED_LOOKBACK; i--, seen++) {
		const struct elf_sym *s = &st->syms[i - 1];

		if (vaddr - s->addr < s->size) {
			*offset = vaddr - s->addr;
			return st->strs + s->name;
		}
	}
	return NULL;
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
	return sizeof(*st) + st->nsyms * sizeof(*st->syms) + st->strs_len;
}

const char *elf_sym_source__str(enum elf_sym_source s)
{
	switch (s) {
	case ELF_SYMS_DYNSYM:
		return "dynsym";
	case ELF_SYMS_SYMTAB:
		return "symtab";
	case ELF_SYMS_DEBUGLINK:
		return "debuglink";
	case ELF_SYMS_BUILD_ID:
		return "build-id";
	default:
		return "none";
	}
}

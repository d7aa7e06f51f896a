// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolization of one process's user addresses (see syms.h): snapshots
 * of its executable mappings, each tied to a cached ELF file, the vDSO
 * and its JIT perf map. Reading ELF files, finding debug files, caching
 * and parsing live in their own files; this one ties them to a process.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "build_id.h"
#include "common/sort.h"
#include "debuginfo.h"
#include "elf_cache.h"
#include "elf_symtab.h"
#include "hot_insns.h"
#include "perfmap.h"
#include "proc_maps.h"
#include "proc_root.h"
#include "syms.h"
#include "common/names.h"

/* Unmapped regions remembered after refreshes (an exec retires them all). */
#define MAX_RETIRED	65536
/* The vDSO is a page or two; anything bigger is not one. */
#define MAX_VDSO	(1u << 20)
#define JIT_MODULE	"[jit]"
#define VDSO_PATH	"[vdso]"

struct mapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t dev;
	uint64_t inode;
	char *path;		/* as in maps, without " (deleted)"; "" if anonymous */
	char *shown;		/* path cleaned for output (names.h); NULL: path is clean */
	struct elf_file *file;	/* NULL: anonymous, special or unreadable */
	bool deleted;
	bool seen;		/* an address resolved into it */
	bool carried;		/* still mapped at the last refresh */
};

/* Mappings of one snapshot, sorted by start, never overlapping. */
struct map_set {
	struct mapping *v;
	size_t n;
};

struct syms {
	int pid;
	char dir[PATH_MAX];	/* <proc root>/<pid> */
	int root_fd;		/* the target's root directory, -1 if unknown */
	bool map_files;
	bool perfmap_on;
	char *exe;		/* the target's executable, as it sees it */
	struct map_set cur;
	struct map_set *retired;	/* one set per refresh, oldest first */
	size_t nretired;
	size_t retired_total;
	struct perfmap *pm;
	struct perfmap **old_pms;	/* kept: their names may be in use */
	size_t nold_pms;
	struct stat pm_stat;	/* of the file pm was read from */
	struct syms_stats stats;
};

static char *debug_root_override;

void syms__set_debug_root(const char *dir)
{
	free(debug_root_override);
	debug_root_override = dir ? strdup(dir) : NULL;
	/* entries loaded with the old root would hide the new root's files */
	elf_cache__flush();
}

static const char *debug_root(void)
{
	const char *env = getenv("SPINSCOPE_DEBUG_ROOT");

	if (debug_root_override)
		return debug_root_override;
	return env && *env ? env : DEBUGINFO_DEFAULT_ROOT;
}

static void mapping_release(struct mapping *m)
{
	elf_file__put(m->file);
	free(m->path);
	free(m->shown);
	m->file = NULL;
	m->path = NULL;
	m->shown = NULL;
}

static void map_set_free(struct map_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		mapping_release(&set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

static struct mapping *map_set_find(const struct map_set *set, uint64_t addr)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < set->v[lo - 1].end)
		return &set->v[lo - 1];
	return NULL;
}

static int mapping_cmp(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The kernel lists mappings in order and without overlap; a maps file
 * from elsewhere (a test's fake tree) is made so, since lookups rely on it. */
static void sort_mappings(struct map_set *set)
{
	size_t n = 0;

	ss_sort(set->v, set->n, sizeof(*set->v), mapping_cmp);
	for (size_t i = 0; i < set->n; i++) {
		if (n && set->v[i].start < set->v[n - 1].end) {
			free(set->v[i].path);
			free(set->v[i].shown);
			continue;
		}
		set->v[n++] = set->v[i];
	}
	set->n = n;
}

/* Reads the target's executable mappings: code addresses only ever point
 * into those, and a JVM has thousands of others. */
static int read_maps(struct syms *s, struct map_set *out)
{
	char path[PATH_MAX + 16], *line = NULL;
	size_t cap = 0, line_cap = 0;
	struct proc_map pm;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/maps", s->dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	out->v = NULL;
	out->n = 0;
	while (getline(&line, &line_cap, f) > 0) {
		struct mapping *m;

		if (proc_map__parse(line, &pm) || !pm.executable)
			continue;
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct mapping *v = realloc(out->v, ncap * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			out->v = v;
			cap = ncap;
		}
		m = &out->v[out->n];
		*m = (struct mapping){
			.start = pm.start,
			.end = pm.end,
			.offset = pm.offset,
			.dev = (uint64_t)pm.dev_major << 32 | pm.dev_minor,
			.inode = pm.inode,
			.deleted = pm.deleted,
			.path = strndup(pm.path, pm.path_len),
		};
		/* The path opens the file; what is shown of it is cleaned. */
		if (m->path && !ss_name_is_clean(m->path, SIZE_MAX)) {
			m->shown = strdup(m->path);
			if (m->shown)
				ss_name_clean_array(m->shown, strlen(m->shown) + 1);
			else
				free(m->path), m->path = NULL;
		}
		if (!m->path) {
			err = -ENOMEM;
			break;
		}
		out->n++;
	}
	if (ferror(f) && !err)
		err = -EIO;
	free(line);
	fclose(f);
	if (err)
		map_set_free(out);
	else
		sort_mappings(out);
	return err;
}

/* The file found by path must still be the one mapped. */
static int check_inode(int fd, const struct mapping *m)
{
	struct stat st;

	if (fstat(fd, &st) || st.st_ino != m->inode) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * Opens a mapped file: /proc/PID/map_files names the mapped file itself
 * (any mount namespace, deleted or not) but needs CAP_SYS_ADMIN; without
 * it, the executable can still be had through /proc/PID/exe, and other
 * files by path inside the target's root if they were not replaced.
 */
static int open_mapped_file(struct syms *s, const struct mapping *m)
{
	char path[PATH_MAX + 64];
	int fd;

	if (s->map_files) {
		snprintf(path, sizeof(path), "%s/map_files/%" PRIx64 "-%" PRIx64, s->dir, m->start, m->end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	if (s->exe && !strcmp(s->exe, m->path)) {
		snprintf(path, sizeof(path), "%s/exe", s->dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return check_inode(fd, m);
	}
	if (m->deleted || s->root_fd < 0)
		return -ENOENT;
	fd = proc_root__open(s->root_fd, m->path, O_RDONLY);
	return fd >= 0 ? check_inode(fd, m) : fd;
}

static size_t own_vdso_size(void)
{
	char *line = NULL;
	size_t cap = 0, size = 0;
	struct proc_map pm;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && getline(&line, &cap, f) > 0)
		if (!proc_map__parse(line, &pm) && pm.path_len == strlen(VDSO_PATH) &&
		    !memcmp(pm.path, VDSO_PATH, pm.path_len))
			size = pm.end - pm.start;
	free(line);
	if (f)
		fclose(f);
	return size;
}

/*
 * The kernel's own file of the vDSO image (size bytes at image), with its
 * full symbol table: the image in memory exports a handful of functions,
 * and the static ones between them (the clock read of a paravirtual
 * clock) are unnamed. Kernels install it as vdso/vdso64.so (vdso.so on
 * arm64) below /lib/modules/RELEASE, Debian's linux-image-*-dbg below
 * /usr/lib/debug/lib/modules/RELEASE, and debug roots by build-id; only
 * a file whose build-id is the image's is taken. NULL when none is.
 */
static struct elf_file *kernel_vdso(const void *image, size_t size)
{
	char hex[2 * 64 + 1], dir[3][PATH_MAX];
	struct utsname u;
	int fd = -1, err;

	if (build_id__read_mem(image, size, hex, sizeof(hex)) || uname(&u))
		return NULL;
	/* each path made whole: a format that skips an argument ("%2$s"
	 * alone) aborts under _FORTIFY_SOURCE, as Debian builds it */
	snprintf(dir[0], sizeof(dir[0]), "%s/lib/modules/%s/vdso", debug_root(), u.release);
	snprintf(dir[1], sizeof(dir[1]), "/lib/modules/%s/vdso", u.release);
	snprintf(dir[2], sizeof(dir[2]), "%s", debug_root());
	for (size_t i = 0; fd < 0 && i < 3; i++)
		fd = build_id__open_in(dir[i], hex);
	if (fd < 0)
		return NULL;
	/* the cache owns fd from here; frames still say [vdso] */
	return elf_cache__get_fd(fd, VDSO_PATH, &err);
}

/*
 * The vDSO is in no file: read it from the target's memory. Where that
 * is not allowed, our own vDSO is the same image when the kernel mapped
 * one of the same size (one kernel, one vDSO per ABI).
 */
static struct elf_file *open_vdso(struct syms *s, const struct mapping *m, int *err)
{
	size_t size = m->end - m->start;
	struct elf_file *f = NULL;
	char path[PATH_MAX + 16];
	void *buf;
	int fd;

	if (size == 0 || size > MAX_VDSO) {
		*err = -EINVAL;
		return NULL;
	}
	buf = malloc(size);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/mem", s->dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, buf, size, (off_t)m->start) == (ssize_t)size) {
		f = kernel_vdso(buf, size) ?: elf_cache__get_mem(buf, size, VDSO_PATH, err);
	} else {
		unsigned long own = getauxval(AT_SYSINFO_EHDR);

		if (own && own_vdso_size() == size)
			f = kernel_vdso((const void *)own, size) ?:
			    elf_cache__get_mem((const void *)own, size, VDSO_PATH, err);
		else
			*err = -EACCES;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return f;
}

/* Gives m its file: from the mapping it continues, from an earlier
 * mapping of the same file in this snapshot, or newly opened. */
static void attach_file(struct syms *s, struct map_set *old, struct map_set *set, size_t i)
{
	struct mapping *m = &set->v[i];
	struct mapping *prev = map_set_find(old, m->start);
	int err = 0, fd;

	if (prev && prev->start == m->start && prev->end == m->end && prev->offset == m->offset &&
	    prev->inode == m->inode && prev->dev == m->dev && !strcmp(prev->path, m->path)) {
		m->file = prev->file;
		m->seen = prev->seen;
		prev->file = NULL;
		prev->carried = true;
		return;
	}
	if (!strcmp(m->path, VDSO_PATH)) {
		m->file = open_vdso(s, m, &err);
		return;
	}
	if (m->path[0] != '/')
		return;
	for (size_t j = 0; j < i; j++)
		if (set->v[j].file && set->v[j].inode == m->inode && set->v[j].dev == m->dev) {
			m->file = elf_file__get(set->v[j].file);
			return;
		}
	fd = open_mapped_file(s, m);
	if (fd >= 0)
		m->file = elf_cache__get_fd(fd, m->path, &err);
}

static void read_exe(struct syms *s)
{
	char path[PATH_MAX + 16], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/exe", s->dir);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	if (n > 10 && !strcmp(target + n - 10, " (deleted)"))
		target[n - 10] = '\0';
	free(s->exe);
	s->exe = strdup(target);
}

/* Mappings of the old snapshot that are gone: kept, newest searched
 * first, so addresses sampled before an unmap or exec still resolve. */
static void retire(struct syms *s, struct map_set *old)
{
	struct map_set gone = { 0 };
	struct map_set *sets;

	for (size_t i = 0; i < old->n; i++)
		if (!old->v[i].carried)
			gone.n++;
	if (gone.n && s->retired_total + gone.n <= MAX_RETIRED &&
	    (gone.v = malloc(gone.n * sizeof(*gone.v))) &&
	    (sets = realloc(s->retired, (s->nretired + 1) * sizeof(*sets)))) {
		size_t k = 0;

		for (size_t i = 0; i < old->n; i++) {
			if (old->v[i].carried) {
				mapping_release(&old->v[i]);
				continue;
			}
			gone.v[k++] = old->v[i];
		}
		s->retired = sets;
		s->retired[s->nretired++] = gone;
		s->retired_total += gone.n;
		free(old->v);
		old->v = NULL;
		old->n = 0;
		return;
	}
	free(gone.v);
	s->stats.mappings_forgotten += (uint32_t)gone.n;
	map_set_free(old);
}

/* The target's pid in its own pid namespace: the number the JIT puts in
 * the perf map's name. */
static int ns_pid(struct syms *s)
{
	char path[PATH_MAX + 16], *line = NULL;
	size_t cap = 0;
	int pid = s->pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", s->dir);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		char *last = strrchr(line, '\t');
		long v = last ? strtol(last + 1, NULL, 10) : 0;

		if (v > 0 && v <= INT_MAX)
			pid = (int)v;
		break;
	}
	free(line);
	fclose(f);
	return pid;
}

/* (Re)reads /tmp/perf-PID.map when it changed. Only a regular file owned
 * by the target's user (the owner of /proc/PID) is read: anyone can create
 * files in /tmp, and root's own files are not the target's to name. */
static void load_perfmap(struct syms *s)
{
	char path[64];
	struct stat st, owner;
	struct perfmap *pm, **olds;
	int fd, err;

	if (!s->perfmap_on || s->root_fd < 0 || stat(s->dir, &owner))
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", ns_pid(s));
	fd = perfmap__open(s->root_fd, path, owner.st_uid, &st);
	if (fd < 0)
		return;
	if ((s->pm && st.st_size == s->pm_stat.st_size &&
	     st.st_mtim.tv_sec == s->pm_stat.st_mtim.tv_sec &&
	     st.st_mtim.tv_nsec == s->pm_stat.st_mtim.tv_nsec)) {
		close(fd);
		return;
	}
	pm = perfmap__load(fd, &err);
	close(fd);
	if (!pm)
		return;
	if (s->pm) {
		olds = realloc(s->old_pms, (s->nold_pms + 1) * sizeof(*olds));
		if (!olds) {
			perfmap__free(pm);
			return;
		}
		s->old_pms = olds;
		s->old_pms[s->nold_pms++] = s->pm;
	}
	s->pm = pm;
	s->pm_stat = st;
	s->stats.perfmap_entries = (uint32_t)perfmap__count(pm);
	s->stats.perfmap_rejected = (uint32_t)perfmap__rejected(pm);
}

static void count_files(struct syms *s)
{
	uint32_t files = 0, unreadable = 0;

	for (size_t i = 0; i < s->cur.n; i++) {
		const struct mapping *m = &s->cur.v[i];
		bool dup = false;

		if (m->path[0] != '/')
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = s->cur.v[j].inode == m->inode && s->cur.v[j].dev == m->dev;
		if (dup)
			continue;
		files++;
		unreadable += !m->file;
	}
	s->stats.files = files;
	s->stats.files_unreadable = unreadable;
}

int syms__refresh(struct syms *s)
{
	struct map_set set;
	int err;

	read_exe(s);
	err = read_maps(s, &set);
	if (err)
		return err;	/* the target is gone: keep what we have */
	for (size_t i = 0; i < set.n; i++)
		attach_file(s, &s->cur, &set, i);
	retire(s, &s->cur);
	s->cur = set;
	count_files(s);
	load_perfmap(s);
	return 0;
}

struct syms *syms__new_opts(int pid, const struct syms_opts *opts)
{
	const char *root = opts && opts->proc_root ? opts->proc_root : "/proc";
	char path[PATH_MAX + 16];
	struct syms *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->pid = pid;
	s->map_files = !(opts && opts->no_map_files);
	s->perfmap_on = !(opts && opts->no_perfmap);
	if ((size_t)snprintf(s->dir, sizeof(s->dir), "%s/%d", root, pid) >= sizeof(s->dir)) {
		free(s);
		errno = ENAMETOOLONG;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/root", s->dir);
	s->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = syms__refresh(s);
	if (err) {
		syms__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

struct syms *syms__new(int pid)
{
	return syms__new_opts(pid, NULL);
}

void syms__free(struct syms *s)
{
	if (!s)
		return;
	map_set_free(&s->cur);
	for (size_t i = 0; i < s->nretired; i++)
		map_set_free(&s->retired[i]);
	free(s->retired);
	perfmap__free(s->pm);
	for (size_t i = 0; i < s->nold_pms; i++)
		perfmap__free(s->old_pms[i]);
	free(s->old_pms);
	if (s->root_fd >= 0)
		close(s->root_fd);
	free(s->exe);
	free(s);
}

static struct mapping *find_mapping(struct syms *s, uint64_t addr)
{
	struct mapping *m = map_set_find(&s->cur, addr);

	for (size_t i = s->nretired; !m && i > 0; i--)
		m = map_set_find(&s->retired[i - 1], addr);
	return m;
}

/* The mapping's symbols, loaded on first use; the target's root finds
 * debuglink files next to the binary (the root fd outlives the target). */
static const struct elf_symtab *symtab_of(struct syms *s, struct mapping *m)
{
	const struct debuginfo_ctx ctx = { .root_fd = s->root_fd, .debug_root = debug_root() };
	int err;

	if (!m->file)
		return NULL;
	if (elf_file__loaded(m->file))
		return elf_file__peek(m->file);
	return elf_file__symtab(m->file, &ctx, &err);
}

static const char *jit_find(struct syms *s, uint64_t addr, uint64_t *off)
{
	return s->pm ? perfmap__find(s->pm, addr, off) : NULL;
}

static int resolve(struct syms *s, uint64_t addr, struct sym_info *out)
{
	struct mapping *m = find_mapping(s, addr);
	const struct elf_symtab *st;
	struct elf_sym_hit hit;
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (m) {
		m->seen = true;
		out->module_offset = addr - m->start + m->offset;
		st = symtab_of(s, m);
		if (st && !elf_symtab__file_to_vaddr(st, out->module_offset, &vaddr) &&
		    elf_symtab__lookup(st, vaddr, &hit)) {
			out->name = hit.name;
			out->raw_name = hit.raw;
			out->offset = hit.offset;
		}
		if (m->path[0])
			out->module = m->shown ?: m->path;
	}
	/* JIT code: anonymous memory, or mapped after the last snapshot */
	if (!out->name && (!m || !m->file)) {
		out->name = jit_find(s, addr, &out->offset);
		out->raw_name = out->name;
		if (out->name) {
			out->module = JIT_MODULE;
			out->module_offset = out->offset;
		}
	}
	return out->module ? 0 : -ENOENT;
}

int syms__resolve(struct syms *s, uint64_t addr, struct sym_info *out)
{
	int err = resolve(s, addr, out);

	if (out->name)
		s->stats.resolved++;
	else if (out->module)
		s->stats.module_only++;
	else
		s->stats.unknown++;
	return err;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

const char *syms__format(struct syms *s, uint64_t addr, char *buf, size_t size)
{
	struct sym_info si;

	if (syms__resolve(s, addr, &si))
		snprintf(buf, size, "[unknown]");
	else if (si.name)
		snprintf(buf, size, "%s+0x%" PRIx64 " (%s)", si.name, si.offset, base_name(si.module));
	else
		snprintf(buf, size, "%s+0x%" PRIx64, base_name(si.module), si.module_offset);
	return buf;
}

int syms__load_all(struct syms *s)
{
	int loaded = 0;

	for (size_t i = 0; i < s->cur.n; i++) {
		bool dup = false;

		if (!s->cur.v[i].file)
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = s->cur.v[j].file == s->cur.v[i].file;
		if (!dup && symtab_of(s, &s->cur.v[i]))
			loaded++;
	}
	return loaded;
}

enum frame_ptr_state syms__frame_pointers(struct syms *s, uint64_t addr)
{
	struct mapping *m = find_mapping(s, addr);
	const struct elf_symtab *st = m ? symtab_of(s, m) : NULL;

	return st ? elf_symtab__frame_ptr(st) : FRAME_PTR_UNKNOWN;
}

int syms__build_id(struct syms *s, uint64_t addr, char *hex, size_t len)
{
	struct mapping *m = find_mapping(s, addr);
	const struct elf_symtab *st = m ? symtab_of(s, m) : NULL;
	const uint8_t *id;
	size_t n;

	if (!st || !(id = elf_symtab__build_id(st, &n)) || !n || len < 2 * n + 1)
		return -ENOENT;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return 0;
}

#define FP_DEDUP 256

/* Adds set's seen modules lacking frame pointers to out (distinct). */
static size_t collect_no_fp(struct syms *s, struct map_set *set, struct syms_fp_module *out, size_t max,
			    const struct elf_file **files, size_t n)
{
	for (size_t i = 0; i < set->n; i++) {
		struct mapping *m = &set->v[i];
		const struct elf_symtab *st;
		enum frame_ptr_state fp;
		bool dup = false;

		if (!m->seen || !m->file || !(st = symtab_of(s, m)))
			continue;
		fp = elf_symtab__frame_ptr(st);
		if (fp != FRAME_PTR_NO && fp != FRAME_PTR_PARTIAL)
			continue;
		for (size_t j = 0; j < n && j < FP_DEDUP && !dup; j++)
			dup = files[j] == m->file;
		if (dup)
			continue;
		if (n < FP_DEDUP)
			files[n] = m->file;
		if (n < max)
			out[n] = (struct syms_fp_module){ .path = m->shown ?: m->path, .fp = fp };
		n++;
	}
	return n;
}

size_t syms__modules_without_fp(struct syms *s, struct syms_fp_module *out, size_t max)
{
	const struct elf_file *files[FP_DEDUP];
	size_t n = collect_no_fp(s, &s->cur, out, max, files, 0);

	for (size_t i = s->nretired; i > 0; i--)
		n = collect_no_fp(s, &s->retired[i - 1], out, max, files, n);
	return n;
}

/* Where every user stack begins: process entry, libc's start of main,
 * and the thread trampolines of glibc and musl. */
static bool is_stack_root(const char *name)
{
	static const char *const roots[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
		"clone", "__clone", "clone3", "__clone3", "thread_start", "__thread_start",
	};

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(name, roots[i]))
			return true;
	return false;
}

enum syms_stack_end syms__note_stack(struct syms *s, const uint64_t *ips, size_t n)
{
	struct sym_info si;

	s->stats.stacks++;
	for (size_t i = 0; i + 1 < n; i++) {
		struct mapping *m = find_mapping(s, ips[i]);

		if (m)
			m->seen = true;
	}
	if (!n || resolve(s, ips[n - 1], &si) || !si.name) {
		s->stats.stacks_unnamed_end++;
		return SYMS_STACK_UNNAMED;
	}
	if (is_stack_root(si.raw_name))
		return SYMS_STACK_COMPLETE;
	s->stats.stacks_truncated++;
	return SYMS_STACK_TRUNCATED;
}

void syms__stats(const struct syms *s, struct syms_stats *out)
{
	*out = s->stats;
	out->files_no_symbols = 0;
	for (size_t i = 0; i < s->cur.n; i++) {
		const struct mapping *m = &s->cur.v[i];
		const struct elf_symtab *st = m->file ? elf_file__peek(m->file) : NULL;
		bool dup = false;

		for (size_t j = 0; j < i && !dup; j++)
			dup = s->cur.v[j].file == m->file;
		if (!dup && st && elf_symtab__source(st) == ELF_SYMS_NONE)
			out->files_no_symbols++;
	}
}

int syms__tail_callee(struct syms *s, uint64_t ret_ip, uint64_t inner_ip, char *buf, size_t len)
{
	struct sym_info t, in;
	uint64_t target;

	if (!insn__call_target_at(s->pid, ret_ip, &target) || syms__resolve(s, target, &t) ||
	    !t.name || t.offset || t.name[0] == '[' || strstr(t.name, "@plt"))
		return -ENOENT;
	if (!syms__resolve(s, inner_ip, &in) && in.name && !strcmp(in.name, t.name))
		return -ENOENT;
	snprintf(buf, len, "%s", t.name);
	return 0;
}

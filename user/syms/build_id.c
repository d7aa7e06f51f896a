// SPDX-License-Identifier: GPL-2.0
/* Build-ids of ELF files, and finding a binary again by its build-id. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "build_id.h"
#include "elf_symtab.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif
/* Files looked at when scanning a folder: a bound on a hostile tree. */
#define SCAN_MAX_FILES 4096

static int note_build_id(Elf_Data *d, char *hex, size_t len)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz &&
		    nh.n_descsz * 2 < len && nh.n_descsz <= ELF_SYMTAB_MAX_BUILD_ID) {
			const uint8_t *b = (const uint8_t *)d->d_buf + desc_off;

			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", b[i]);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

/* The build-id note of an open image e, which it ends. */
static int read_elf(Elf *e, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	int err = -ENOENT;
	size_t nsec = 0;

	if (!e || elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return -ENOEXEC;
	}
	while (err && (scn = elf_nextscn(e, scn)) && nsec++ < ELF_SYMTAB_MAX_SECTIONS) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			err = note_build_id(d, hex, len);
	}
	elf_end(e);
	return err;
}

int build_id__read_fd(int fd, char *hex, size_t len)
{
	hex[0] = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	return read_elf(elf_begin(fd, ELF_C_READ_MMAP, NULL), hex, len);
}

int build_id__read_mem(const void *image, size_t size, char *hex, size_t len)
{
	hex[0] = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	/* libelf only reads it (ELF_C_READ_MMAP semantics for memory). */
	return read_elf(elf_memory((char *)image, size), hex, len);
}

static int matches(int dirfd, const char *name, const char *hex)
{
	char got[2 * ELF_SYMTAB_MAX_BUILD_ID + 1];
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (!build_id__read_fd(fd, got, sizeof(got)) && !strcmp(got, hex))
		return fd;
	close(fd);
	return -1;
}

/* Regular files of dir (and its subfolders, depth levels more). */
static int scan(int dirfd, const char *hex, int depth, int *budget)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *de;
	int fd = -1;

	if (!d)
		return -1;
	while (fd < 0 && (de = readdir(d)) && (*budget)-- > 0) {
		struct stat st;

		if (de->d_name[0] == '.' || fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(st.st_mode)) {
			fd = matches(dirfd, de->d_name, hex);
		} else if (S_ISDIR(st.st_mode) && depth > 0) {
			int sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

			if (sub >= 0) {
				fd = scan(sub, hex, depth - 1, budget);
				close(sub);
			}
		}
	}
	closedir(d);
	return fd;
}

int build_id__open_in(const char *dir, const char *hex)
{
	static const char *const suffix[] = { ".debug", "" };
	char path[4096];
	int dirfd, fd = -1, budget = SCAN_MAX_FILES;

	if (strlen(hex) < 4)
		return -ENOENT;
	for (size_t i = 0; i < 2 && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			char got[2 * ELF_SYMTAB_MAX_BUILD_ID + 1];

			if (build_id__read_fd(fd, got, sizeof(got)) || strcmp(got, hex)) {
				close(fd);
				fd = -1;
			}
		}
	}
	if (fd >= 0)
		return fd;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -ENOENT;
	fd = scan(dirfd, hex, 2, &budget);
	close(dirfd);
	return fd >= 0 ? fd : -ENOENT;
}

int build_id__vaddr_of(int fd, uint64_t offset, uint64_t *vaddr)
{
	Elf *e;
	size_t n = 0;
	int err = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n)) {
		elf_end(e);
		return -ENOEXEC;
	}
	for (size_t i = 0; i < n && i < ELF_SYMTAB_MAX_SEGS && err; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && offset >= ph.p_offset &&
		    offset - ph.p_offset < ph.p_filesz) {
			*vaddr = offset - ph.p_offset + ph.p_vaddr;
			err = 0;
		}
	}
	elf_end(e);
	return err;
}

int build_id__name_offset(int fd, uint64_t offset, uint64_t vaddr, const char *base, char *buf,
			  size_t len)
{
	struct elf_sym_hit hit;
	int err = 0;
	struct elf_symtab *st = elf_symtab__load_fd(fd, &err);

	if (!st)
		return err ? err : -ENOENT;
	err = -ENOENT;
	if ((vaddr || !elf_symtab__file_to_vaddr(st, offset, &vaddr)) &&
	    elf_symtab__lookup(st, vaddr, &hit)) {
		snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", hit.name, hit.offset, base);
		err = 0;
	}
	elf_symtab__free(st);
	return err;
}

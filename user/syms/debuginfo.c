// SPDX-License-Identifier: GPL-2.0
/* Finding and checking separate debug files (see debuginfo.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include "debuginfo.h"
#include "proc_root.h"

/* The debuglink CRC is zlib's CRC-32 of the whole debug file. */
static int file_crc32(int fd, uint32_t *crc)
{
	unsigned char buf[1 << 16];
	uLong c = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	if (n < 0)
		return -errno;
	*crc = (uint32_t)c;
	return 0;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Tries one candidate file; 0 when its symbols were taken into st. */
static int try_candidate(int fd, int main_fd, struct elf_symtab *st, enum elf_sym_source source)
{
	struct elf_symtab *dbg;
	size_t bid_len, dbg_bid_len;
	uint32_t want_crc, crc;
	int err;

	if (fd < 0)
		return fd;
	if (same_file(fd, main_fd)) {
		close(fd);
		return -ENOENT;
	}
	dbg = elf_symtab__load_fd(fd, &err);
	if (!dbg) {
		close(fd);
		return err;
	}
	elf_symtab__build_id(st, &bid_len);
	elf_symtab__build_id(dbg, &dbg_bid_len);
	/* Without build-ids on both sides only the CRC tells a stale debug
	 * file from the right one; it costs one read of the debug file. */
	if ((!bid_len || !dbg_bid_len) && elf_symtab__debuglink(st, &want_crc) &&
	    (file_crc32(fd, &crc) || crc != want_crc))
		err = -ESTALE;
	else
		err = elf_symtab__take_symbols(st, dbg, source);
	elf_symtab__free(dbg);
	close(fd);
	return err;
}

static int open_host(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd >= 0 ? fd : -errno;
}

int debuginfo__load(const struct debuginfo_ctx *ctx, const char *path, int main_fd,
		    struct elf_symtab *st)
{
	const char *root = ctx->debug_root ? ctx->debug_root : DEBUGINFO_DEFAULT_ROOT;
	char cand[PATH_MAX], dir[PATH_MAX];
	const uint8_t *bid;
	const char *link, *slash;
	size_t bid_len;
	uint32_t crc;

	bid = elf_symtab__build_id(st, &bid_len);
	if (bid && bid_len >= 2) {
		int n = snprintf(cand, sizeof(cand), "%s/.build-id/%02x/", root, bid[0]);

		for (size_t i = 1; i < bid_len && n > 0 && (size_t)n + 3 < sizeof(cand); i++)
			n += snprintf(cand + n, sizeof(cand) - (size_t)n, "%02x", bid[i]);
		if (n > 0 && (size_t)n + 7 < sizeof(cand)) {
			strcpy(cand + n, ".debug");
			if (!try_candidate(open_host(cand), main_fd, st, ELF_SYMS_BUILD_ID))
				return 0;
		}
	}
	link = elf_symtab__debuglink(st, &crc);
	slash = strrchr(path, '/');
	if (!link || !slash || (size_t)(slash - path) >= sizeof(dir))
		return -ENOENT;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	/* next to the binary and in its .debug/ folder, in the target's tree */
	if (snprintf(cand, sizeof(cand), "%s/%s", dir, link) < (int)sizeof(cand) &&
	    !try_candidate(proc_root__open(ctx->root_fd, cand, O_RDONLY), main_fd, st, ELF_SYMS_DEBUGLINK))
		return 0;
	if (snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, link) < (int)sizeof(cand) &&
	    !try_candidate(proc_root__open(ctx->root_fd, cand, O_RDONLY), main_fd, st, ELF_SYMS_DEBUGLINK))
		return 0;
	/* the distribution's debug tree on this host */
	if (snprintf(cand, sizeof(cand), "%s%s/%s", root, dir, link) < (int)sizeof(cand) &&
	    !try_candidate(open_host(cand), main_fd, st, ELF_SYMS_DEBUGLINK))
		return 0;
	return -ENOENT;
}

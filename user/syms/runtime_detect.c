// SPDX-License-Identifier: GPL-2.0
/* runtime_detect.c: which language runtime a process runs on (runtime_detect.h). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime_detect.h"

#define MAX_SECTIONS	65536
#define MAX_STRTAB	(256u << 20)	/* bytes of one string table searched */

/* Symbol names that only a runtime's own code defines. */
static const struct {
	const char *needle, *runtime;
} exe_symbols[] = {
	{ "runtime.goexit", "go" },
	{ "_PyEval_EvalFrameDefault", "cpython" },
	{ "Py_InitializeFromConfig", "cpython" },
	{ "rust_begin_unwind", "rust" },
	{ "__rust_alloc", "rust" },
	{ "rust_panic", "rust" },
};

static const char *search_strtab(Elf_Data *d)
{
	if (!d || !d->d_buf || d->d_size > MAX_STRTAB)
		return NULL;
	for (size_t i = 0; i < sizeof(exe_symbols) / sizeof(exe_symbols[0]); i++)
		if (memmem(d->d_buf, d->d_size, exe_symbols[i].needle, strlen(exe_symbols[i].needle)))
			return exe_symbols[i].runtime;
	return NULL;
}

static bool go_section(const char *name)
{
	return name && (!strcmp(name, ".note.go.buildid") || !strcmp(name, ".gopclntab") ||
			!strcmp(name, ".go.buildinfo"));
}

const char *runtime_detect_exe(int fd)
{
	const char *found = NULL, *name;
	size_t shstrndx, n = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		elf_end(e);
		return NULL;
	}
	while (!found && n++ < MAX_SECTIONS && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			break;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (go_section(name))
			found = "go";
		else if (sh.sh_type == SHT_STRTAB && name && (!strcmp(name, ".strtab") || !strcmp(name, ".dynstr")))
			found = search_strtab(elf_getdata(scn, NULL));
	}
	elf_end(e);
	return found;
}

/* What the mapped libraries say: the JVM and CPython win outright, a
 * Rust or C++ runtime library only when the executable names nothing. */
static void scan_maps(FILE *f, bool *jvm, bool *python, bool *rust, bool *cxx)
{
	char line[4096];

	while (fgets(line, sizeof(line), f)) {
		const char *path = strchr(line, '/'), *base;

		if (!path)
			continue;
		base = strrchr(path, '/') + 1;
		*jvm |= !strncmp(base, "libjvm.so", 9);
		*python |= !strncmp(base, "libpython3", 10) || !strncmp(base, "libpython2", 10);
		*rust |= !strncmp(base, "libstd-", 7) && strstr(base, ".so");
		*cxx |= !strncmp(base, "libstdc++.so", 12) || !strncmp(base, "libc++.so", 9);
	}
}

const char *runtime_detect(const char *proc_root, int pid)
{
	bool jvm = false, python = false, rust = false, cxx = false;
	const char *exe_rt = NULL;
	char path[256];
	struct stat st;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_root ? proc_root : "/proc", pid);
	f = fopen(path, "re");
	if (!f)
		return "unknown";
	scan_maps(f, &jvm, &python, &rust, &cxx);
	fclose(f);
	if (jvm)
		return "jvm";
	if (python)
		return "cpython";
	snprintf(path, sizeof(path), "%s/%d/exe", proc_root ? proc_root : "/proc", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode))
		exe_rt = runtime_detect_exe(fd);
	if (fd >= 0)
		close(fd);
	if (exe_rt)
		return exe_rt;
	return rust ? "rust" : cxx ? "c++" : "c";
}

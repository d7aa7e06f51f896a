// SPDX-License-Identifier: GPL-2.0
/* Starting the symbolization fixture and reading its report (see .h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "syms_fixture.h"

/* Value of " key=" in line as a number ("(nil)" is 0); -1 if absent. */
static int field(const char *line, const char *key, uint64_t *v)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "%s=", key);
	p = strstr(line, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	*v = strncmp(p, "(nil)", 5) ? strtoull(p, NULL, 0) : 0;
	return 0;
}

int sf_start_argv(struct sf_run *r, char *const argv[])
{
	char line[512];
	uint64_t pid;

	memset(r, 0, sizeof(*r));
	if (tl_spawn(&r->proc, argv))
		return -1;
	if (!tl_read_line(&r->proc, line, sizeof(line), 10000) ||
	    sscanf(line, "variant=%63s", r->variant) != 1 || field(line, "pid", &pid) ||
	    field(line, "leaf", &r->leaf) || field(line, "static", &r->stat) ||
	    field(line, "chain", &r->chain) || field(line, "lib", &r->lib) ||
	    field(line, "vdso", &r->vdso)) {
		print_message("fixture %s printed '%s'\n", argv[0], line);
		sf_stop(r);
		return -1;
	}
	r->pid = (int)pid;
	return 0;
}

int sf_start(struct sf_run *r, const char *variant)
{
	char path[512];
	char *argv[] = { path, NULL };

	snprintf(path, sizeof(path), "%s", tl_path(variant));
	return sf_start_argv(r, argv);
}

void sf_stop(struct sf_run *r)
{
	if (r->proc.pid <= 0)
		return;
	tl_kill(&r->proc, SIGKILL);
	tl_wait(&r->proc);
	close(r->proc.out_fd);
	close(r->proc.err_fd);
	r->proc.pid = 0;
}

uint64_t sf_nm(const char *path, const char *sym)
{
	char *const argv[] = { "/usr/bin/nm", "--defined-only", (char *)path, NULL };
	char *out = NULL, *line, *save = NULL;
	uint64_t addr = 0;

	if (tl_run(argv, &out, NULL) != 0 || !out) {
		free(out);
		return 0;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, sym)) {
			addr = a;
			break;
		}
	}
	free(out);
	return addr;
}

int sf_mapping_of(int pid, uint64_t addr, uint64_t *start, uint64_t *offset)
{
	char path[64], line[4096];
	FILE *f;
	int found = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;

		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &o) == 3 && addr >= s && addr < e) {
			*start = s;
			*offset = o;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

int sf_copy(const char *from, const char *to)
{
	char *const argv[] = { "/bin/cp", (char *)from, (char *)to, NULL };

	return tl_run(argv, NULL, NULL) == 0 ? 0 : -1;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs one variant of the symbolization fixture (tests/fixtures/
 * syms_fixture.c) and reads the addresses it reports about itself.
 */
#ifndef SPINSCOPE_SYMS_FIXTURE_H
#define SPINSCOPE_SYMS_FIXTURE_H

#include <stdint.h>
#include "testlib.h"

struct sf_run {
	struct tl_proc proc;
	int pid;		/* as the fixture saw itself */
	uint64_t leaf;		/* syms_fixture_leaf, exported */
	uint64_t stat;		/* syms_fixture_static, static */
	uint64_t chain;		/* syms_fixture_chain7 */
	uint64_t lib;		/* syms_fixture_lib_func in the .so, or 0 */
	uint64_t vdso;		/* __vdso_clock_gettime, or 0 */
	char variant[64];
};

/* Starts argv (argv[0] a path) and parses its line; 0 or -1. */
int sf_start_argv(struct sf_run *r, char *const argv[]);
/* Starts build/fixtures/<variant>. */
int sf_start(struct sf_run *r, const char *variant);
/* Kills and reaps it. */
void sf_stop(struct sf_run *r);

/* Link-time address of sym in the binary at path, as nm (binutils, not
 * our ELF reader) reports it; 0 when absent. */
uint64_t sf_nm(const char *path, const char *sym);
/* Start of the mapping of pid that contains addr and its file offset,
 * read from /proc/PID/maps with sscanf; -1 when none does. */
int sf_mapping_of(int pid, uint64_t addr, uint64_t *start, uint64_t *offset);
/* Copies a file (mode 0755); 0 or -1. */
int sf_copy(const char *from, const char *to);

#endif

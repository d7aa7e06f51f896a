/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which part of a global variable a byte offset is, from the module's
 * DWARF (elfutils libdw): "[1]" of an array, ".flag" of a struct,
 * "[3].count" of an array of structs. What false sharing names: two
 * fields of one struct, two elements of one array. Only where the module
 * carries debug information; the caller keeps "counters+8" otherwise.
 */
#ifndef SPINSCOPE_DATA_FIELDS_H
#define SPINSCOPE_DATA_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct data_fields;

/* For the ELF file at path (opened once, on first use; NULL: none). */
struct data_fields *data_fields__new(const char *path);
/* The member path of byte `offset` of the global variable whose link-time
 * address is var_addr, into buf ("[1]", ".flag", "[1].v"): true, or false
 * when the file has no debug information for it, or the offset is in
 * padding. */
bool data_fields__path(struct data_fields *df, uint64_t var_addr, uint64_t offset, char *buf,
		       size_t len);
void data_fields__free(struct data_fields *df);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Member paths of global variables from DWARF (see data_fields.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/sort.h"
#include "data_fields.h"

/* Types nest a few levels in practice; a hostile file cannot make the
 * walk longer than this. */
#define MAX_DEPTH 8
/* CUs and top-level DIEs looked at per variable: bounded for huge files. */
#define MAX_DIES (1u << 20)

/* A top-level variable with a fixed address: its DIE's offset. */
struct placed_var {
	uint64_t addr;
	Dwarf_Off die;
};

struct data_fields {
	int fd;
	Dwarf *dw;		/* NULL: no debug information */
	/* Every top-level variable by address, made at the first lookup: one
	 * walk of the CUs, not one per sampled line. */
	struct placed_var *vars;
	size_t nvars;
	bool indexed;
};

struct data_fields *data_fields__new(const char *path)
{
	struct data_fields *df = calloc(1, sizeof(*df));

	if (!df)
		return NULL;
	df->fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	df->dw = df->fd >= 0 ? dwarf_begin(df->fd, DWARF_C_READ) : NULL;
	return df;
}

void data_fields__free(struct data_fields *df)
{
	if (!df)
		return;
	if (df->dw)
		dwarf_end(df->dw);
	if (df->fd >= 0)
		close(df->fd);
	free(df->vars);
	free(df);
}

/* The address die's variable is placed at (DW_OP_addr), if it is one. */
static bool placed_addr(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_tag(die) != DW_TAG_variable || !dwarf_attr(die, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_addr)
		return false;
	*addr = ops[0].number;
	return true;
}

static int cmp_var(const void *a, const void *b)
{
	const struct placed_var *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* df->vars: every top-level variable placed at an address, sorted. A
 * failed allocation leaves the index short, never wrong. */
static void index_variables(struct data_fields *df)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	unsigned int seen = 0;

	df->indexed = true;
	while (seen < MAX_DIES && dwarf_nextcu(df->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, die;
		uint64_t addr;

		if (dwarf_offdie(df->dw, off + hsize, &cu) && dwarf_child(&cu, &die) == 0)
			do {
				if (!placed_addr(&die, &addr))
					continue;
				if (df->nvars == cap) {
					size_t ncap = cap ? 2 * cap : 64;
					struct placed_var *v = realloc(df->vars, ncap * sizeof(*v));

					if (!v)
						goto sort;
					df->vars = v;
					cap = ncap;
				}
				df->vars[df->nvars++] = (struct placed_var){ addr, dwarf_dieoffset(&die) };
			} while (++seen < MAX_DIES && dwarf_siblingof(&die, &die) == 0);
		off = next;
	}
sort:
	ss_sort(df->vars, df->nvars, sizeof(*df->vars), cmp_var);
}

/* The top-level variable at addr, its type into type. */
static bool find_variable(struct data_fields *df, uint64_t addr, Dwarf_Die *type)
{
	struct placed_var key = { .addr = addr }, *v;
	Dwarf_Attribute a;
	Dwarf_Die die;

	if (!df->indexed)
		index_variables(df);
	v = df->nvars ? bsearch(&key, df->vars, df->nvars, sizeof(*v), cmp_var) : NULL;
	/* a C++ static member's type is on its declaration */
	return v && dwarf_offdie(df->dw, v->die, &die) && dwarf_attr_integrate(&die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, type);
}

static bool append(char *buf, size_t len, const char *fmt, const char *name, uint64_t index)
{
	size_t used = strlen(buf);
	int n = name ? snprintf(buf + used, len - used, fmt, name)
		     : snprintf(buf + used, len - used, fmt, index);

	return n > 0 && (size_t)n < len - used;
}

/* The member of a struct or union at off: its name, its type, its offset. */
static bool member_at(Dwarf_Die *agg, uint64_t off, const char **name, Dwarf_Die *type,
		      uint64_t *start)
{
	Dwarf_Die m;

	if (dwarf_child(agg, &m) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word loc = 0, size;
		Dwarf_Die t;

		if (dwarf_tag(&m) != DW_TAG_member || !dwarf_attr_integrate(&m, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &t) || dwarf_aggregate_size(&t, &size) != 0)
			continue;
		/* a union's members have no location: all at 0 */
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &loc) != 0)
			continue;
		if (off >= loc && off - loc < size) {
			*name = dwarf_diename(&m);
			*type = t;
			*start = loc;
			return true;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

bool data_fields__path(struct data_fields *df, uint64_t var_addr, uint64_t offset, char *buf,
		       size_t len)
{
	Dwarf_Die type;
	bool any = false;

	if (!df || !df->dw || !len || !find_variable(df, var_addr, &type))
		return false;
	buf[0] = 0;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		Dwarf_Die peeled, elem;
		Dwarf_Word esize;
		const char *name;
		uint64_t start;

		if (dwarf_peel_type(&type, &peeled) != 0)
			break;
		if (dwarf_tag(&peeled) == DW_TAG_array_type) {
			Dwarf_Attribute a;

			if (!dwarf_attr_integrate(&peeled, DW_AT_type, &a) || !dwarf_formref_die(&a, &elem) ||
			    dwarf_aggregate_size(&elem, &esize) != 0 || !esize ||
			    !append(buf, len, "[%" PRIu64 "]", NULL, offset / esize))
				break;
			offset %= esize;
			type = elem;
		} else if (dwarf_tag(&peeled) == DW_TAG_structure_type ||
			   dwarf_tag(&peeled) == DW_TAG_union_type ||
			   dwarf_tag(&peeled) == DW_TAG_class_type) {
			if (!member_at(&peeled, offset, &name, &type, &start))
				return false;	/* padding */
			if (!append(buf, len, name ? ".%s" : ".%s", name ? name : "(anonymous)", 0))
				break;
			offset -= start;
		} else {
			break;	/* a scalar: the path ends here */
		}
		any = true;
	}
	if (any && offset)
		append(buf, len, "+%" PRIu64, NULL, offset);
	return any;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file an engineer takes away from an incident: the JSON report written
 * to -o FILE, zstd-compressed when FILE ends in ".zst" (a long trace's
 * report of many threads shrinks about tenfold); `zstd -d` reads it back.
 */
#ifndef SPINSCOPE_RECORDING_H
#define SPINSCOPE_RECORDING_H

#include <stddef.h>
#include <json-c/json.h>

/* Writes doc to path through outfile__save (new file, mode 0600, renamed
 * into place; outfile__check it before the trace), compressed when path
 * ends in ".zst". 0 or -errno (-EIO for a compression error), why filled. */
int recording__save(const char *path, json_object *doc, char *why, size_t whylen);

/* Reads a report saved by recording__save (compressed or not). 0, -EINVAL
 * (not a report, or over 256 MiB), -E2BIG (over 4 Mi JSON values: what a
 * hostile file could make the parser allocate is bounded) or -errno. */
int recording__load(const char *path, json_object **doc);

#endif

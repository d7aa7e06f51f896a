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

/* Fails early (before any tracing) when path's folder is not writable.
 * Returns 0 or SS_EXIT_USAGE with why filled. */
int recording__check_path(const char *path, char *why, size_t whylen);

/* Writes doc to path atomically (temporary file, then rename), compressed
 * when path ends in ".zst". 0 or -errno (-EIO for a compression error). */
int recording__save(const char *path, json_object *doc);

/* Reads a report saved by recording__save (compressed or not). */
int recording__load(const char *path, json_object **doc);

#endif

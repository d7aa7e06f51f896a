/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Saved calibration results: the versioned JSON document
 * {schema, tool, host, results: {family_key: {...}}, partial, created},
 * where it lives, writing it atomically, and loading it back only when the
 * host fingerprint says the results apply here (`spinscope -p` uses
 * calib__load_matching()).
 */
#ifndef SPINSCOPE_CALIB_STORE_H
#define SPINSCOPE_CALIB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "calib/kern/fingerprint.h"

/* Bumped when a field changes meaning; loaders refuse other versions. */
#define CALIB_SCHEMA 1

/* The fingerprint as JSON ("host") and back. from_json returns 0 or
 * -EINVAL when a field that matching needs is missing. */
json_object *calib_store__host_json(const struct ss_fingerprint *fp);
int calib_store__host_from_json(const json_object *host, struct ss_fingerprint *fp);

/* Builds the document; takes ownership of results. */
json_object *calib_store__document(const struct ss_fingerprint *fp, json_object *results,
				   bool partial);

/* Where results are saved by default: /var/lib/spinscope/calibration.json
 * as root, else $XDG_CACHE_HOME/spinscope/calibration.json or
 * ~/.cache/spinscope/calibration.json. Returns 0 or -ENOENT (no HOME). */
int calib_store__default_path(char *buf, size_t len);

/* Before measuring: creates path's missing folders and checks that path
 * may be saved (outfile__check). 0, or SS_EXIT_USAGE with the reason. */
int calib_store__check(const char *path, char *why, size_t whylen);

/* Writes doc to path through common/outfile (temporary file in the same
 * folder, mode 0600, fsync, rename; a planted link or another user's file
 * is refused), creating missing folders. Returns 0, or -errno with the
 * reason in why. */
int calib_store__save(const char *path, json_object *doc, char *why, size_t whylen);

/* A calibration is tens of KiB: a larger file is not read at all. */
#define CALIB_STORE_MAX_BYTES (16 << 20)

/* Loads a document and checks its schema. Returns 0, -ENOENT (no file),
 * -EBADMSG (not valid JSON), -EFBIG (over CALIB_STORE_MAX_BYTES), -EISDIR
 * or -ENXIO (a folder, a FIFO or device: never read), -EINVAL (not a
 * calibration document of this schema) or -errno. */
int calib_store__load(const char *path, json_object **doc);

/* Loads the results saved at path (NULL: the default path) if they were
 * measured on a host with this one's fingerprint (read from root; NULL for
 * the live host). On success *out holds a reference to the "results"
 * object (json_object_put it) and 0 is returned; otherwise why says why
 * not, in words a person acts on, and the return is -ENOENT (nothing
 * saved), -EINVAL (other schema), -EBADMSG, -EFBIG, -EISDIR, -ENXIO,
 * -ESTALE (another host or kernel) or -errno. */
int calib_store__load_matching_at(const char *path, const char *root, json_object **out,
				  char *why, size_t whylen);
int calib__load_matching(const char *path_or_NULL, json_object **out, char *why, size_t whylen);

#endif

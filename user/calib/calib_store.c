// SPDX-License-Identifier: GPL-2.0
/*
 * Saving and loading calibration documents (see calib_store.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "calib_json.h"
#include "common/errors.h"
#include "common/outfile.h"
#include "calib_store.h"

#define ADD(o, k, v) json_object_object_add(o, k, v)

json_object *calib_store__host_json(const struct ss_fingerprint *fp)
{
	json_object *h = json_object_new_object(), *caches, *vulns;

	if (!h)
		return NULL;
	ADD(h, "arch", json_object_new_string(fp->arch));
	ADD(h, "vendor", json_object_new_string(fp->vendor));
	ADD(h, "model_name", json_object_new_string(fp->model_name));
	ADD(h, "family", json_object_new_int(fp->family));
	ADD(h, "model", json_object_new_int(fp->model));
	ADD(h, "stepping", json_object_new_int(fp->stepping));
	ADD(h, "microcode", json_object_new_string(fp->microcode));
	ADD(h, "cores", json_object_new_int(fp->cores));
	ADD(h, "threads", json_object_new_int(fp->threads));
	ADD(h, "nodes", json_object_new_int(fp->nodes));
	ADD(h, "cache_line", json_object_new_int(fp->cache_line));
	caches = json_object_new_array();
	for (int i = 0; i < fp->ncaches; i++) {
		json_object *c = json_object_new_object();

		ADD(c, "level", json_object_new_int(fp->caches[i].level));
		ADD(c, "type", json_object_new_string(fp->caches[i].type));
		ADD(c, "size_kb", json_object_new_int64(fp->caches[i].size_kb));
		ADD(c, "line", json_object_new_int64(fp->caches[i].line));
		json_object_array_add(caches, c);
	}
	ADD(h, "caches", caches);
	ADD(h, "kernel", json_object_new_string(fp->kernel));
	ADD(h, "hypervisor", json_object_new_boolean(fp->hypervisor));
	ADD(h, "hypervisor_name", json_object_new_string(fp->hypervisor_name));
	vulns = json_object_new_object();
	for (int i = 0; i < fp->nvulns; i++)
		ADD(vulns, fp->vulns[i].name, json_object_new_string(fp->vulns[i].status));
	ADD(h, "vulnerabilities", vulns);
	ADD(h, "governor", json_object_new_string(fp->governor));
	ADD(h, "load1", json_object_new_double(fp->load1));
	ADD(h, "steal_frac", json_object_new_double(fp->steal_frac));
	return h;
}

static int get_str(const json_object *o, const char *key, char *dst, size_t len, bool need)
{
	const char *v = calib_json__string(o, key, NULL);

	if (!v) {
		dst[0] = '\0';
		return need ? -EINVAL : 0;
	}
	snprintf(dst, len, "%s", v);
	return 0;
}

static int get_int(const json_object *o, const char *key, int *dst, bool need)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) {
		*dst = 0;
		return need ? -EINVAL : 0;
	}
	*dst = json_object_get_int(v);
	return 0;
}

/* A size from the file; negative, NaN or past 32 bits reads as unknown (0)
 * rather than an undefined conversion (found by fuzz_calib_load). */
static uint32_t get_size(const json_object *o, const char *key)
{
	double v = calib_json__double(o, key, 0);

	return v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

int calib_store__host_from_json(const json_object *host, struct ss_fingerprint *fp)
{
	json_object *arr, *v;
	int err = 0;

	memset(fp, 0, sizeof(*fp));
	if (!host || !json_object_is_type(host, json_type_object))
		return -EINVAL;
	/* The fields matching compares are required, the rest informative. */
	err |= get_str(host, "arch", fp->arch, sizeof(fp->arch), true);
	err |= get_str(host, "vendor", fp->vendor, sizeof(fp->vendor), true);
	err |= get_str(host, "model_name", fp->model_name, sizeof(fp->model_name), true);
	err |= get_str(host, "microcode", fp->microcode, sizeof(fp->microcode), true);
	err |= get_str(host, "kernel", fp->kernel, sizeof(fp->kernel), true);
	err |= get_int(host, "family", &fp->family, true);
	err |= get_int(host, "model", &fp->model, true);
	err |= get_int(host, "stepping", &fp->stepping, true);
	err |= get_int(host, "cores", &fp->cores, true);
	err |= get_int(host, "threads", &fp->threads, true);
	err |= get_int(host, "nodes", &fp->nodes, true);
	get_int(host, "cache_line", &fp->cache_line, false);
	get_str(host, "hypervisor_name", fp->hypervisor_name, sizeof(fp->hypervisor_name), false);
	get_str(host, "governor", fp->governor, sizeof(fp->governor), false);
	if (json_object_object_get_ex(host, "hypervisor", &v))
		fp->hypervisor = json_object_get_boolean(v);
	fp->load1 = calib_json__double(host, "load1", 0);
	fp->steal_frac = calib_json__double(host, "steal_frac", 0);
	if (json_object_object_get_ex(host, "caches", &arr) &&
	    json_object_is_type(arr, json_type_array)) {
		for (size_t i = 0; i < calib_json__len(arr) && fp->ncaches < FP_MAX_CACHES; i++) {
			json_object *c = calib_json__at(arr, i);
			struct fp_cache *fc = &fp->caches[fp->ncaches++];

			get_int(c, "level", &fc->level, false);
			get_str(c, "type", fc->type, sizeof(fc->type), false);
			fc->size_kb = get_size(c, "size_kb");
			fc->line = get_size(c, "line");
		}
	}
	if (json_object_object_get_ex(host, "vulnerabilities", &v) &&
	    json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, name, status) {
			struct fp_vuln *fv;

			if (fp->nvulns >= FP_MAX_VULNS)
				break;
			fv = &fp->vulns[fp->nvulns++];
			snprintf(fv->name, sizeof(fv->name), "%s", name);
			snprintf(fv->status, sizeof(fv->status), "%s", json_object_get_string(status));
		}
	}
	return err ? -EINVAL : 0;
}

json_object *calib_store__document(const struct ss_fingerprint *fp, json_object *results,
				   bool partial)
{
	json_object *doc = json_object_new_object();
	char created[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!doc) {
		json_object_put(results);
		return NULL;
	}
	gmtime_r(&now, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ADD(doc, "schema", json_object_new_int(CALIB_SCHEMA));
	ADD(doc, "tool", json_object_new_string("spinscope calibrate"));
	ADD(doc, "host", calib_store__host_json(fp));
	ADD(doc, "results", results);
	ADD(doc, "partial", json_object_new_boolean(partial));
	ADD(doc, "created", json_object_new_string(created));
	return doc;
}

int calib_store__default_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (geteuid() == 0)
		snprintf(buf, len, "/var/lib/spinscope/calibration.json");
	else if (xdg && *xdg == '/')	/* the XDG spec ignores relative paths */
		snprintf(buf, len, "%s/spinscope/calibration.json", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.cache/spinscope/calibration.json", home);
	else
		return -ENOENT;
	return 0;
}

/* mkdir -p of the folder that holds path. */
static int make_parents(const char *path)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int calib_store__check(const char *path, char *why, size_t whylen)
{
	int err = make_parents(path);

	if (err) {
		snprintf(why, whylen, "cannot create its folder: %s", strerror(-err));
		return SS_EXIT_USAGE;
	}
	return outfile__check(path, why, whylen);
}

int calib_store__save(const char *path, json_object *doc, char *why, size_t whylen)
{
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	char *buf;
	int err;

	if (!text || asprintf(&buf, "%s\n", text) < 0) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = make_parents(path);
	if (err)
		snprintf(why, whylen, "%s", strerror(-err));
	else	/* written as root: no planted link followed, mode 0600 */
		err = outfile__save(path, buf, strlen(buf), why, whylen);
	free(buf);
	return err;
}

/* The whole file, NUL-terminated, or NULL with errno set (EFBIG past
 * CALIB_STORE_MAX_BYTES: a calibration is tens of KiB). */
static char *read_capped(const char *path)
{
	struct stat st;
	char *buf = NULL;
	size_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), saved;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		/* A folder, FIFO or device is not a calibration (and a FIFO
		 * opened O_NONBLOCK is never read, so never blocks). */
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENXIO;
		goto fail;
	}
	if (st.st_size > CALIB_STORE_MAX_BYTES) {
		errno = EFBIG;
		goto fail;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto fail;
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* shrank under us: parse what is there */
		off += (size_t)n;
	}
	buf[off] = '\0';
	close(fd);
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

int calib_store__load(const char *path, json_object **doc)
{
	struct json_tokener *tok;
	json_object *d, *v;
	char *text;

	*doc = NULL;
	text = read_capped(path);
	if (!text)
		return -errno;
	tok = json_tokener_new();
	if (!tok) {
		free(text);
		return -ENOMEM;
	}
	d = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!d || json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(d);
		json_tokener_free(tok);
		free(text);
		return -EBADMSG;
	}
	json_tokener_free(tok);
	free(text);
	if (!json_object_object_get_ex(d, "schema", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != CALIB_SCHEMA ||
	    !json_object_object_get_ex(d, "results", &v) || !json_object_is_type(v, json_type_object)) {
		json_object_put(d);
		return -EINVAL;
	}
	*doc = d;
	return 0;
}

int calib_store__load_matching_at(const char *path, const char *root, json_object **out,
				  char *why, size_t whylen)
{
	struct ss_fingerprint saved, here;
	char def[4096], diff[512];
	json_object *doc, *host, *results;
	int err;

	*out = NULL;
	if (!path) {
		if (calib_store__default_path(def, sizeof(def))) {
			snprintf(why, whylen, "no calibration: HOME is not set, so there is no cache folder");
			return -ENOENT;
		}
		path = def;
	}
	err = calib_store__load(path, &doc);
	if (err == -ENOENT) {
		snprintf(why, whylen, "no calibration saved at %s: run 'spinscope calibrate'", path);
		return err;
	}
	if (err == -EINVAL) {
		snprintf(why, whylen, "%s is not a calibration of schema %d: run 'spinscope calibrate' again",
			 path, CALIB_SCHEMA);
		return err;
	}
	if (err == -EBADMSG) {
		snprintf(why, whylen, "%s is not valid JSON: run 'spinscope calibrate' again", path);
		return err;
	}
	if (err == -EFBIG) {
		snprintf(why, whylen, "%s is larger than %d MiB, no calibration is: not read", path,
			 CALIB_STORE_MAX_BYTES >> 20);
		return err;
	}
	if (err == -EISDIR || err == -ENXIO) {
		snprintf(why, whylen, "%s is not a regular file: give a calibration file", path);
		return err;
	}
	if (err) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	json_object_object_get_ex(doc, "host", &host);
	if (calib_store__host_from_json(host, &saved)) {
		snprintf(why, whylen, "%s has no complete host fingerprint: run 'spinscope calibrate' again", path);
		json_object_put(doc);
		return -EINVAL;
	}
	if ((err = fingerprint__read(root, &here))) {
		snprintf(why, whylen, "cannot read this host's fingerprint: %s", strerror(-err));
		json_object_put(doc);
		return err;
	}
	if (!fingerprint__match(&saved, &here, diff, sizeof(diff))) {
		snprintf(why, whylen, "calibration in %s is for another host (%s): run 'spinscope calibrate' here",
			 path, diff);
		json_object_put(doc);
		return -ESTALE;
	}
	json_object_object_get_ex(doc, "results", &results);
	*out = json_object_get(results);
	json_object_put(doc);
	if (whylen)
		why[0] = '\0';
	return 0;
}

int calib__load_matching(const char *path_or_NULL, json_object **out, char *why, size_t whylen)
{
	return calib_store__load_matching_at(path_or_NULL, NULL, out, why, whylen);
}

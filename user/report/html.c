// SPDX-License-Identifier: GPL-2.0
/* --html FILE: the report as one self-contained page (see html.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "common/outfile.h"
#include "folded.h"
#include "html.h"

/* A kind of folded stacks: its root frame in folded.c, what the page calls
 * it and the unit of its counts. Kinds not named here (none today) are
 * shown under their root frame's name. */
struct flame_kind {
	const char *root;
	const char *title;
	const char *unit;
};

static const struct flame_kind flame_kinds[] = {
	{ "futex-wait-ns", "Futex wait time by waiter stack", "ns" },
	{ "sched-yield", "sched_yield calls by call site", "calls" },
	/* Only when a lock's wake found waiters: after the others. */
	{ "futex-release", "Contended lock releases by release site (who held the lock)", "wakes" },
	{ "samples-", "Samples of", "samples" },	/* prefix: samples-<event> */
};

static json_object *new_flame(const char *root)
{
	const struct flame_kind *k = NULL;
	json_object *o = json_object_new_object();
	char title[160];

	for (size_t i = 0; i < sizeof(flame_kinds) / sizeof(flame_kinds[0]) && !k; i++)
		if (!strcmp(root, flame_kinds[i].root) ||
		    (!strcmp(flame_kinds[i].root, "samples-") && !strncmp(root, "samples-", 8)))
			k = &flame_kinds[i];
	if (k && !strcmp(k->root, "samples-"))
		snprintf(title, sizeof(title), "%s %s by stack", k->title, root + 8);
	else
		snprintf(title, sizeof(title), "%s", k ? k->title : root);
	json_object_object_add(o, "kind", json_object_new_string(root));
	json_object_object_add(o, "title", json_object_new_string(title));
	json_object_object_add(o, "unit", json_object_new_string(k ? k->unit : "count"));
	json_object_object_add(o, "stacks", json_object_new_array());
	return o;
}

/* The flame of kind root in flames, added (empty) when missing. */
static json_object *flame_of(json_object *flames, const char *root)
{
	json_object *fl, *kind;

	for (size_t i = 0; i < json_object_array_length(flames); i++) {
		fl = json_object_array_get_idx(flames, i);
		if (json_object_object_get_ex(fl, "kind", &kind) &&
		    !strcmp(json_object_get_string(kind), root))
			return fl;
	}
	fl = new_flame(root);
	json_object_array_add(flames, fl);
	return fl;
}

/* "root;f1;...;leaf COUNT" becomes ["f1;...;leaf", COUNT] in root's flame
 * (a name's own ';' is already ':' there). */
static int add_folded_line(json_object *flames, char *line)
{
	char *sp = strrchr(line, ' '), *semi, *end;
	json_object *fl, *st, *pair;
	unsigned long long n;

	if (!sp)
		return -EINVAL;
	*sp = '\0';
	errno = 0;
	n = strtoull(sp + 1, &end, 10);
	if (errno || (*end && *end != '\n'))
		return -EINVAL;
	semi = strchr(line, ';');
	if (semi)
		*semi = '\0';
	fl = flame_of(flames, line);
	pair = json_object_new_array();
	json_object_array_add(pair, json_object_new_string(semi ? semi + 1 : ""));
	json_object_array_add(pair, json_object_new_int64((int64_t)n));
	json_object_object_get_ex(fl, "stacks", &st);
	json_object_array_add(st, pair);
	return 0;
}

/* The flame graphs' data: the folded stacks of folded.c, by kind. */
static int flames_json(const struct ss_report *r, json_object **out)
{
	const struct samples_result *sr = r->samples;
	json_object *flames = json_object_new_array();
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	mem = open_memstream(&buf, &len);
	if (!mem || !flames) {
		json_object_put(flames);
		if (mem)
			fclose(mem);
		free(buf);
		return -ENOMEM;
	}
	/* These kinds are shown even when empty: the page says so. */
	flame_of(flames, "futex-wait-ns");
	flame_of(flames, "sched-yield");
	if (sr && sr->available) {
		char kind[64];

		snprintf(kind, sizeof(kind), "samples-%s", sr->event);
		flame_of(flames, kind);
	}
	err = folded__write(mem, r->name, r->name_arg, r->profile, r->stacks, sr);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	for (line = err ? NULL : strtok_r(buf, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save))
		err = add_folded_line(flames, line);
	free(buf);
	if (err)
		json_object_put(flames);
	else
		*out = flames;
	return err;
}

int html__write_script_json(FILE *f, const char *json)
{
	for (const unsigned char *p = (const unsigned char *)json; *p; p++) {
		int rc;

		if (*p == '<' || *p == '>' || *p == '&')
			rc = fprintf(f, "\\u%04x", *p);
		else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			rc = fprintf(f, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
			p += 2;
		} else
			rc = fputc(*p, f);
		if (rc < 0)
			return -EIO;
	}
	return 0;
}

int html__write_page(FILE *f, json_object *report, json_object *flames)
{
	json_object *doc = json_object_new_object();
	int err;

	if (!doc)
		return -ENOMEM;
	json_object_object_add(doc, "report", json_object_get(report));
	json_object_object_add(doc, "flames", json_object_get(flames));
	json_object_object_add(doc, "hist_slots", json_object_new_int(SS_HIST_SLOTS));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      /* Nothing may be fetched: no network, not even by accident. */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>spinscope report</title>\n<style>\n", f);
	fputs(html_page_style, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"app\"></div>\n"
	      "<script type=\"application/json\" id=\"ss-data\">", f);
	err = html__write_script_json(f, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	fputs("</script>\n<script>\n", f);
	fputs(html_page_script, f);
	if (fputs("</script>\n</body>\n</html>\n", f) < 0 || ferror(f))
		err = -EIO;
	json_object_put(doc);
	return err;
}

int html__write(FILE *f, const struct ss_report *r)
{
	json_object *report, *flames = NULL;
	int err = flames_json(r, &flames);

	if (err)
		return err;
	report = report_to_json(r);
	err = report ? html__write_page(f, report, flames) : -ENOMEM;
	json_object_put(report);
	json_object_put(flames);
	return err;
}

static int fill(FILE *f, void *arg)
{
	return html__write(f, arg);
}

int html__save(const char *path, const struct ss_report *r, char *why, size_t whylen)
{
	return outfile__save_stream(path, fill, (void *)r, why, whylen);
}

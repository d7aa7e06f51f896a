// SPDX-License-Identifier: GPL-2.0
/*
 * verdict.c: the findings in the few lines a person acts on (verdict.h).
 * The advisor says what, where and what it costs (advisor/verdict.c);
 * this file lays them out.
 */
#include <ctype.h>
#include <string.h>
#include "verdict.h"

static const char *const marks[] = { "info", "WARNING", "CRITICAL" };

static size_t actionable(const struct adv_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->findings[i].severity >= ADV_WARNING;
	return n;
}

const char *verdict__first_sentence(const char *rec, char *buf, size_t len)
{
	size_t n = strlen(rec);

	/* A sentence ends at ". " before a capital or a quote; "e.g. x" and
	 * "0.5 ms" do not end one. */
	for (size_t i = 0; rec[i]; i++)
		if (rec[i] == '.' && rec[i + 1] == ' ' &&
		    (isupper((unsigned char)rec[i + 2]) || rec[i + 2] == '`')) {
			n = i + 1;
			break;
		}
	snprintf(buf, len, "%.*s", (int)n, rec);
	return buf;
}

/* "lock contention in X: cost", or the title when the advisor gave no
 * parts. */
static void finding_line(const struct adv_finding *f, FILE *out)
{
	if (!f->what[0]) {
		fprintf(out, "%s", f->title);
		return;
	}
	fprintf(out, "%s", f->what);
	if (f->where[0])
		fprintf(out, " in %s", f->where);
	if (f->cost[0])
		fprintf(out, ": %s", f->cost);
}

void verdict__print_text(const struct adv_report *r, FILE *out)
{
	size_t n = actionable(r), shown = 0;
	char first[ADV_REC_LEN];

	fprintf(out, "VERDICT\n");
	if (!n) {
		fprintf(out, "  healthy: no warning or critical finding%s\n\n",
			r->n ? " (notes under ADVICE below)" : "");
		return;
	}
	for (size_t i = 0; i < r->n && shown < SS_VERDICT_MAX_LINES; i++) {
		const struct adv_finding *f = &r->findings[i];

		if (f->severity < ADV_WARNING)
			continue;
		fprintf(out, "  %-8s ", marks[f->severity]);
		finding_line(f, out);
		fputc('\n', out);
		shown++;
	}
	if (n > shown)
		fprintf(out, "  ... and %zu more under ADVICE below\n", n - shown);
	fprintf(out, "  first: %s\n\n",
		verdict__first_sentence(r->findings[0].recommendation, first, sizeof(first)));
}

void verdict__print_line(const struct adv_report *r, FILE *out)
{
	char first[ADV_REC_LEN];
	size_t n = actionable(r);

	if (!n) {
		fprintf(out, "verdict: healthy\n");
		return;
	}
	fprintf(out, "verdict: %s ", marks[r->findings[0].severity]);
	finding_line(&r->findings[0], out);
	if (n > 1)
		fprintf(out, " (+%zu more)", n - 1);
	fprintf(out, "; first: %s\n",
		verdict__first_sentence(r->findings[0].recommendation, first, sizeof(first)));
}

static json_object *str_or_null(const char *s)
{
	return s[0] ? json_object_new_string(s) : NULL;
}

json_object *verdict__to_json(const struct adv_report *r)
{
	json_object *v = json_object_new_object(), *a = json_object_new_array();
	char first[ADV_REC_LEN];
	size_t n = actionable(r);

	json_object_object_add(v, "healthy", json_object_new_boolean(n == 0));
	for (size_t i = 0; i < r->n; i++) {
		const struct adv_finding *f = &r->findings[i];
		json_object *o;

		if (f->severity < ADV_WARNING)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_string(f->id));
		json_object_object_add(o, "severity",
				       json_object_new_string(advisor__severity_name(f->severity)));
		json_object_object_add(o, "what", json_object_new_string(f->what[0] ? f->what : f->title));
		json_object_object_add(o, "where", str_or_null(f->where));
		json_object_object_add(o, "cost", str_or_null(f->cost));
		json_object_array_add(a, o);
	}
	json_object_object_add(v, "findings", a);
	json_object_object_add(v, "first_action", n ?
			       json_object_new_string(verdict__first_sentence(
				       r->findings[0].recommendation, first, sizeof(first))) : NULL);
	return v;
}

// SPDX-License-Identifier: GPL-2.0
/* finding.c: filling one struct adv_finding (see finding.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "finding.h"

void adv_finding__init(struct adv_finding *f, enum adv_severity sev,
		       const char *title_fmt, ...)
{
	va_list ap;

	memset(f, 0, sizeof(*f));
	f->severity = sev;
	va_start(ap, title_fmt);
	vsnprintf(f->title, sizeof(f->title), title_fmt, ap);
	va_end(ap);
}

bool adv_finding__evidence(struct adv_finding *f, enum adv_source src, const char *label,
			   const char *fmt, ...)
{
	struct adv_evidence *e;
	va_list ap;

	if (f->nevidence >= ADV_MAX_EVIDENCE)
		return false;
	e = &f->evidence[f->nevidence++];
	e->source = src;
	snprintf(e->label, sizeof(e->label), "%s", label);
	va_start(ap, fmt);
	vsnprintf(e->value, sizeof(e->value), fmt, ap);
	va_end(ap);
	return true;
}

void adv_finding__bound(struct adv_finding *f)
{
	char *rec = f->recommendation, *cut = NULL;

	if (strlen(rec) <= ADV_REC_MAX)
		return;
	/* The last sentence end that keeps the action within the bound. */
	for (char *p = rec; p < rec + ADV_REC_MAX; p++)
		if (p[0] == '.' && p[1] == ' ')
			cut = p + 1;
	if (!cut) {
		memcpy(rec + ADV_REC_MAX - 3, "...", 4);
		return;
	}
	*cut = 0;
	adv_finding__evidence(f, ADV_SRC_TARGET, "then", "%s", cut + 1);
}

void adv_finding__see(struct adv_finding *f, const char *fmt, ...)
{
	char value[ADV_VALUE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	adv_finding__evidence(f, ADV_SRC_TARGET, ADV_SEE_LABEL, "%s", value);
}

void adv_finding__recommend(struct adv_finding *f, const char *fmt, ...)
{
	size_t len = strlen(f->recommendation);
	va_list ap;

	/* Room for the separator and at least one character. */
	if (len + 2 >= sizeof(f->recommendation))
		return;
	if (len) {
		f->recommendation[len++] = ' ';
		f->recommendation[len] = 0;
	}
	va_start(ap, fmt);
	vsnprintf(f->recommendation + len, sizeof(f->recommendation) - len, fmt, ap);
	va_end(ap);
}

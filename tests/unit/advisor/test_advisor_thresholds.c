// SPDX-License-Identifier: GPL-2.0
/*
 * Every threshold the advisor decides by (advisor/thresholds.h) has a row
 * in docs/ADVISOR.md's threshold table with the same value, and the table
 * lists none the code does not have: the documentation cannot drift from
 * what the rules do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "advisor/thresholds.h"

#define DOC "docs/ADVISOR.md"

/* The value cell of the row "| `NAME` | value | ..."; false if absent. */
static bool doc_value(const char *name, double *value)
{
	char line[1024], key[96];
	FILE *f = fopen(DOC, "r");
	bool found = false;

	assert_non_null(f);
	snprintf(key, sizeof(key), "| `%s` |", name);
	while (!found && fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, key, strlen(key)))
			continue;
		*value = strtod(line + strlen(key), &end);
		found = end != line + strlen(key);
	}
	fclose(f);
	return found;
}

static void test_every_threshold_is_documented_with_its_value(void **state)
{
	int bad = 0;

	for (size_t i = 0; i < adv_nthresholds; i++) {
		const struct adv_threshold *t = &adv_thresholds[i];
		double v;

		if (!doc_value(t->name, &v)) {
			print_message("%s (%g %s): no row in %s\n", t->name, t->value, t->unit, DOC);
			bad++;
		} else if (fabs(v - t->value) > 1e-9 * fmax(1, fabs(t->value))) {
			print_message("%s: %g in the code, %g in %s\n", t->name, t->value, v, DOC);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_the_doc_lists_no_threshold_the_code_lacks(void **state)
{
	char line[1024];
	FILE *f = fopen(DOC, "r");
	int bad = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[96];
		size_t i;

		if (sscanf(line, "| `%95[A-Z0-9_]` |", name) != 1 || strncmp(name, "ADV_", 4))
			continue;
		for (i = 0; i < adv_nthresholds; i++)
			if (!strcmp(adv_thresholds[i].name, name))
				break;
		if (i == adv_nthresholds) {
			print_message("%s is in %s but not in advisor/thresholds.h\n", name, DOC);
			bad++;
		}
	}
	fclose(f);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_threshold_is_documented_with_its_value),
		cmocka_unit_test(test_the_doc_lists_no_threshold_the_code_lacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

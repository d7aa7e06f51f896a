// SPDX-License-Identifier: GPL-2.0
/*
 * TEST_FILTER=PATTERN runs only the tests of a cmocka binary whose names
 * match PATTERN (cmocka's * and ? wildcards). The kernel matrix
 * (tests/vm/guest-init.sh) runs a few named checks per guest under TCG,
 * where a whole test file would cost minutes; unset, every test runs.
 */
#include <stdlib.h>
#include "testlib.h"

__attribute__((constructor)) static void apply_test_filter(void)
{
	const char *pattern = getenv("TEST_FILTER");

	if (pattern && *pattern)
		cmocka_set_test_filter(pattern);
}

// SPDX-License-Identifier: GPL-2.0
#include "commands.h"
#include "common/errors.h"
int cmd_diff(int argc, char **argv)
{
	return ss_error(SS_EXIT_USAGE, "diff: not yet");
}

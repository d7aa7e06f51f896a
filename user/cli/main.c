// SPDX-License-Identifier: GPL-2.0
/*
 * spinscope: find out how a process spins, waits and yields, and what that
 * costs on this host. main() only picks the subcommand.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "common/errors.h"
#include "common/outfile.h"

struct command {
	const char *name;
	int (*func)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "demo", cmd_demo },
	{ "calibrate", cmd_calibrate },
	{ "report", cmd_report },
	{ "diff", cmd_diff },
};

int main(int argc, char **argv)
{
	int rc;

	outfile__reserve_std_fds();
	/* Argument errors of every command honour --json (docs/REFERENCE.md). */
	ss_set_json_errors(ss_argv_wants_json(argc, argv));
	if (argc >= 2 && argv[1][0] != '-') {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name)) {
				rc = commands[i].func(argc - 1, argv + 1);
				goto out;
			}
		return ss_error(SS_EXIT_USAGE, "unknown command '%s': try 'spinscope --help'", argv[1]);
	}
	rc = cmd_trace(argc, argv);
out:
	/* A report that did not reach its reader is a failure, not silence.
	 * A command that failed has said why already (report and diff name
	 * a failed stdout themselves): no second line then. */
	if ((fflush(stdout) == EOF || ferror(stdout)) && !rc) {
		fprintf(stderr, "spinscope: cannot write the report to stdout\n");
		return SS_EXIT_ERROR;
	}
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * spinscope: find out how a process spins, waits and yields, and what that
 * costs on this host. main() only picks the subcommand.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
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
	{ "top", cmd_top },
};

/*
 * The soft descriptor limit up to the hard one: BPF objects, perf events
 * (per CPU), the metrics server's connections and the end-of-trace files
 * all need descriptors, and Debian's soft 1024 is a default, not a choice.
 * What the hard limit still refuses is exit 7, said so (ss_error).
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	int rc;

	outfile__reserve_std_fds();
	raise_fd_limit();
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

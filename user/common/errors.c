// SPDX-License-Identifier: GPL-2.0
/* The one place that prints errors and warnings, plain or JSON. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <json-c/json.h>
#include "errors.h"

const char ss_exit_codes_help[] =
	"Exit codes:\n"
	"  0  success (also when the target exits during the trace)\n"
	"  1  unexpected failure (I/O)\n"
	"  2  bad arguments, or a recording (report, diff) that cannot be read\n"
	"  3  target not traceable: no such process, a kernel thread or a zombie\n"
	"  4  insufficient privileges: needs root or CAP_BPF and CAP_PERFMON\n"
	"  5  kernel lacks support: older than Linux 5.8, no usable BTF (missing, empty,\n"
	"     corrupt or of another kernel), or a required tracepoint is missing\n"
	"  6  the kernel refused to load or attach a BPF program (the message names it)\n"
	"  7  out of resources: file descriptors (ulimit -n) or memory\n";

static bool json_errors;

void ss_set_json_errors(bool on)
{
	json_errors = on;
}

/* What to do when msg's cause is a resource running out; NULL if not. */
static const char *resource_hint(const char *msg, char *buf, size_t len)
{
	struct rlimit rl;

	if (strstr(msg, strerror(EMFILE)) || strstr(msg, strerror(ENFILE))) {
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			snprintf(buf, len, "out of file descriptors: raise the limit (ulimit -n, now %llu)",
				 (unsigned long long)rl.rlim_cur);
		else
			snprintf(buf, len, "out of file descriptors: raise the limit (ulimit -n)");
		return buf;
	}
	if (strstr(msg, strerror(ENOMEM)) || strstr(msg, "out of memory"))
		return "out of memory: free some, or trace with smaller --max-threads/--max-futexes/--max-stacks";
	return NULL;
}

int ss_error(int code, const char *fmt, ...)
{
	char msg[1024], hint[160];
	const char *what;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if ((code == SS_EXIT_ERROR || code == SS_EXIT_BPF) && (what = resource_hint(msg, hint, sizeof(hint)))) {
		size_t n = strlen(msg);

		code = SS_EXIT_RESOURCES;
		snprintf(msg + n, sizeof(msg) - n, " (%s)", what);
	}
	fprintf(stderr, "spinscope: %s\n", msg);
	if (json_errors) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "error", json_object_new_string(msg));
		json_object_object_add(o, "exit_code", json_object_new_int(code));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		fflush(stdout);
		json_object_put(o);
	}
	return code;
}

/* One whole line per message: written at once, so that lines of processes
 * sharing the terminal (the calibrating child) do not interleave. */
static void say(const char *kind, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "spinscope: %s%s\n", kind, msg);
}

void ss_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

void ss_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

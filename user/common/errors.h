/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit codes and the one error function. Every failure a user can cause ends
 * in one line on stderr ("spinscope: <problem>: <what to do>") and one of
 * these codes; in JSON mode the same message is also emitted as a JSON
 * object on stdout so that a consumer of stdout never parses a half report.
 */
#ifndef SPINSCOPE_ERRORS_H
#define SPINSCOPE_ERRORS_H

#include <stdbool.h>

enum ss_exit {
	SS_EXIT_OK = 0,
	SS_EXIT_ERROR = 1,	/* unexpected failure: I/O, internal */
	SS_EXIT_USAGE = 2,	/* bad arguments */
	SS_EXIT_TARGET = 3,	/* no such process, kernel thread, zombie */
	SS_EXIT_PERM = 4,	/* missing root / CAP_BPF / CAP_PERFMON */
	SS_EXIT_KERNEL = 5,	/* kernel lacks BTF or a required tracepoint */
	SS_EXIT_BPF = 6,	/* BPF load or attach failed for another reason */
	SS_EXIT_RESOURCES = 7,	/* out of file descriptors or memory */
};

/* Text of the exit-code table, shared by --help and the README test. */
extern const char ss_exit_codes_help[];

void ss_set_json_errors(bool on);
/* Prints "spinscope: <fmt>" on stderr (and a JSON error in JSON mode) and
 * returns code, so callers write `return ss_error(SS_EXIT_USAGE, ...)`.
 * A failure (1) or a BPF refusal (6) whose cause, by this codebase's rule
 * the strerror() the message ends with, is running out of descriptors
 * (EMFILE, ENFILE) or memory (ENOMEM) is SS_EXIT_RESOURCES instead, and
 * the line says what to do: one place, so that no path (libbpf's, a
 * file's, the metrics server's) says "Invalid argument" or exits 6 for it. */
int ss_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning ("spinscope: warning: <fmt>") or a notice of what is being
 * done ("spinscope: <fmt>"): one line on stderr, never fatal. Never on
 * stdout, in JSON mode neither: there stdout carries only JSON documents,
 * and these are the only other lines spinscope writes. */
void ss_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ss_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

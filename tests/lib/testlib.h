/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the cmocka tests: run spinscope and workloads, read
 * their output, and skip (with the reason) when BPF cannot be used here.
 * tests/run.sh turns a skip into a failure when CI=true.
 */
#ifndef SPINSCOPE_TESTLIB_H
#define SPINSCOPE_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#include <cmocka.h>

/* Path of a built artefact: "spinscope" or "workloads/NAME". */
const char *tl_path(const char *what);

/* Skips the calling test, saying why, unless BPF tracing can run here. */
#define TL_REQUIRE_BPF() do {						\
		const char *why_ = tl_bpf_unavailable();		\
		if (why_) {						\
			print_message("skip: %s\n", why_);		\
			skip();						\
		}							\
	} while (0)
const char *tl_bpf_unavailable(void);

/* A child process with its stdout captured through a pipe. */
struct tl_proc {
	pid_t pid;
	int out_fd;	/* read end of the child's stdout */
	int err_fd;	/* read end of the child's stderr */
};

/* Starts argv[0] (a path) with stdout/stderr piped. */
int tl_spawn(struct tl_proc *p, char *const argv[]);
/* Reads one line from the child's stdout, waiting at most timeout_ms. */
bool tl_read_line(struct tl_proc *p, char *buf, size_t size, int timeout_ms);
/* Reads all remaining stdout / stderr into a malloc'd string. */
char *tl_read_all(int fd);
/* Waits for the child; returns its exit status (128+sig if killed). */
int tl_wait(struct tl_proc *p);
void tl_kill(struct tl_proc *p, int sig);

/* Runs argv to completion, capturing stdout and stderr. Returns exit code. */
int tl_run(char *const argv[], char **out, char **err);

/* Writes content to a new file under /tmp; returns its malloc'd path. */
char *tl_write_tmp(const char *content);

#endif

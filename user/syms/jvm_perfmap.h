/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Asking a HotSpot JVM (JDK 17+) to write its perf map, /tmp/perf-PID.map,
 * as `jcmd PID Compiler.perfmap` does, in C: a JRE has no jcmd. The
 * attach protocol on Linux: the JVM listens on the Unix socket
 * /tmp/.java_pid<PID> (in its own mount namespace, its own PID), which it
 * creates when it receives SIGQUIT while a file .attach_pid<PID> exists in
 * its working directory or /tmp; a request is "1\0jcmd\0Compiler.perfmap
 * \0\0\0", the reply a status line ("0") and the command's output.
 *
 * Every step is bounded by one deadline; the attach file is created with
 * O_EXCL (no link followed, mode 0600) and always removed; the socket is
 * connected to only when it is a socket owned by the target's user (or
 * root) and through the inode that was checked. What the JVM writes is
 * read later by syms.c, as the target's user's file (perfmap.h).
 */
#ifndef SPINSCOPE_JVM_PERFMAP_H
#define SPINSCOPE_JVM_PERFMAP_H

#include <stddef.h>

enum jvm_perfmap_status {
	JVM_PERFMAP_WRITTEN = 0,	/* the JVM says it wrote the map */
	JVM_PERFMAP_NOT_JVM,		/* no libjvm.so mapped: nothing was sent */
	JVM_PERFMAP_NO_LISTENER,	/* no attach listener came up (or -Xrs) */
	JVM_PERFMAP_REFUSED,		/* the JVM answered with an error */
	JVM_PERFMAP_FAILED,		/* gone, unreachable, or no full answer in time */
};

/* Asks process pid (as proc_root/PID sees it) for its perf map within
 * timeout_ms. why gets one printable line for the user saying what
 * happened (or what to do instead, e.g. for a JDK before 17). */
enum jvm_perfmap_status jvm_perfmap__request(const char *proc_root, int pid, int timeout_ms,
					     char *why, size_t len);

/* The request bytes for a jcmd command ("Compiler.perfmap"), protocol
 * version 1: "1\0jcmd\0<cmd>\0\0\0". Returns their length, 0 if len is
 * too small. */
size_t jvm_perfmap__request_bytes(const char *cmd, char *buf, size_t len);

/* Parses a reply: 0 when its status line is "0" and its output reports
 * no error; else -1 with the first line of the JVM's message, made
 * printable, in why. */
int jvm_perfmap__parse_reply(const char *reply, size_t n, char *why, size_t len);

#endif

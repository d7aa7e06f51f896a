/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --metrics ADDR:PORT: serves the latest exposition (metrics_text.c) at
 * /metrics from libmicrohttpd's own thread while spinscope traces. The
 * tracing thread renders and hands each new text over; a scrape copies
 * the current one under a lock, so it never sees half an update.
 *
 * Safe to expose to the local users who can reach it: at most
 * METRICS_HTTP_MAX_CONNECTIONS connections (a new one lets the oldest go),
 * each closed METRICS_HTTP_DEADLINE_MS after it came whatever it sends (a
 * slowloris cannot hold it), one request each. A thousand connections
 * held open therefore take a handful of spinscope's descriptors, never
 * those the end-of-trace files need.
 *
 * Where every local user must not read it (the series name the host's
 * processes and their locks), --metrics-token-file FILE makes a scrape
 * send "Authorization: Bearer TOKEN" (Prometheus: authorization's
 * credentials_file), or get 401.
 */
#ifndef SPINSCOPE_METRICS_HTTP_H
#define SPINSCOPE_METRICS_HTTP_H

#include <stddef.h>

struct metrics_http;

#define METRICS_HTTP_MAX_CONNECTIONS 16
#define METRICS_HTTP_DEADLINE_MS 5000u
#define METRICS_HTTP_TICK_MS 100	/* how often deadlines are looked at */
#define METRICS_HTTP_TOKEN_MAX 256	/* bytes of a token, its NUL included */

/* Parses "ADDR:PORT", ":PORT" or "PORT" (IPv4; no address: 127.0.0.1).
 * Returns 0 or -EINVAL with a reason in why. */
int metrics_http__parse_addr(const char *arg, char *addr, size_t addrlen, unsigned int *port,
			     char *why, size_t whylen);
/* Whether arg ("[ADDR:]PORT") parses and its port can be bound now: what
 * the commands check before they attach, so a taken port is one line and
 * nothing was attached. 0, or a negative errno with a reason in why. */
int metrics_http__probe(const char *arg, char *why, size_t whylen);
/* The token in file path: its first line, from a regular file that only
 * its owner may read (a secret). 0, or -1 with a reason in why. */
int metrics_http__read_token(const char *path, char token[METRICS_HTTP_TOKEN_MAX], char *why,
			     size_t whylen);
/* What both commands check before they attach: arg's port can be bound
 * (where arg), then the token read from token_file (where given; token
 * "" otherwise). 0, or nonzero with a reason in why. */
int metrics_http__check(const char *arg, const char *token_file, char token[METRICS_HTTP_TOKEN_MAX],
			char *why, size_t whylen);
/* Listens on addr:port (libmicrohttpd says nothing itself); token: what
 * a scrape must send, NULL or "" for none. NULL with a reason in why (the
 * address in use, ...). */
struct metrics_http *metrics_http__start(const char *addr, unsigned int port, const char *token,
					 char *why, size_t whylen);
/* Replaces the text served; takes ownership of text (malloc'd). */
void metrics_http__publish(struct metrics_http *h, char *text, size_t len);
void metrics_http__stop(struct metrics_http *h);

#endif

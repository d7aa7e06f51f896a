/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --metrics ADDR:PORT: serves the latest exposition (metrics_text.c) at
 * /metrics from libmicrohttpd's own thread while spinscope traces. The
 * tracing thread renders and hands each new text over; a scrape copies
 * the current one under a lock, so it never sees half an update.
 */
#ifndef SPINSCOPE_METRICS_HTTP_H
#define SPINSCOPE_METRICS_HTTP_H

#include <stddef.h>

struct metrics_http;

/* Parses "ADDR:PORT", ":PORT" or "PORT" (IPv4; no address: 127.0.0.1).
 * Returns 0 or -EINVAL with a reason in why. */
int metrics_http__parse_addr(const char *arg, char *addr, size_t addrlen, unsigned int *port,
			     char *why, size_t whylen);
/* Listens on addr:port (libmicrohttpd says nothing itself). NULL with a
 * reason in why (the address in use, ...). */
struct metrics_http *metrics_http__start(const char *addr, unsigned int port, char *why,
					 size_t whylen);
/* Replaces the text served; takes ownership of text (malloc'd). */
void metrics_http__publish(struct metrics_http *h, char *text, size_t len);
void metrics_http__stop(struct metrics_http *h);

#endif

// SPDX-License-Identifier: GPL-2.0
/* /metrics over HTTP with libmicrohttpd (see metrics_http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "metrics_http.h"

struct metrics_http {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	char *text;
	size_t len;
};

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	static const char not_found[] = "spinscope serves /metrics only\n";
	struct metrics_http *h = cls;
	enum MHD_Result ret;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "", 0, "text/plain");
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1, "text/plain");
	pthread_mutex_lock(&h->lock);
	ret = reply(c, MHD_HTTP_OK, h->text ? h->text : "", h->text ? h->len : 0, CONTENT_TYPE);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

int metrics_http__parse_addr(const char *arg, char *addr, size_t addrlen, unsigned int *port,
			     char *why, size_t whylen)
{
	const char *colon = strrchr(arg, ':');
	const char *p = colon ? colon + 1 : arg;
	struct in_addr in;
	char *end;
	long v;

	errno = 0;
	v = strtol(p, &end, 10);
	if (!*p || *end || errno || v < 1 || v > 65535) {
		snprintf(why, whylen, "--metrics %s: expected ADDR:PORT with a port from 1 to 65535", arg);
		return -EINVAL;
	}
	*port = (unsigned int)v;
	if (!colon || colon == arg)
		snprintf(addr, addrlen, "127.0.0.1");
	else
		snprintf(addr, addrlen, "%.*s", (int)(colon - arg), arg);
	if (inet_pton(AF_INET, addr, &in) != 1) {
		snprintf(why, whylen, "--metrics %s: '%s' is not an IPv4 address", arg, addr);
		return -EINVAL;
	}
	return 0;
}

struct metrics_http *metrics_http__start(const char *addr, unsigned int port, char *why,
					 size_t whylen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct metrics_http *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int err;

	if (!h) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	inet_pton(AF_INET, addr, &sa.sin_addr);
	pthread_mutex_init(&h->lock, NULL);
	/* The server's thread inherits our signal mask: with every signal
	 * blocked there, SIGINT reaches the tracing thread (its signalfd),
	 * which ends the trace with a report, instead of killing us. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	errno = 0;
	h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port,
				NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &sa,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->d) {
		snprintf(why, whylen, "cannot serve metrics on %s:%u: %s (choose another --metrics address)",
			 addr, port, err ? strerror(err) : "libmicrohttpd refused");
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	return h;
}

void metrics_http__publish(struct metrics_http *h, char *text, size_t len)
{
	char *old;

	pthread_mutex_lock(&h->lock);
	old = h->text;
	h->text = text;
	h->len = len;
	pthread_mutex_unlock(&h->lock);
	free(old);
}

void metrics_http__stop(struct metrics_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h);
}
